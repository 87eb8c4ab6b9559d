"""The manual builds with warnings as errors, and a broken reference
fails it.

The second test plants a reference to a page that does not exist in a
copy of docs/: without it, a -W build that silently stopped checking
would pass.  Both build into tmp directories (docs/_build is the
developer's).
"""
import os
import shutil
import subprocess
import sys

import pytest

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))), "docs")

pytest.importorskip("sphinx", reason="requirements-docs.txt not installed "
                    "(Sphinx needs Python >= 3.11)")
pytest.importorskip("furo", reason="furo not installed")
pytest.importorskip("sphinxarg", reason="sphinx-argparse not installed")


def build(source, out):
    """sphinx-build as tox -e docs runs it; (exit code, warnings)."""
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q",
         "-b", "html", "-d", str(out / "doctrees"), str(source),
         str(out / "html")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True, timeout=300)
    return proc.returncode, proc.stderr


def copy_docs(tmp_path):
    copy = tmp_path / "docs"
    shutil.copytree(DOCS, str(copy), ignore=shutil.ignore_patterns(
        "_build", "__pycache__"))
    return copy


def test_docs_build_without_warnings(tmp_path):
    code, warnings = build(DOCS, tmp_path)
    assert code == 0 and not warnings.strip(), warnings
    html = tmp_path / "html"
    for page in ("index", "getting-started", "commands", "result-format",
                 "writing-cases", "families/gil", "families/timeit"):
        assert (html / (page + ".html")).is_file(), page


def test_a_broken_reference_fails_the_build(tmp_path):
    copy = copy_docs(tmp_path)
    page = copy / "getting-started.rst"
    page.write_text(page.read_text() + "\nSee :doc:`no-such-page`.\n")
    code, warnings = build(copy, tmp_path / "out")
    assert code != 0
    assert "no-such-page" in warnings
