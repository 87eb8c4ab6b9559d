"""gilbench extend (more worker processes appended to a result file's
benchmarks) and gilbench refine (spent where a finding is undecided)."""
import json
import os
import re
import sys

import pyperf
import pytest
from helpers import (
    FIXTURES,
    assert_one_line_usage_error,
    findings_details,
    findings_row,
    pythons_to_test,
    run_harness,
)

CASES = os.path.join(FIXTURES, "refine_cases.py")
ONE = "refining.sum.python.python[times=1]/t1"
FIVE = "refining.sum.python.python[times=5]/t1"

pytestmark = pytest.mark.skipif(sys.version_info < (3, 9),
                                reason="refine is report side")


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """A quick run of the two-benchmark family (2 processes each)."""
    path = tmp_path_factory.mktemp("refine") / "r.json"
    done = run_harness("run", "--module", CASES, "--quick", "-q", "-o", path)
    assert done.code == 0, done
    return path


@pytest.fixture
def result(measured, tmp_path):
    copy = tmp_path / "r.json"
    copy.write_bytes(measured.read_bytes())
    return copy


def _runs(path):
    """{benchmark name: [runs with values]}."""
    suite = pyperf.BenchmarkSuite.load(str(path))
    return {bench.get_name(): [run for run in bench.get_runs() if run.values]
            for bench in suite.get_benchmarks()}


def _values(runs):
    return [run.values for run in runs]


def test_extend_appends_runs_measured_as_the_file_was(result):
    before = _runs(result)
    done = run_harness("extend", result, ONE, "-p", "3")
    assert done.code == 0, done
    after = _runs(result)
    assert len(after[ONE]) == len(before[ONE]) + 3
    assert _values(after[FIVE]) == _values(before[FIVE])
    old, new = before[ONE][0], after[ONE][-1]
    assert new.get_metadata()["loops"] == old.get_metadata()["loops"]
    assert len(new.values) == len(old.values)
    assert len(new.warmups or ()) == len(old.warmups or ())
    # Still one gilbench file: declarations stored once, pyperf reads it.
    common = json.loads(result.read_text())["metadata"]
    assert "gilbench_declarations" in common and "gilbench_run" in common
    shown = run_harness("report", result, "--format", "md")
    assert shown.code == 0 and "Five sums over one?" in shown.stdout, shown


@pytest.mark.parametrize("change, names", [
    (None, ["refining.no.such/t1"]),
    ("drop_run_key", [ONE]),
    ("elsewhere", [ONE]),
])
def test_extend_refuses_in_one_line_and_keeps_the_file(result, change,
                                                        names):
    data = json.loads(result.read_text())
    if change == "drop_run_key":
        del data["metadata"]["gilbench_run"]
    elif change == "elsewhere":
        data["metadata"]["python_executable"] = "/elsewhere/python"
    result.write_text(json.dumps(data))
    kept = result.read_bytes()
    done = run_harness("extend", result, *names)
    assert_one_line_usage_error(done)
    assert result.read_bytes() == kept


def _disturb(path, name, factor):
    """One worker process of ``name`` measured ``factor`` times faster: its
    processes disagree, and the finding reading it is undecided."""
    data = json.loads(path.read_text())
    for bench in data["benchmarks"]:
        runs = [run for run in bench["runs"] if run.get("values")]
        if bench["metadata"].get("name") == name or any(
                run["metadata"].get("name") == name for run in runs):
            runs[-1]["values"] = [v * factor for v in runs[-1]["values"]]
    path.write_text(json.dumps(data))


def test_refine_gives_an_undecided_finding_more_processes(result):
    _disturb(result, ONE, 0.05)
    shown = run_harness("report", result, "--format", "md").stdout
    assert "Q1 (refining): Five sums over one?" in shown, shown
    assert findings_row(shown, "Q1")[0].startswith("noisy"), shown
    before = _runs(result)
    done = run_harness("refine", result, "--budget", "60")
    assert done.code == 0, done
    assert "1 undecided answers more processes may decide" in done.stdout
    # Its rounds go on from the run's (which a small budget may have had).
    assert "refine: CPython 3." in done.stdout and re.search(
        r"round \d+: ", done.stdout), done
    after = _runs(result)
    # The disturbed one; its twin only while the answer stays undecided.
    assert len(after[ONE]) >= len(before[ONE]) + 2
    assert len(after[FIVE]) >= len(before[FIVE])
    shown = run_harness("report", result, "--format", "md").stdout
    assert "+" in findings_row(shown, "Q1")[0], shown
    details = findings_details(shown, "Q1")
    assert "processes)" in details, details


def test_refine_within_no_budget_measures_nothing(result):
    _disturb(result, ONE, 0.05)
    kept = result.read_bytes()
    done = run_harness("refine", result, "--budget", "0")
    assert done.code == 0, done
    assert "0 of 1 answers decided, 1 still undecided; 0 of 1 files " \
        "extended" in done.stdout, done
    assert result.read_bytes() == kept


def test_refine_leaves_a_file_whose_rounds_finished_alone(tmp_path):
    path = tmp_path / "r.json"
    done = run_harness("run", "--module", CASES, "--quick", "-q", "-o", path,
                       "--budget", "60")
    assert done.code == 0, done
    if "every answer narrow or decided" not in done.stdout:
        pytest.skip("the run's rounds did not finish here (a busy "
                    "machine): %s" % done.stdout.splitlines()[-3:])
    kept = path.read_bytes()
    done = run_harness("refine", path)
    assert done.code == 0, done
    assert "0 undecided answers" in done.stdout, done
    assert "every answer narrow or decided" in done.stdout, done
    assert path.read_bytes() == kept


def test_refine_refuses_a_negative_budget(result):
    assert_one_line_usage_error(run_harness("refine", result, "--budget",
                                            "-1"))


@pytest.mark.parametrize("python", pythons_to_test())
def test_refine_extends_with_the_interpreter_that_made_the_file(python,
                                                                 tmp_path):
    """The worker side (2.7, PyPy, free-threaded) measures the new
    processes; the report side (this interpreter) decides which."""
    path = tmp_path / "r.json"
    done = run_harness("run", "--module", CASES, "--quick", "-q", "-o", path,
                       python=python)
    assert done.code == 0, done
    _disturb(path, ONE, 0.05)
    before = _runs(path)
    done = run_harness("refine", path, "--budget", "60")
    assert done.code == 0 and re.search(r"round \d+: ", done.stdout), done
    after = _runs(path)
    assert len(after[ONE]) >= len(before[ONE]) + 2
    assert python == sys.executable or (
        after[ONE][-1].get_metadata()["python_executable"] == python)
