"""The manual builds with warnings as errors, a broken reference fails
it, every family has a page, and the tutorial's code is a real family.

The broken-reference test plants a reference to a page that does not
exist in a copy of docs/: without it, a -W build that silently stopped
checking would pass.  Builds go to tmp directories (docs/_build is the
developer's).
"""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from helpers import MINIMAL_PYPERF, ROOT, run_harness

DOCS = os.path.join(ROOT, "docs")


def build(source, out):
    """sphinx-build as ``tox -e docs`` runs it: (exit code, warnings)."""
    for name in ("sphinx", "furo", "sphinxarg"):
        pytest.importorskip(name, reason="requirements-docs.txt is not "
                            "installed (current Sphinx needs Python >= 3.11)")
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q",
         "-b", "html", "-d", str(out / "doctrees"), str(source),
         str(out / "html")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True, timeout=300)
    return proc.returncode, proc.stderr


def test_docs_build_without_warnings(tmp_path):
    code, warnings = build(DOCS, tmp_path)
    assert code == 0 and not warnings.strip(), warnings
    html = tmp_path / "html"
    for page in ("index", "getting-started", "commands", "result-format",
                 "writing-cases", "families/gil", "families/timeit"):
        assert (html / (page + ".html")).is_file(), page
    # The generated parts are there: the registry's cases, the parsers'
    # options, the API's docstrings.
    assert "gil.trivial.nogil.cython" in (html / "families/gil.html"
                                          ).read_text()
    assert "--fail-efficiency-drop" in (html / "commands.html").read_text()
    assert "gilbench.api.CaseSpec" in (html / "writing-cases.html"
                                       ).read_text()


def test_a_broken_reference_fails_the_build(tmp_path):
    copy = tmp_path / "docs"
    shutil.copytree(DOCS, str(copy), ignore=shutil.ignore_patterns(
        "_build", "__pycache__"))
    page = copy / "getting-started.rst"
    page.write_text(page.read_text() + "\nSee :doc:`no-such-page`.\n")
    code, warnings = build(copy, tmp_path / "out")
    assert code != 0
    assert "no-such-page" in warnings


def test_every_family_has_a_page():
    listing = run_harness("list", "--json")
    assert listing.code == 0, listing
    families = set(c["family"] for c in json.loads(listing.stdout)["cases"])
    pages = set(name[:-len(".rst")] for name in os.listdir(
        os.path.join(DOCS, "families")) if name.endswith(".rst"))
    assert families | {"timeit", "index"} == pages
    index = open(os.path.join(DOCS, "families", "index.rst")).read()
    for family in families | {"timeit"}:
        assert "\n   %s\n" % family in index, family


def tutorial_module():
    """The tutorial's code blocks, in order: one user family."""
    text = open(os.path.join(DOCS, "writing-cases.rst")).read()
    text = text.split("\nAPI reference\n")[0]
    blocks = re.findall(r"::\n\n((?:    .*\n|\n)+)", text)
    code = [b for b in blocks if "CASES" in b or "TABLES" in b]
    return "\n".join("\n".join(line[4:] for line in block.splitlines())
                     for block in code)


def test_the_tutorial_is_a_family(tmp_path):
    module = tmp_path / "tutorial_cases.py"
    module.write_text(tutorial_module())
    listing = run_harness("list", "--json", "--module", module)
    assert listing.code == 0, listing
    cases = json.loads(listing.stdout)["cases"]
    assert [c["driver"] for c in cases] == ["threads", "processes", "custom"]
    assert all(c["family"] == "mine" for c in cases)
    # ... and runs as written, each driver, into a report.
    output = tmp_path / "out.json"
    run = run_harness("run", "--module", module, "--quick", "-o", output,
                      *MINIMAL_PYPERF)
    assert run.code in (0, 1), run  # 1: a case n/a here, with its reason
    report = run_harness("report", output, "--format", "md")
    assert report.code == 0, report


# actionlint from the Go module proxy, pinned; built once into Go's cache.
ACTIONLINT = "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"


def actionlint_command():
    """actionlint on PATH or in Go's bin directory, else ``go run`` of the
    pinned version; None where there is no Go."""
    found = shutil.which("actionlint")
    gopath_bin = os.path.expanduser(os.path.join("~", "go", "bin",
                                                 "actionlint"))
    if found or os.path.isfile(gopath_bin):
        return [found or gopath_bin]
    go = shutil.which("go") or (
        "/usr/local/go/bin/go" if os.path.isfile("/usr/local/go/bin/go")
        else None)
    return [go, "run", ACTIONLINT] if go else None


@pytest.mark.parametrize("scaffolded", [False, True],
                         ids=["docs", "gilbench-init"])
def test_the_ci_workflow_passes_actionlint(scaffolded, tmp_path):
    command = actionlint_command()
    if command is None:
        pytest.skip("no actionlint and no Go to build it (go install %s)"
                    % ACTIONLINT)
    workflow = os.path.join(DOCS, "ci", "gilbench.yml")
    if scaffolded:  # what gilbench init --ci writes into a project
        (tmp_path / "mypkg").mkdir()
        (tmp_path / "mypkg" / "__init__.py").write_text("")
        assert run_harness("init", "--ci", "--gilbench-source",
                           "acme/gilbench", "--directory", tmp_path).code == 0
        workflow = str(tmp_path / ".github" / "workflows" / "gilbench.yml")
    proc = subprocess.run(command + [workflow], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout
