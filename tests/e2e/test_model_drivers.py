"""The processes and custom drivers and --pin-threads, end to end through
``python -m gilbench run`` on tests/fixtures/model_cases.py."""
import json
import os

import model_cases
import psutil
import pyperf
import pytest
from helpers import MINIMAL_PYPERF, run_harness

from gilbench.measure import pinning

MODEL = os.path.join("tests", "fixtures", "model_cases.py")
SHORT_TIMEOUT = 8


def run_model(output, *args, **kwargs):
    return run_harness("run", "--module", MODEL, "-o", output,
                       "--timeout", SHORT_TIMEOUT, *args, **kwargs)


def missing_of(output):
    suite = pyperf.BenchmarkSuite.load(str(output))
    meta = suite.get_benchmarks()[0].get_metadata()
    return {e["name"]: e for e in json.loads(meta.get("gilbench_missing",
                                                      "[]"))}


def descendants_named(marker):
    """Processes still alive whose command line holds ``marker``."""
    alive = []
    for process in psutil.process_iter(["cmdline"]):
        try:
            if marker in " ".join(process.info["cmdline"] or ()):
                alive.append(process)
        except psutil.Error:
            pass
    return alive


def windows(path):
    rows = [line.split() for line in path.read_text().splitlines()]
    return [(float(start), float(end), int(pid), int(index))
            for start, end, pid, index in rows]


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_every_process_is_started_before_the_clock(tmp_path, monkeypatch,
                                                   start_method):
    """All N timed windows of one value overlap: no worker was still being
    created (or importing) while the others ran."""
    log = tmp_path / "windows.txt"
    monkeypatch.setenv(model_cases.WINDOW_FILE_ENV, str(log))
    monkeypatch.setenv("GILBENCH_START_METHOD", start_method)
    output = tmp_path / "out.json"
    result = run_model(output, "--case", "model.window*", "--param",
                       "processes=3", "-p", "1", "-n", "3", "-w", "0",
                       "-l", "1")
    assert result.code == 0, result
    rows = windows(log)
    assert len(rows) == 9  # 3 values x 3 processes
    assert len(set(row[2] for row in rows)) == 3  # reused across values
    for value in range(3):
        group = rows[value * 3:(value + 1) * 3]
        assert len(set(row[2] for row in group)) == 3
        assert sorted(row[3] for row in group) == [0, 1, 2]  # worker_index
        latest_start = max(row[0] for row in group)
        earliest_end = min(row[1] for row in group)
        assert latest_start < earliest_end, group
    (bench,) = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()
    meta = bench.get_metadata()
    assert meta["processes"] == 3 and meta["driver"] == "processes"
    # A value is the wall time of the overlapping windows (>= 100 ms each).
    assert 0.1 <= bench.mean() < 0.6
    for run in bench.get_runs():
        assert run.get_metadata()["cpu_utilisation"] > 0.5


def test_dying_and_hanging_worker_processes_fail_and_leave_no_orphan(
        tmp_path):
    output = tmp_path / "out.json"
    result = run_model(output, "--case", "model.dies*", "--case",
                       "model.stuck*", "--case", "model.grid*", "--param",
                       "processes=2", "--param", "threads=1", "--quick",
                       *MINIMAL_PYPERF)
    assert result.code == 1, result
    missing = missing_of(output)
    died = missing["model.dies.v.python/p2"]["reason"]
    assert died.startswith("failed: ") and "SIGSEGV" in died, died
    assert missing["model.stuck.v.python/p2"]["reason"] == (
        "hung: killed after %d s" % SHORT_TIMEOUT)
    assert missing["model.stuck.v.python/p2"]["metadata"]["processes"] == 2
    assert descendants_named(MODEL) == []


def test_custom_case_records_per_run_metadata(tmp_path):
    output = tmp_path / "out.json"
    result = run_model(output, "--case", "model.meta*", "--param",
                       "size=1,3", "-p", "1", "-n", "2", "-w", "0", "-l",
                       "5")
    assert result.code == 0, result
    by_size = {b.get_metadata()["size"]: b for b in
               pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()}
    assert sorted(by_size) == [1, 3]
    for size, bench in by_size.items():
        (run,) = [r for r in bench.get_runs() if r.values]
        meta = run.get_metadata()
        assert meta[model_cases.RECORDED_KEY] == 5 * size
        assert meta["cpu_utilisation"] > 0
        assert bench.get_metadata()["value_means"].startswith("wall seconds")


@pytest.mark.parametrize("variant, pids, start_method", [
    ("threads", 1, None), ("processes", 3, "fork"),
    ("processes", 3, "spawn")])
