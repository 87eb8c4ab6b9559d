"""A live run owns its output and journal: a second run on them is refused
in one line, whatever its flags, and touches nothing; a SIGKILLed run's
lock dies with it, so --resume takes its journal."""
import os
import time

import pytest
from helpers import MINIMAL_PYPERF, assert_one_line_usage_error, run_harness
from test_journal import (
    QUICK,
    harness_args,
    names,
    our_processes,
    start_runner,
)

GATED = QUICK + ["--case", "fault.gate.*"] + MINIMAL_PYPERF
ALL_GATED = ["fault.%s.v.python/t%d" % (case, threads)
             for case in ("q0", "q1", "q2", "q3", "gate")
             for threads in (1, 2)]


@pytest.fixture
def gate(tmp_path, monkeypatch):
    """The file whose creation lets fault.gate finish
    (tests/fixtures/fault_cases)."""
    path = str(tmp_path / "gate")
    monkeypatch.setenv("GILBENCH_TEST_GATE", path)
    return path


def wait_for(path, timeout=60):
    deadline = time.time() + timeout
    while not os.path.exists(path):
        assert time.time() < deadline, "%s never appeared" % path
        time.sleep(0.05)


def held_run(output, gate):
    """A run of the gated suite, waiting at the gate."""
    runner = start_runner(output, *GATED)
    wait_for(gate + ".waiting")
    return runner


def snapshot(directory):
    """Every file under ``directory`` with its size and mtime."""
    found = {}
    for root, _, files in os.walk(directory):
        for name in files:
            stat = os.stat(os.path.join(root, name))
            found[os.path.join(root, name)] = (stat.st_size, stat.st_mtime)
    return found


def test_a_second_run_is_refused_whatever_its_flags(tmp_path, gate):
    output = tmp_path / "out.json"
    output.write_text("precious")
    live = held_run(output, gate)
    before = snapshot(str(tmp_path))
    for flags in ([], ["--resume"], ["--restart"]):
        second = run_harness(*harness_args(output, *(flags + GATED)))
        assert_one_line_usage_error(second)
        assert "in use by a live run (pid %d, started " % live.pid in (
            second.stderr), second
        assert snapshot(str(tmp_path)) == before
    open(gate, "w").close()
    stdout, stderr = live.communicate(timeout=120)
    assert live.returncode == 0, stderr
    assert "Traceback" not in stderr, stderr
    assert names(output) == ALL_GATED
    assert sorted(os.listdir(str(tmp_path))) == [
        "gate", "gate.waiting", "out.json"]


def test_a_killed_runs_journal_is_resumed_not_refused(tmp_path, gate):
    output = tmp_path / "out.json"
    live = held_run(output, gate)
    live.kill()
    live.wait()
    open(gate, "w").close()
    assert os.path.exists(str(output) + ".lock")  # a dead run's, unlocked
    again = run_harness(*harness_args(output, *GATED))
    assert_one_line_usage_error(again)
    assert "interrupted run's journal" in again.stderr, again
    result = run_harness(*harness_args(output, "--resume", *GATED))
    assert result.code == 0, result
    assert names(output) == ALL_GATED
    # (The first block goes in a random order: the gate may come before
    # anything is committed, so how many were is not asked.)
    assert sorted(os.listdir(str(tmp_path))) == [
        "gate", "gate.waiting", "out.json"]
    time.sleep(0.5)  # PR_SET_PDEATHSIG is asynchronous
    assert our_processes() == []
