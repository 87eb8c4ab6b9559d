"""A case that raises, crashes or hangs costs only its own result.

One module-scoped run of tests/fixtures/crashing_cases.py (good, raises,
SIGSEGV, hangs, unavailable) with a short --timeout for the hanging one.
"""
import json
import os

import broken_prepare_cases as broken
import crashing_cases as crash
import pyperf
import pytest
from helpers import MINIMAL_PYPERF, run_harness

CRASHING = os.path.join("tests", "fixtures", "crashing_cases.py")
BROKEN = os.path.join("tests", "fixtures", "broken_prepare_cases.py")
HANG_TIMEOUT = 10  # seconds; the good benchmark needs well under 1 s
ORIGINAL = b'{"keep": "me"}\n'


def run_cases(module, output, *extra, **kwargs):
    return run_harness("run", "--module", module, "--threads", "1",
                       "--timeout", HANG_TIMEOUT, "-o", output,
                       *(MINIMAL_PYPERF + list(extra)), **kwargs)


@pytest.fixture(scope="module")
def crashing_run(tmp_path_factory):
    output = tmp_path_factory.mktemp("isolation") / "out.json"
    output.write_bytes(ORIGINAL)  # replaced: the run wrote something
    return run_cases(CRASHING, output), output


@pytest.fixture(scope="module")
def missing(crashing_run):
    result, output = crashing_run
    suite = pyperf.BenchmarkSuite.load(str(output))
    encoded = {b.get_metadata().get("gilbench_missing")
               for b in suite.get_benchmarks()}
    assert len(encoded) == 1 and None not in encoded, encoded
    return {entry["name"]: entry["reason"]
            for entry in json.loads(encoded.pop())}


def test_missing_entries_carry_their_metadata(crashing_run):
    """The report places a reason by metadata, never by parsing names."""
    _, output = crashing_run
    suite = pyperf.BenchmarkSuite.load(str(output))
    entries = json.loads(
        suite.get_benchmarks()[0].get_metadata()["gilbench_missing"])
    by_case = {e["metadata"]["case"]: e["metadata"] for e in entries}
    assert sorted(by_case) == ["absent", "crashes", "hangs", "raises"]
    for meta in by_case.values():
        assert meta["family"] == crash.FAMILY
        assert (meta["variant"], meta["backend"]) == ("v", "python")
        assert meta["threads"] == 1 and meta["driver"] == "threads"
        assert meta["gilbench_format"] == 2


def test_exit_code_is_one(crashing_run):
    result, _ = crashing_run
    assert result.code == 1, result
    assert "1 of 5 benchmarks written" in result.stdout, result
    assert "1 n/a, 3 failed" in result.stdout, result


def test_good_benchmark_is_written(crashing_run):
    result, output = crashing_run
    assert output.read_bytes() != ORIGINAL
    suite = pyperf.BenchmarkSuite.load(str(output))
    assert [b.get_name() for b in suite.get_benchmarks()] == [
        crash.GOOD + "/t1"]
    (bench,) = suite.get_benchmarks()
    assert bench.mean() > 0
    assert bench.get_metadata()["family"] == crash.FAMILY


def test_missing_lists_every_other_benchmark(missing):
    assert set(missing) == {crash.RAISES + "/t1", crash.CRASHES + "/t1",
                            crash.HANGS + "/t1", crash.ABSENT + "/t1"}


def test_raising_work_is_failed(missing):
    assert missing[crash.RAISES + "/t1"].startswith("failed: ")


def test_crashing_work_is_failed(missing):
    reason = missing[crash.CRASHES + "/t1"]
    assert reason.startswith("failed: ")
    # The signal that killed the worker is visible in the reason.
    assert "-11" in reason or "SIGSEGV" in reason, reason


def test_hanging_work_is_hung(missing):
    assert missing[crash.HANGS + "/t1"] == (
        "hung: killed after %g s" % HANG_TIMEOUT)


def test_unavailable_is_na_with_reason(missing):
    assert missing[crash.ABSENT + "/t1"] == "n/a: " + crash.UNAVAILABLE_REASON


def test_failures_are_summarised_on_stderr(crashing_run):
    result, _ = crashing_run
    summary = [line.strip() for line in result.stderr.splitlines()
               if line.startswith("  crash.")]
    assert [line.split(":")[0] for line in summary] == sorted(
        [crash.CRASHES + "/t1", crash.HANGS + "/t1", crash.RAISES + "/t1"])


def test_no_leftover_partial_file(crashing_run):
    _, output = crashing_run
    assert sorted(os.listdir(str(output.parent))) == ["out.json"]


def test_every_case_failing_leaves_output_untouched(tmp_path):
    output = tmp_path / "existing.json"
    output.write_bytes(ORIGINAL)
    result = run_cases(CRASHING, output, "--case", crash.RAISES,
                       "--case", crash.CRASHES, "--case", crash.ABSENT)
    assert result.code == 1, result
    assert "left untouched" in result.stderr, result
    assert output.read_bytes() == ORIGINAL
    assert sorted(os.listdir(str(tmp_path))) == ["existing.json"]


def test_every_case_failing_creates_no_output(tmp_path):
    output = tmp_path / "new.json"
    result = run_cases(CRASHING, output, "--case", crash.RAISES)
    assert result.code == 1, result
    assert os.listdir(str(tmp_path)) == []


def test_raising_prepare_costs_only_its_own_result(tmp_path):
    """prepare() runs in the benchmark's own child: an exception there is
    that benchmark's failure, with the exception in the reason."""
    output = tmp_path / "out.json"
    result = run_cases(BROKEN, output)
    assert result.code == 1, result
    suite = pyperf.BenchmarkSuite.load(str(output))
    assert [b.get_name() for b in suite.get_benchmarks()] == [
        broken.GOOD + "/t1"]
    meta = suite.get_benchmarks()[0].get_metadata()
    (entry,) = json.loads(meta["gilbench_missing"])
    assert entry["name"] == broken.BROKEN + "/t1"
    assert entry["reason"].startswith("failed: "), entry
    assert "RuntimeError: " + broken.PREPARE_ERROR in entry["reason"], entry


def test_failure_reason_is_the_workers_own_words(tmp_path):
    """Not pyperf's "... failed with exit code 1" wrapper: a time function
    that ignores ``loops`` cannot be calibrated, and the reason says so."""
    module = tmp_path / "ignores_loops_cases.py"
    module.write_text(
        "from gilbench.api import CUSTOM, CaseSpec\n"
        "def prepare(params):\n"
        "    return lambda loops: 1e-9\n"
        "CASES = [CaseSpec('ig', 'const', 'v', 'python', prepare, 'd',\n"
        "                  driver=CUSTOM, value_means='nothing')]\n")
    output = tmp_path / "out.json"
    result = run_harness("run", "--module", module, "-o", output,
                         "--timeout", HANG_TIMEOUT)
    assert result.code == 1, result
    (line,) = [text for text in result.stdout.splitlines()
               if text.startswith("ig.const")]
    assert "failed to calibrate the number of loops" in line, line
    assert "failed with exit code" not in line, line
