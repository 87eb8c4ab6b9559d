"""Unbuilt extensions: the native GIL cases are "n/a: ... not built", the
pure-Python ones still run, and the report says why a cell is empty.

The project's Python sources are copied, laid out as an install lays them
out, without any built module, so the extension imports fail exactly as on
a machine where setup.py never built them.
Python runs with -S: an editable install's import hook (a .pth file) would
otherwise find the built modules of the real tree; site-packages is put on
PYTHONPATH instead so pyperf and psutil still import.
"""
import json
import os
import subprocess
import sys
import sysconfig

import pytest
from helpers import unbuilt_package


@pytest.fixture(scope="module")
def unbuilt_tree(tmp_path_factory):
    return unbuilt_package(tmp_path_factory.mktemp("unbuilt"))


def harness(tree, *args):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(tree), sysconfig.get_paths()["purelib"],
         sysconfig.get_paths()["platlib"]])
    process = subprocess.run(
        [sys.executable, "-S", "-m", "gilbench"] + list(args), cwd=str(tree),
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True, timeout=300)
    return process


def test_list_marks_native_cases_not_built(unbuilt_tree):
    process = harness(unbuilt_tree, "list")
    assert process.returncode == 0, process.stderr
    lines = {line.split()[0]: line for line in process.stdout.splitlines()}
    assert "n/a: gilbench.extensions._gil_cy not built" in lines[
        "gil.trivial.nogil.cython"]
    assert "n/a: gilbench.extensions._gil_cffi not built" in lines[
        "gil.lock.nogil.cffi"]
    assert " ok " in lines["gil.trivial.gil.python"]


def test_run_records_na_and_runs_pure_python(unbuilt_tree):
    out = unbuilt_tree / "out.json"
    process = harness(unbuilt_tree, "run", "--case", "gil.*", "--threads", "1",
                      "-o", str(out),
                      "-p", "1", "-n", "1", "-w", "0", "--min-time", "0.001")
    assert process.returncode == 0, process.stderr
    suite = json.loads(out.read_text())
    names = [b["metadata"].get("name") or b["runs"][0]["metadata"]["name"]
             for b in suite["benchmarks"]]
    assert sorted(names) == ["gil.lock.gil.python/t1",
                             "gil.trivial.gil.python/t1"]
    missing = {entry["name"]: entry["reason"] for entry in
               json.loads(suite["metadata"]["gilbench_missing"])}
    assert sorted(missing) == sorted(
        "gil.%s.%s/t1" % (case, vb) for case in ("trivial", "lock")
        for vb in ("gil.cython", "nogil.cython", "nogil.cffi"))
    assert all(reason.startswith("n/a: gilbench.extensions._gil_")
               and "not built" in reason for reason in missing.values())

    report = harness(unbuilt_tree, "report", str(out), "--format", "md")
    assert report.returncode == 0, report.stderr
    assert "n/a: gilbench.extensions.\\_gil\\_cy not built" in report.stdout
