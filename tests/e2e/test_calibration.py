"""Loop calibration: done in a fork of each benchmark's pyperf master and
kept as pyperf keeps its own; and run --loops-from, reusing the counts of
an earlier result of this interpreter on this machine, refused, in one
line, from anywhere else."""
import json

import pyperf
from helpers import assert_one_line_usage_error, run_harness

# Calibrated (no -l), yet small: one process, one value of >= 1 ms, the
# fixed design's (pyperf's doubling; no rounds).
SMALL = ["--case", "gil.trivial.gil.python", "--threads", "1,2",
         "--design", "fixed", "-p", "1", "-n", "1", "-w", "0",
         "--min-time", "0.001"]


def runs(path):
    """{name: [(values, loops, is a calibration run)]}."""
    return dict((bench.get_name(), [
        (len(run.values), run.get_metadata().get("loops"),
         "calibrate_loops" in run.get_metadata())
        for run in bench.get_runs()])
        for bench in pyperf.BenchmarkSuite.load(str(path)).get_benchmarks())


def _last_at_each_count(calibration):
    """(loop count, seconds of its last call) for each count the
    calibration timed: a call that reached the minimum time by stalling
    is timed again at its count (loopcalibration.STALL_JUMP), and the
    doubling goes on from that second call."""
    return dict((count, count * value)
                for count, value in calibration.warmups).items()


def test_the_master_calibrates_by_doubling_as_pyperf_does(tmp_path):
    output = tmp_path / "out.json"
    made = run_harness("run", "-o", output, *SMALL)
    assert made.code == 0, made
    for bench in pyperf.BenchmarkSuite.load(str(output)).get_benchmarks():
        calibration, measured = bench.get_runs()
        loops = measured.get_metadata()["loops"]
        assert not calibration.values and measured.values
        assert calibration.get_metadata()["calibrate_loops"] == loops
        # Doubling counts, one timed twice where its first call stalled.
        counts = [count for count, _ in calibration.warmups]
        assert sorted(set(counts)) == [2 ** i for i in
                                       range(len(set(counts)))]
        assert counts == sorted(counts) and counts[-1] == loops
        # Only calls at the last count reached --min-time (1 ms).
        seconds = [count * value for count, value in calibration.warmups]
        assert seconds[-1] >= 0.001
        assert all(s < 0.001 for c, s in _last_at_each_count(calibration)
                   if c < loops)
        # What the case records at set-up reached the calibration run.
        assert "cpu_utilisation" in calibration.get_metadata()
        assert bench.get_metadata()["family"] == "gil"


def test_the_first_look_scales_its_loops_to_the_minimum_time(tmp_path):
    output = tmp_path / "out.json"
    made = run_harness("run", "-o", output, "--case",
                       "gil.trivial.gil.python", "--threads", "1",
                       "--budget", "0.1", "--min-time", "0.02", "-p", "1",
                       "-n", "1", "-w", "0")
    assert made.code == 0, made
    bench, = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()
    calibration = bench.get_runs()[0]
    counts = [count for count, _ in calibration.warmups]
    seconds = [count * value for count, value in calibration.warmups]
    # Doubling to a quarter of the minimum time, then scaled past it.
    doubled = [c for c in counts if c & (c - 1) == 0]
    assert counts[:len(doubled)] == doubled
    assert seconds[-1] >= 0.02
    assert counts[-1] == calibration.get_metadata()["calibrate_loops"]
    assert all(s < 0.02 for c, s in _last_at_each_count(calibration)
               if c != counts[-1])


def test_loops_are_reused_and_calibration_is_skipped(tmp_path):
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    made = run_harness("run", "-o", first, *SMALL)
    assert made.code == 0, made
    before = runs(first)
    assert all(any(calibrating for _, _, calibrating in r)
               for r in before.values())
    reused = run_harness("run", "-o", second, "--loops-from", first, *SMALL)
    assert reused.code == 0, reused
    after = runs(second)
    assert set(after) == set(before)
    for name, found in after.items():
        loops = [count for _, count, calibrating in before[name]
                 if not calibrating]
        assert found == [(1, loops[0], False)], (name, found)


def test_a_file_from_another_machine_is_not_reused(tmp_path):
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    assert run_harness("run", "-o", first, *SMALL).code == 0
    data = json.loads(first.read_text())
    data["metadata"]["hostname"] = "elsewhere"
    first.write_text(json.dumps(data))
    result = run_harness("run", "-o", second, "--loops-from", first, *SMALL)
    assert result.code == 0, result
    assert ("made elsewhere (hostname is 'elsewhere' there"
            in result.stderr), result
    assert all(any(calibrating for _, _, calibrating in r)
               for r in runs(second).values())


def test_an_unreadable_file_is_bad_input(tmp_path):
    junk = tmp_path / "junk.json"
    junk.write_text("not json")
    output = tmp_path / "out.json"
    result = run_harness("run", "-o", output, "--loops-from", junk, *SMALL)
    assert_one_line_usage_error(result)
    assert "--loops-from" in result.stderr and not output.exists()
