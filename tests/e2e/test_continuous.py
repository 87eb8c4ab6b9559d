"""The pull request check ``gilbench init --ci`` writes, run here as its
workflow runs it: a user's project (fastsum, its package at the
repository root) at two commits, the command its tox env runs with the
measure step's GILBENCH_* values (``gilbench continuous BASE HEAD``),
then the check job's ``gilbench compare --sides``.  The commands are read
from the files ``init`` wrote, not written here.

A head whose released function holds the GIL fails the check, naming the
answer; two identical commits pass it (bench/continuous_aa.py repeats
that).  Each measurement takes about half a minute.
"""
import configparser
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest
from helpers import ROOT

from gilbench.measure import foreign
from gilbench.model import machine

if sys.version_info < (3, 9):
    pytest.skip("the check's compare is the report side's (Python >= 3.9)",
                allow_module_level=True)

yaml = pytest.importorskip("yaml")

FASTSUM = os.path.join(ROOT, "tests", "fixtures", "fastsum_project")
ENV = "py311"  # the matrix entry whose commands run here
HOG = "import time\nend = time.time() + 600\nwhile time.time() < end: pass\n"
RELEASED = "fastsum with the GIL released, at 2 threads: efficiency " \
    "against the ceiling?"


def _git(root, *args):
    return subprocess.run(
        ["git", "-C", str(root), "-c", "user.email=ci@example.org",
         "-c", "user.name=ci"] + list(args), check=True,
        stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """fastsum with init --ci's files, committed as the base, then a head
    whose spin_released holds the GIL: (root, base commit)."""
    if shutil.which("git") is None:
        pytest.skip("no git here")
    root = tmp_path_factory.mktemp("pull-request") / "fastsum"
    shutil.copytree(FASTSUM, str(root))
    done = subprocess.run(
        [sys.executable, "-m", "gilbench", "init", "--ci",
         "--gilbench-source", "acme/gilbench@v1",
         "--held", "fastsum._core:spin_held",
         "--released", "fastsum._core:spin_released", "--argument", "20000"],
        cwd=str(root), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True)
    assert done.returncode == 0, done.stderr
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    base = _git(root, "rev-parse", "HEAD")
    core = root / "fastsum" / "_core.pyx"
    text = core.read_text()
    held = text.replace("    cdef unsigned long result\n    with nogil:\n"
                        "        result = fastsum_spin(12345, n)\n"
                        "    return result",
                        "    return fastsum_spin(12345, n)")
    assert held != text
    core.write_text(held)
    _git(root, "commit", "-q", "-am", "spin_released holds the GIL")
    return root, base


def check_commands(root, base, head):
    """[the measure job's command, the check job's command], as argv
    lists, from the workflow and the tox file init wrote."""
    with open(str(root / ".github" / "workflows" / "gilbench.yml")) as f:
        jobs = yaml.safe_load(f)["jobs"]
    step, = [s for s in jobs["measure"]["steps"]
             if s.get("name") == "Measure the base and the head in one run"]
    assert step["run"] == 'tox -c tox-gilbench.ini -e "${{ matrix.env }}"'
    values = {name: value.replace(
        "${{ github.event.pull_request.base.sha }}", base).replace(
        "${{ matrix.env }}", ENV) for name, value in step["env"].items()}
    # What the PR's measure step runs is the env's command.
    values["GILBENCH_COMMAND"] = values["GILBENCH_COMMAND"].replace(
        " HEAD", " " + head)
    ini = configparser.ConfigParser(interpolation=None)
    ini.read(str(root / "tox-gilbench.ini"))
    line = ini["testenv"]["commands"].strip().replace("{envname}", ENV)
    line = re.sub(r"\{env:(\w+):([^{}]*)\}",
                  lambda m: values.get(m.group(1), m.group(2)), line)
    measure = shlex.split(line.replace("{posargs}", ""))
    compare, = [s["run"] for s in jobs["check"]["steps"]
                if s.get("name") == "What the pull request changed"]
    return measure, shlex.split(compare)


def run_check(root, base, head, hogs=0):
    """The check's two commands from the project's root, with ``hogs``
    processes spinning beside its measure step; the compare's
    CompletedProcess and the summary it wrote."""
    results = root / "results" / "gilbench"
    shutil.rmtree(str(results), ignore_errors=True)
    (results / "pr").mkdir(parents=True)
    measure, compare = check_commands(root, base, head)
    assert measure[:2] == ["gilbench", "continuous"], measure
    spinning = [subprocess.Popen([sys.executable, "-c", HOG])
                for _ in range(hogs)]
    try:
        done = subprocess.run(
            [sys.executable, "-m"] + measure, cwd=str(root),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            universal_newlines=True, timeout=900)
    finally:
        for hog in spinning:
            hog.kill()
            hog.wait()
    assert done.returncode == 0, done.stdout + done.stderr
    # The artifacts the check job downloads.
    result = results / ("pr-%s.json" % ENV)
    result.rename(results / "pr" / result.name)
    checked = subprocess.run([sys.executable, "-m"] + compare, cwd=str(root),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True, timeout=300)
    return checked, (results / "pr" / "summary.md").read_text()


def test_a_head_that_holds_the_gil_fails_the_check_naming_it(project):
    root, base = project
    checked, summary = run_check(root, base, "HEAD")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    lines = checked.stderr.splitlines()
    assert lines[0].startswith("gilbench: ") and "scale worse beyond " \
        "their margin" in lines[0], checked.stderr
    named = [line for line in lines if RELEASED in line]
    assert named and "[CPython 3.11]" in named[0], checked.stderr
    assert "## Changed answers" in summary
    assert RELEASED in summary


def test_two_identical_commits_pass_the_check(project):
    root, base = project
    checked, summary = run_check(root, base, base)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "scale worse" not in checked.stderr
    assert "# gilbench compare" in summary


@pytest.mark.skipif(foreign.busy_seconds([0]) is None,
                    reason="no /proc/stat: a busy machine is not seen")
def test_a_check_measured_on_a_busy_machine_cannot_tell(project):
    """Beside a process spinning on each CPU the ceiling cannot rise
    either, so a head that holds the GIL reads as the base does: the
    check says it cannot tell (exit 3) instead of passing it."""
    root, base = project
    checked, summary = run_check(root, base, "HEAD",
                                 hogs=len(machine.affinity()))
    assert checked.returncode == 3, checked.stdout + checked.stderr
    lines = checked.stderr.splitlines()
    assert lines[0].startswith("gilbench: cannot tell") and \
        "busy" in lines[0], checked.stderr
    assert any(RELEASED in line and "[CPython 3.11]" in line
               for line in lines[1:]), checked.stderr
    assert "## Answers the check cannot tell" in summary
