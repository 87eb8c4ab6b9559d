"""pyperf's workers as forks of the benchmark program (the default) or as
fresh interpreters (--fresh-workers): each run says which, each worker is
a process of its own (a fork shares its program's memory layout unless
GILBENCH_WORKER_LAYOUT=renew: gilbench.measure.layout), and only fresh
interpreters draw hash seeds of their own.  In a first look the fork
that calibrated the loops measures on as the first worker; where the
other workers are not plain forks, it does not."""
import os

import pyperf
import pytest
from helpers import FIXTURES, run_harness

from gilbench.measure import forking

CASES = os.path.join(FIXTURES, "worker_start_cases.py")
# Three processes of one value each, calibrated in the master's fork
# (a first look: the adaptive design, told its sizing).
SMALL = ["--module", CASES, "--threads", "1", "-p", "3", "-n", "1", "-w", "0",
         "--min-time", "0.001"]


def measured_runs(tmp_path, *options, case="workerstart.identify.*"):
    output = tmp_path / "out.json"
    made = run_harness("run", "-o", output, "--case", case,
                       *(SMALL + list(options)))
    assert made.code == 0, made
    bench, = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()
    return [run.get_metadata() for run in bench.get_runs() if run.values]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork")
def test_workers_are_forks_sharing_the_programs_hash_seed(tmp_path):
    runs = measured_runs(tmp_path)
    assert [run["worker_start"] for run in runs] == [
        "calibration fork", "fork", "fork"]
    assert len(set(run["measured_by"] for run in runs)) == 3
    assert len(set(run["seeded_hash"] for run in runs)) == 1


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork")
def test_the_calibration_fork_measures_on_with_its_set_up(tmp_path):
    output = tmp_path / "out.json"
    made = run_harness("run", "-o", output, "--case",
                       "workerstart.identify.*", *SMALL)
    assert made.code == 0, made
    bench, = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()
    calibration, first, second, third = bench.get_runs()
    calibrated = calibration.get_metadata()
    assert not calibration.values and first.values
    # One process: what its set-up recorded (its pid, the CPUs it saw)
    # is in both runs, and it measured at the loops it found.
    for key in ("measured_by", "cpus_usable", "cpu_affinity_effective"):
        assert first.get_metadata()[key] == calibrated[key], key
    assert first.get_metadata()["loops"] == calibrated["calibrate_loops"]
    assert second.get_metadata()["measured_by"] != calibrated["measured_by"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork")
@pytest.mark.parametrize("options, renew, starts", [
    (["--design", "fixed"], False, ["fork"] * 3),
    (["--fresh-workers"], False, ["fresh interpreter"] * 3),
    ([], True, ["fork"] * 3),
])
def test_the_calibration_fork_only_calibrates_elsewhere(
        tmp_path, monkeypatch, options, renew, starts):
    # The fixed recipe as it was; fresh or renewing workers, whose first
    # would not be like the others.
    if renew:
        monkeypatch.setenv("GILBENCH_WORKER_LAYOUT", "renew")
    runs = measured_runs(tmp_path, *options)
    assert [run["worker_start"] for run in runs] == starts


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork")
def test_forks_share_the_programs_layout_by_default(tmp_path):
    runs = measured_runs(tmp_path)
    # The case's code object, made in the program, is at one address in
    # every fork (what prepare makes lands by what ran before it).
    assert len(set(run["code_at"] for run in runs)) == 1, runs
    assert not any("worker_heap_objects" in run for run in runs)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork")
def test_each_fork_renews_its_layout_when_asked(tmp_path, monkeypatch):
    monkeypatch.setenv("GILBENCH_WORKER_LAYOUT", "renew")
    runs = measured_runs(tmp_path)
    # The case module imported again after a heap offset of its own: its
    # code object and what prepare made sit elsewhere (two random offsets
    # may still coincide in one size class, so not three addresses always).
    for where in ("code_at", "made_at", "worker_heap_objects"):
        assert len(set(run[where] for run in runs)) >= 2, (where, runs)
    assert [run["worker_reimported"] for run in runs] == [1] * 3


def test_fresh_workers_draw_their_own_hash_seeds(tmp_path):
    runs = measured_runs(tmp_path, "--fresh-workers")
    assert [run["worker_start"] for run in runs] == [
        "fresh interpreter"] * 3
    assert len(set(run["measured_by"] for run in runs)) == 3
    # Three 64-bit seeds drawn at random: equal hashes would be a fork.
    assert len(set(run["seeded_hash"] for run in runs)) == 3
    assert not any("worker_heap_objects" in run for run in runs)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork")
def test_before_fork_runs_once_in_the_program_and_forks_inherit(tmp_path):
    runs = measured_runs(tmp_path, case="workerstart.inherit.*")
    programs = [run["before_fork_pid"] for run in runs]
    # Each block is a program of its own, whose before_fork ran once,
    # in the program, not in the worker that measured.
    assert len(set(programs)) == len(runs) and all(programs)
    assert not set(programs) & set(run["measured_by"] for run in runs)


def test_fresh_workers_do_not_inherit_before_fork(tmp_path):
    runs = measured_runs(tmp_path, "--fresh-workers",
                         case="workerstart.inherit.*")
    assert [run["before_fork_pid"] for run in runs] == [0] * 3


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork")
@pytest.mark.parametrize("main, expected", [
    (lambda fd: os.write(fd, b"said") and None, ("said", 0)),
    (lambda fd: 5, ("", 5)),
    (lambda fd: os.kill(os.getpid(), 9), ("", -9)),
])
def test_a_call_in_a_fork_returns_what_it_wrote_and_its_code(main, expected):
    assert forking.call(main) == expected


def test_forks_inherit_platforms_answers_instead_of_asking_again(
        monkeypatch):
    import platform
    import subprocess
    forking.call(lambda fd: 0)  # asks before it forks
    bits = platform.architecture()

    def no_process(*args, **kwargs):
        raise AssertionError("started a process to ask again")
    monkeypatch.setattr(subprocess, "check_output", no_process)
    assert platform.architecture() == bits  # file -b
    assert platform.platform(True, False)  # uname -p


def test_pyperfs_hook_list_is_read_once(monkeypatch):
    import importlib.metadata

    from gilbench.measure import program, pyperfinternals
    pyperfinternals.remember_hooks()

    def no_reading(*args, **kwargs):
        raise AssertionError("read every distribution's metadata again")
    monkeypatch.setattr(importlib.metadata, "entry_points", no_reading)

    program.make_runner()
    pyperfinternals.forget_runner(program.HarnessRunner)
