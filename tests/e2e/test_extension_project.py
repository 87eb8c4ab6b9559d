"""A user's extension project measured across its interpreters, as a user
stands: tests/fixtures/fastsum_project (a Cython module with the GIL held
and released and a cffi call, the package at the repository root) copied,
``gilbench init --tox``, then ``tox -c tox-gilbench.ini -e ENVS`` and
``-e report`` from the project root, no ``changedir``.  The answers must
be there for every env with 0 failed benchmarks: released scales and held
does not, except on a free-threaded build with the GIL off, where held
scales too.  tests/fixtures/intpack_project is laid out as current
packaging tools lay a project out (``setuptools >= 77`` in its
``[build-system] requires``, an SPDX license string): every env builds it
as it says, or, where that requirement cannot install (2.7, 3.8), is
"n/a" saying so; its call reads a list, which threads sharing one read
more slowly than threads with a copy each on a free-threaded build.

The envs are those of this interpreter and of every one
GILBENCH_TEST_PYTHONS names (.ci/run: 2.7, 3.8, PyPy, 3.13t and its GIL-on
twin, 3.14, 3.15); tox resolves each env's basepython on PATH as it would
for the user.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from helpers import FIXTURES, ROOT, pythons_to_test

from gilbench.model import envnames

pytestmark = pytest.mark.e2e

PROJECT = os.path.join(FIXTURES, "fastsum_project")
MODERN_PROJECT = os.path.join(FIXTURES, "intpack_project")
_IDENTITY = ("import sys, sysconfig; print('%s %d %d %s' % ("
             "hasattr(sys, 'pypy_version_info'), sys.version_info[0], "
             "sys.version_info[1], bool(sysconfig.get_config_var("
             "'Py_GIL_DISABLED'))))")


def _env_names():
    """The tox env of each interpreter to test (a free-threaded build's
    GIL-on twin too), named as gilbench init names them."""
    names = []
    for python in pythons_to_test():
        said = subprocess.check_output([python, "-c", _IDENTITY],
                                       universal_newlines=True).split()
        pypy, version, free = (said[0] == "True", (int(said[1]),
                               int(said[2])), said[3] == "True")
        matching = [i for i in envnames.KNOWN
                    if envnames.named(i.name).pypy == pypy
                    and envnames.named(i.name).free_threaded == free
                    and not envnames.mismatch(envnames.named(i.name), pypy,
                                              version, free)]
        # The most specific name: pypy311 before pypy3.
        best = max(matching, key=lambda i: len(envnames.named(i.name)
                                               .version))
        names += [i.name for i in envnames.KNOWN
                  if i.basepython == best.basepython and i.name not in names]
    return names


def _tox_command():
    """The tox tools/bootstrap.sh installs (a tox 4), else one on PATH."""
    bootstrapped = os.path.join(ROOT, ".venv-tools", "bin", "tox")
    found = bootstrapped if os.path.isfile(bootstrapped) else shutil.which(
        "tox")
    if found is None:
        pytest.skip("no tox (tools/bootstrap.sh installs one in .venv-tools)")
    return [found]


def _tox(project, *args):
    # Not the tox running these tests: its TOX_* variables (TOX_WORK_DIR,
    # TOX_ENV_NAME) would configure the user's tox too.
    env = dict((name, value) for name, value in os.environ.items()
               if not name.startswith("TOX_") and name != "VIRTUAL_ENV")
    env.update(GILBENCH_SOURCE=ROOT, GILBENCH_REFINE_BUDGET="20")
    return subprocess.run(
        _tox_command() + ["-c", "tox-gilbench.ini"] + list(args),
        cwd=str(project), env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, universal_newlines=True, timeout=1800)


def _answers(report):
    """{question start: {interpreter: cell}} of the report's findings."""
    return {finding["question"].split(",")[0]: {
        answer["interpreter"]: answer for answer in finding["answers"]}
        for finding in report["findings"]}


def _assert_holds_the_gil(interpreter, cell):
    """A GIL build's efficiency for a call that holds the GIL: under 0.7,
    or noisy values whose interval still reaches under 0.7."""
    if cell["value"] < 0.7:
        return
    _assert_noisy_within_reach(interpreter, cell, under=True)


