"""A busy machine is seen: each run records the share of its CPUs other
processes took while its values were measured (``foreign_cpu``,
gilbench.measure.foreign), a busy benchmark is measured again at the end
of the run (gilbench.runner.remeasure), and the report flags one still
busy."""
import os
import subprocess
import sys

import pyperf
import pytest
from helpers import FIXTURES, run_harness

from gilbench.measure import foreign
from gilbench.model import machine, resultformat

CASES = os.path.join(FIXTURES, "worker_start_cases.py")
HOG = "import time\nend = time.time() + 120\nwhile time.time() < end: pass\n"

needs_proc_stat = pytest.mark.skipif(
    foreign.busy_seconds([0]) is None, reason="no /proc/stat")


@needs_proc_stat
def test_the_busy_time_of_the_cpus_grows_with_work():
    cpus = machine.affinity()
    clock = foreign.ForeignClock(cpus)
    before = foreign.busy_seconds(cpus)
    total = 0
    for i in range(3000000):
        total += i
    assert foreign.busy_seconds(cpus) > before
    others, capacity = clock.window()
    # Our own work is ours: what is left is someone else's, near nothing
    # or more, never the whole machine.
    assert others < capacity


def test_a_share_is_told_only_over_windows_long_enough():
    assert foreign.share([(0.05, 0.1)]) is None
    assert foreign.share([(0.05, 0.1), (0.05, 0.1)]) == pytest.approx(0.5)
    assert foreign.share([(-0.01, 0.1), (0.0, 0.1)]) == 0.0


@needs_proc_stat
def test_a_cpu_hog_beside_a_run_is_recorded_and_flagged(tmp_path):
    hogs = [subprocess.Popen([sys.executable, "-c", HOG])
            for _ in machine.affinity()]
    try:
        output = tmp_path / "busy.json"
        made = run_harness("run", "-o", output, "--module", CASES,
                           "--case", "workerstart.identify.*", "--threads",
                           "1", "-p", "2", "-n", "3", "-w", "0",
                           "--min-time", "0.1")
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert made.code == 0, made
    # Measured again at the end, beside the same hogs: still busy.
    assert "measuring 1 benchmark(s) again" in made.stderr, made
    bench, = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()
    shares = [run.get_metadata()["foreign_cpu"] for run in bench.get_runs()
              if run.values]
    assert len(shares) == 2 and min(shares) > 0.2, shares
    if sys.version_info >= (3, 9):
        from gilbench.report.data import loader
        from gilbench.report.numbers import cells
        record, = loader.load_results([str(output)])[0].records
        assert record.busy
        assert cells.BUSY_MARK in cells.flags(record)


@needs_proc_stat
def test_a_busy_benchmark_is_measured_again_and_the_quiet_one_kept(
        tmp_path, monkeypatch):
    monkeypatch.setenv("GILBENCH_TEST_HOG_MARKER", str(tmp_path / "hog"))
    output = tmp_path / "again.json"
    made = run_harness("run", "-o", output, "--module",
                       os.path.join(FIXTURES, "busy_cases.py"),
                       "--threads", "1", "-p", "2", "-n", "3", "-w", "0",
                       "--min-time", "0.05")
    assert made.code == 0, made
    assert "measuring 1 benchmark(s) again" in made.stderr, made
    bench, = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()
    # The loops were sized beside the hog, so a quiet run's values can be
    # too short for their own share: the runs tell it together, as the
    # re-measurement and the report read it.
    share = resultformat.busiest_share(
        run.get_metadata() for run in bench.get_runs() if run.values)
    # Below the hog's one CPU of two, with room for the host's steal
    # (docs/reading.rst, "A busy machine").
    assert share is not None and share < 0.4, share