def test_after_value_gets_every_workers_return(tmp_path, monkeypatch,
                                               variant, pids, start_method):
    if start_method:
        monkeypatch.setenv("GILBENCH_START_METHOD", start_method)
    output = tmp_path / "out.json"
    count = "%s=3" % variant
    result = run_model(output, "--case", "model.tally.%s*" % variant,
                       "--param", count, "-p", "1", "-n", "2", "-w", "0",
                       "-l", "7")
    assert result.code == 0, result
    (bench,) = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()
    (run,) = [r for r in bench.get_runs() if r.values]
    meta = run.get_metadata()
    assert meta["tally_indexes"] == "0,1,2"  # worker order
    assert meta["tally_pids"] == pids
    assert meta["tally_loops"] == 3 * 7
    assert meta["tally_wall_ok"] == 1


def test_excluded_combination_is_recorded_with_its_metadata(tmp_path):
    output = tmp_path / "out.json"
    result = run_model(output, "--case", "model.grid*", "--param",
                       "threads=1", *MINIMAL_PYPERF)
    assert result.code == 0, result
    missing = missing_of(output)
    (entry,) = missing.values()
    assert entry["reason"] == "n/a: " + model_cases.EXCLUDED_REASON
    assert (entry["metadata"]["kind"], entry["metadata"]["hold_ms"]) == (
        "spin", 0.5)
    assert "3 of 4 benchmarks written" in result.stdout, result


def test_pin_threads_records_each_threads_cpu(tmp_path):
    output = tmp_path / "out.json"
    result = run_model(output, "--case", "model.grid*", "--param",
                       "threads=3", "--param", "kind=mutex", "--param",
                       "hold_ms=2.0", "--pin-threads", *MINIMAL_PYPERF)
    assert result.code == 0, result
    (bench,) = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()
    cpus = pinning.by_core(sorted(psutil.Process().cpu_affinity()))
    expected = ",".join(str(cpus[i % len(cpus)]) for i in range(3))
    cores = ",".join("%d:%d" % pinning.core_of(cpus[i % len(cpus)])
                     for i in range(3))
    for run in bench.get_runs():
        assert run.get_metadata()["pinned_cpus"] == expected
        assert run.get_metadata()["pinned_cores"] == cores


def test_run_prints_where_the_time_went(tmp_path):
    output = tmp_path / "out.json"
    result = run_model(output, "--case", "model.meta*", "--quick",
                       *MINIMAL_PYPERF)
    assert result.code == 0, result
    (line,) = [text for text in result.stdout.splitlines()
               if text.startswith("run took")]
    assert "in measured values" in line and "outside them" in line


def test_custom_case_may_report_its_own_cpu(tmp_path):
    module = tmp_path / "own_cpu_cases.py"
    module.write_text(
        "import time\n"
        "from gilbench.api import CUSTOM, CaseSpec\n"
        "def prepare(params):\n"
        "    def time_it(loops):\n"
        "        time.sleep(0.05)  # untimed set-up, no CPU\n"
        "        return 0.01 * loops, 0.015 * loops\n"
        "    return time_it\n"
        "CASES = [CaseSpec('own', 'cpu', 'v', 'python', prepare, 'd',\n"
        "                  driver=CUSTOM, value_means='made up')]\n")
    output = tmp_path / "out.json"
    result = run_harness("run", "--module", module, "-o", output,
                         *MINIMAL_PYPERF)
    assert result.code == 0, result
    (bench,) = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()
    (run,) = [r for r in bench.get_runs() if r.values]
    assert run.get_metadata()["cpu_utilisation"] == pytest.approx(1.5)


def test_case_sizing_applies_unless_the_user_sizes_the_run(tmp_path):
    module = tmp_path / "sized_cases.py"
    module.write_text(
        "from gilbench.api import CUSTOM, CaseSpec\n"
        "def prepare(params):\n"
        "    return lambda loops: 0.001 * loops\n"
        "CASES = [CaseSpec('sized', 'c', 'v', 'python', prepare, 'd',\n"
        "                  driver=CUSTOM, value_means='made up',\n"
        "                  sizing=['-p', '1', '-n', '2', '-w', '0',\n"
        "                          '-l', '1'])]\n")
    output = tmp_path / "out.json"
    result = run_harness("run", "--module", module, "-o", output,
                         "--design", "fixed")
    assert result.code == 0, result
    (bench,) = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()
    assert [len(r.values) for r in bench.get_runs() if r.values] == [2]
    # The adaptive design keeps how long its values are (one loop), and
    # sizes its repetitions itself (a first look of two processes).
    result = run_harness("run", "--module", module, "-o", output,
                         "--budget", "1")
    assert result.code == 0, result
    (bench,) = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()
    measured = [r for r in bench.get_runs() if r.values]
    assert len(measured) >= 2
    assert {r.get_metadata()["loops"] for r in measured} == {1}
    result = run_harness("run", "--module", module, "-o", output,
                         *MINIMAL_PYPERF)
    assert result.code == 0, result
    (bench,) = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()
    assert [len(r.values) for r in bench.get_runs() if r.values] == [1]