def _assert_scales(interpreter, cell):
    """An efficiency that should be near 1 (a call that releases the GIL,
    or any call on a free-threaded build): over 0.7, or noisy values whose
    interval still reaches over 0.7."""
    if cell["value"] > 0.7:
        return
    _assert_noisy_within_reach(interpreter, cell, under=False)


def _assert_noisy_within_reach(interpreter, cell, under):
    """A point on the wrong side of 0.7 only where its values were noisy
    (~) or another process was busy on a CPU (!), and its interval reaches
    the right side: never decided the wrong way (a held call's interval
    may end under 1 with its point over 0.7; that is its right way)."""
    interval = cell["interval"]
    reaches = interval is not None and (
        interval[0] < 0.7 if under else interval[1] > 0.7)
    assert reaches and (
        "~" in cell["flags"] or "!" in cell["flags"]), (interpreter, cell)


def test_an_extension_project_answers_on_every_interpreter(tmp_path):
    project = tmp_path / "fastsum"
    shutil.copytree(PROJECT, str(project))
    subprocess.check_call(
        [sys.executable, "-m", "gilbench", "init", "--tox",
         "--held", "fastsum:spin_held", "--released", "fastsum:spin_released",
         "--cffi", "fastsum:spin_cffi", "--argument", "10000"],
        cwd=str(project))
    names = _env_names()
    ran = _tox(project, "-e", ",".join(names), "--", "--quick")
    assert ran.returncode == 0, ran.stdout[-4000:]
    assert "misnamed" not in ran.stdout and " named " not in ran.stdout
    reported = _tox(project, "-e", "report")
    assert reported.returncode == 0, reported.stdout[-4000:]
    pages = project / "results" / "gilbench"
    assert sorted(os.path.basename(p) for p in glob.glob(
        str(pages / "report.*"))) == ["report.html", "report.md",
                                      "report.rst"]
    files = glob.glob(str(pages / "*.json"))  # py27.json ... pypy3.json
    assert sorted(os.path.basename(f)[:-5] for f in files) == sorted(names)
    for path in files:
        with open(path) as stream:
            missing = json.loads(json.load(stream)["metadata"].get(
                "gilbench_missing", "[]"))
        failed = [m for m in missing if not m["reason"].startswith("n/a")]
        assert failed == [], path

    as_json = subprocess.run(
        [sys.executable, "-m", "gilbench", "report", str(pages), "--format",
         "json"], stdout=subprocess.PIPE, universal_newlines=True, check=True)
    answers = _answers(json.loads(as_json.stdout))
    held = answers["fastsum with the GIL held"]
    released = answers["fastsum with the GIL released"]
    assert len(held) == len(names), sorted(held)
    for interpreter, cell in held.items():
        assert cell["reason"] is None, (interpreter, cell)
        assert released[interpreter]["reason"] is None, interpreter
        gil_off = interpreter.endswith("t")  # not "t (GIL on)"
        if gil_off:
            _assert_scales(interpreter, cell)
        else:
            _assert_holds_the_gil(interpreter, cell)
        _assert_scales(interpreter, released[interpreter])


def _report(pages):
    as_json = subprocess.run(
        [sys.executable, "-m", "gilbench", "report", str(pages), "--format",
         "json"], stdout=subprocess.PIPE, universal_newlines=True, check=True)
    return json.loads(as_json.stdout)


def _missing(path):
    with open(path) as stream:
        return json.loads(json.load(stream)["metadata"].get(
            "gilbench_missing", "[]"))


