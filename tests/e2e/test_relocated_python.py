"""CPython 3.14/3.15 from Debian unstable's binaries, relocated by
tools/provide_debian_python.sh: what goes wrong at set-up is one line and
a skip (exit 1), never a half-installed prefix; a prefix that no longer
imports is replaced; and processes started from ``sys.executable``
(spawn and forkserver pools, fresh workers) run from the relocated
interpreter.

The set-up checks need root, apt-get, patchelf and Debian's package
registry (tools/test.sh's bootstrap provides them on this project's
machines); the process checks run on each 3.14+ interpreter that
GILBENCH_TEST_PYTHONS names (.ci/run names the smoke's py314 and py315).
"""
import glob
import json
import os
import shutil
import subprocess

import pyperf
import pytest
from helpers import FIXTURES, ROOT, pythons_to_test, run_module

SCRIPT = os.path.join(ROOT, "tools", "provide_debian_python.sh")
pytestmark = pytest.mark.e2e

can_provide = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("apt-get")
    or not shutil.which("patchelf"),
    reason="providing needs root, apt-get and patchelf (tools/bootstrap.sh "
    "installs patchelf)")


def provide(version, dest, **env):
    return subprocess.run(
        ["bash", SCRIPT, version, str(dest)], capture_output=True,
        text=True, timeout=300,
        env=dict(os.environ, GILBENCH_DEBIAN_LOG=str(dest / "log"), **env))


def prefixes(dest):
    return glob.glob(str(dest / "*-debian"))


@can_provide
@pytest.mark.parametrize("env, why", [
    ({"GILBENCH_DEBIAN_MIRROR": "http://127.0.0.1:9/debian"},
     "could not fetch"),
    ({"GILBENCH_DEBIAN_SUITE": "no-such-suite"}, "could not fetch"),
])
def test_no_network_or_no_suite_is_one_line_and_nothing_installed(
        tmp_path, env, why):
    done = provide("3.14", tmp_path, **env)
    assert done.returncode == 1
    line, = done.stderr.splitlines()
    assert line.startswith("gilbench: python3.14 skipped: " + why), line
    assert "add one with: pyenv install 3.14" in line
    assert prefixes(tmp_path) == []


@can_provide
def test_a_missing_package_is_one_line(tmp_path):
    done = provide("3.99", tmp_path)
    assert done.returncode == 1
    line, = done.stderr.splitlines()
    assert line.startswith("gilbench: python3.99 skipped: could not fetch")
    assert prefixes(tmp_path) == []


@can_provide
def test_provided_once_then_checked_and_a_broken_prefix_replaced(tmp_path):
    first = provide("3.14", tmp_path)
    assert first.returncode == 0, first.stderr
    prefix, = prefixes(tmp_path)
    python = os.path.join(prefix, "bin", "python3.14")
    said = subprocess.run(
        [python, "-c", "import sys, ssl, sqlite3, concurrent.futures as f; "
         "print(sys.prefix, hasattr(f, 'InterpreterPoolExecutor'))"],
        capture_output=True, text=True, check=True).stdout.split()
    assert said == [os.path.join(prefix, "usr"), "True"]
    with open(os.path.join(prefix, "usr", "gilbench-origin.json")) as f:
        assert "Debian unstable package python3.14" in json.load(f)["origin"]

    again = provide("3.14", tmp_path)
    assert again.returncode == 0
    assert again.stderr.splitlines() == [
        "gilbench: python3.14 present: %s (nothing fetched)" % prefix]

    for lib in glob.glob(os.path.join(prefix, "usr", "lib",
                                      "x86_64-linux-gnu", "libssl.so.*")):
        os.unlink(lib)
    repaired = provide("3.14", tmp_path)
    assert repaired.returncode == 0, repaired.stderr
    first_line, last_line = repaired.stderr.splitlines()
    assert "does not start or import" in first_line
    assert last_line.startswith("gilbench: provided python3.14")
    subprocess.run([python, "-c", "import ssl"], check=True)


def relocated_pythons():
    """The 3.14+ interpreters GILBENCH_TEST_PYTHONS names (tox envs with
    gilbench installed)."""
    found = []
    for python in pythons_to_test():
        version = subprocess.run(
            [python, "-c", "import sys; print(sys.version_info >= (3, 14))"],
            capture_output=True, text=True).stdout.strip()
        if version == "True":
            found.append(python)
    return found


RELOCATED = relocated_pythons()


@pytest.mark.skipif(not RELOCATED, reason="no 3.14+ interpreter named in "
                    "GILBENCH_TEST_PYTHONS (.ci/run names py314 and py315)")
@pytest.mark.parametrize("python", RELOCATED)
def test_processes_from_sys_executable_run(python, tmp_path):
    output = tmp_path / "spawned.json"
    done = run_module("gilbench", [
        "run", "--case", "executor.*", "--param",
        "method=process-spawn,process-forkserver", "--param", "workers=2",
        "--param", "workload=trivial", "--param", "payload=none",
        "--param", "phase=warm,cold", "--param", "task_ms=1",
        "-p", "1", "-n", "1", "-w", "0", "-l", "1", "-o", str(output)],
        python=python, timeout=300)
    assert done.code == 0, done.stderr
    assert ", 0 failed" in done.stdout + done.stderr
    measured = [bench for bench in pyperf.BenchmarkSuite.load(
        str(output)).get_benchmarks() if bench.get_nvalue()]
    assert {bench.get_metadata()["method"] for bench in measured} == {
        "process-spawn", "process-forkserver"}

    fresh = tmp_path / "fresh.json"
    done = run_module("gilbench", [
        "run", "--module", os.path.join(FIXTURES, "model_cases.py"),
        "--case", "model.window*", "--param", "processes=1,2",
        "--fresh-workers", "-p", "2", "-n", "1", "-w", "0", "-l", "1",
        "-o", str(fresh)], python=python, timeout=300)
    assert done.code == 0, done.stderr
    starts = {run.get_metadata().get("worker_start")
              for bench in pyperf.BenchmarkSuite.load(
                  str(fresh)).get_benchmarks()
              for run in bench.get_runs() if run.values}
    assert starts == {"fresh interpreter"}