def test_a_project_with_current_metadata_builds_as_it_says_everywhere(
        tmp_path):
    project = tmp_path / "intpack"
    shutil.copytree(MODERN_PROJECT, str(project))
    subprocess.check_call(
        [sys.executable, "-m", "gilbench", "init", "--tox",
         "--held", "intpack:pack", "--released", "intpack:pack_nogil"],
        cwd=str(project))
    cases = project / "bench" / "gilbench_cases.py"
    # As the file says: an argument of about 1 to 10 microseconds' work.
    cases.write_text(re.sub(r"(?m)^ARGUMENT = .*$",
                            "ARGUMENT = list(range(1000, 1300))",
                            cases.read_text()))
    names = _env_names()
    ran = _tox(project, "-e", ",".join(names), "--", "--quick")
    assert ran.returncode == 0, ran.stdout[-4000:]
    pages = project / "results" / "gilbench"
    unbuildable = []
    for name in names:
        missing = _missing(str(pages / (name + ".json")))
        assert [m for m in missing if not m["reason"].startswith("n/a")] \
            == [], name
        version = envnames.named(name).version
        if version in ((2,), (2, 7), (3, 8)):
            # setuptools >= 77 needs Python 3.9: one line, then n/a.
            said = ("gilbench: n/a: intpack's build requires setuptools >= "
                    "77, which does not install on CPython %d.%d (pip: "
                    % version)
            assert ran.stdout.count(said) == 1, ran.stdout[-4000:]
            assert [m for m in missing
                    if m["metadata"]["family"] == "intpack"
                    and m["metadata"]["call"] != "cffi"  # none named
                    and said[len("gilbench: n/a: "):] not in m["reason"]] \
                == [], name
            unbuildable.append(name)
    assert "Traceback" not in ran.stdout
    reported = _tox(project, "-e", "report")
    assert reported.returncode == 0, reported.stdout[-4000:]

    report = _report(pages)
    answers = _answers(report)
    held = answers["intpack with the GIL held"]
    sharing, = [found for question, found in answers.items()
                if question.startswith("What sharing the argument costs "
                                       "intpack with the GIL held")]
    assert len(held) == len(names), sorted(held)
    for interpreter, cell in held.items():
        if cell["reason"] is not None:
            assert "setuptools >= 77" in cell["reason"], (interpreter, cell)
            continue
        assert cell["interval"] is not None, (interpreter, cell)
        assert sharing[interpreter]["reason"] is None, interpreter
        if interpreter.endswith("t"):  # free-threaded, the GIL off
            # Its own list scales; one list shared by both threads is
            # read more slowly (the items' reference counts).
            _assert_scales(interpreter, cell)
            assert sharing[interpreter]["value"] > 1.0, (
                interpreter, sharing[interpreter])
        else:
            _assert_holds_the_gil(interpreter, cell)
    assert len([c for c in held.values() if c["reason"] is None]) == (
        len(names) - len(unbuildable))


def test_an_env_named_for_another_interpreter_is_said_and_labelled(
        tmp_path):
    """A ``py313t`` env that tox resolved to this (GIL) interpreter: one
    line at the start, ``python_misnamed`` in the file, and the report's
    column labelled."""
    if envnames.this_interpreter()[2]:
        pytest.skip("this interpreter is a free-threaded build")
    output = tmp_path / "py313t.json"
    env = dict(os.environ, TOX_ENV_NAME="py313t")
    ran = subprocess.run(
        [sys.executable, "-m", "gilbench", "run", "--module",
         os.path.join(FIXTURES, "fake_cases.py"), "--case", "fake.alpha.on*",
         "-o", str(output), "-p", "1", "-n", "1", "-w", "0", "-l", "1"],
        env=env, cwd=str(tmp_path), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    warned = [line for line in ran.stderr.splitlines() if "named" in line]
    expected = ("gilbench: warning: tox env py313t and output file "
                "py313t.json named Python 3.13t, but this is CPython %d.%d "
                "(%s: " % (sys.version_info[:2] + (sys.executable,)))
    assert len(warned) == 1 and warned[0].startswith(expected), ran.stderr
    with open(str(output)) as stream:
        metadata = json.load(stream)["metadata"]
    assert metadata["python_misnamed"] == warned[0][len(
        "gilbench: warning: "):]
    shown = subprocess.run(
        [sys.executable, "-m", "gilbench", "report", str(output), "--format",
         "md"], stdout=subprocess.PIPE, universal_newlines=True, check=True)
    assert "CPython %d.%d (misnamed)" % sys.version_info[:2] in shown.stdout
