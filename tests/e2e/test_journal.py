"""The run journal (kill -9, --resume, SIGINT/SIGTERM) and fault
containment (orphans, leaked threads, a C deadlock holding the GIL,
memory exhaustion), through the real CLI on tests/fixtures/fault_cases.py."""
import json
import os
import signal
import subprocess
import sys
import time
import uuid

import fault_cases
import psutil
import pyperf
import pytest
from helpers import (
    MINIMAL_PYPERF,
    ROOT,
    assert_one_line_usage_error,
    run_harness,
)

FAULTS = os.path.join("tests", "fixtures", "fault_cases.py")
QUICK = ["--case", "fault.q*", "--param", "threads=1,2"]


def harness_args(output, *extra):
    return ["run", "--module", FAULTS, "-o", output] + list(extra)


# Every process of this test run carries this in its environment (the
# runner passes GILBENCH_* variables down to pyperf's workers), so the
# leftover check finds ours and never another test run's.
TOKEN = uuid.uuid4().hex


@pytest.fixture(autouse=True)
def _token(monkeypatch):
    monkeypatch.setenv("GILBENCH_TEST_TOKEN", TOKEN)


def start_runner(output, *extra):
    env = dict(os.environ, GILBENCH_TEST_TOKEN=TOKEN)
    return subprocess.Popen(
        [sys.executable, "-m", "gilbench"] + [str(a) for a in harness_args(
            output, *extra)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True, env=env, preexec_fn=_default_sigint)


def _default_sigint():
    # A shell starts background jobs with SIGINT ignored, and Python keeps
    # an ignored SIGINT ignored: the Ctrl-C test must not depend on how
    # pytest was started.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def entries(output):
    journal = str(output) + ".journal"
    return sorted(n for n in os.listdir(journal) if n.endswith(".entry.json"))


def wait_for_entries(output, count, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if len(entries(output)) >= count:
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise AssertionError("journal never reached %d entries" % count)


def killed_run(output, committed):
    """A run of the quick suite, SIGKILLed once ``committed`` benchmarks
    are in its journal."""
    runner = start_runner(output, *(QUICK + MINIMAL_PYPERF))
    wait_for_entries(output, committed)
    runner.kill()
    runner.wait()


def names(output):
    return [b.get_name() for b in
            pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()]


def our_processes():
    """Processes of this test run still alive: the runners it started,
    everything below them, and the orphan a fault case leaves."""
    found = []
    for process in psutil.process_iter(["cmdline", "pid"]):
        try:
            mine = process.environ().get("GILBENCH_TEST_TOKEN") == TOKEN
        except psutil.Error:
            continue
        if mine and process.info["pid"] != os.getpid():
            found.append(" ".join(process.info["cmdline"] or ()))
    return found


def test_kill_9_then_resume_loses_nothing_finished(tmp_path):
    output = tmp_path / "out.json"
    killed_run(output, 3)
    survived = entries(output)
    assert len(survived) >= 3 and not output.exists()
    time.sleep(0.5)  # PR_SET_PDEATHSIG is asynchronous
    assert our_processes() == []
    result = run_harness(*harness_args(output, "--resume",
                                       *(QUICK + MINIMAL_PYPERF)))
    assert result.code == 0, result
    assert names(output) == ["fault.%s.v.python/t%d" % (q, t)
                             for q in fault_cases.QUICK for t in (1, 2)]
    assert not os.path.exists(str(output) + ".journal")


def test_resume_measures_again_a_benchmark_whose_pyperf_file_is_gone(
        tmp_path):
    # Before the journal was renamed away ahead of its deletion, a kill
    # during the final delete left entries whose pyperf files were gone,
    # and resume failed with a traceback (seen in the fault campaign).
    output = tmp_path / "out.json"
    killed_run(output, 2)
    journal = str(output) + ".journal"
    with open(os.path.join(journal, entries(output)[0])) as stream:
        lost = json.load(stream)["pyperf"]
    os.remove(os.path.join(journal, lost))
    result = run_harness(*harness_args(output, "--resume",
                                       *(QUICK + MINIMAL_PYPERF)))
    assert result.code == 0, result
    assert len(names(output)) == 8
    assert not os.path.exists(journal)


def test_a_killed_start_or_removal_leaves_nothing_in_the_way(tmp_path):
    # A run killed while starting or removing its journal leaves these; the
    # journal's own path is only ever renamed, so it is whole or absent.
    output = tmp_path / "out.json"
    journal = str(output) + ".journal"
    for leftover in (journal + ".new", journal + ".removing"):
        os.mkdir(leftover)
        open(os.path.join(leftover, "header.json"), "w").close()
    result = run_harness(*harness_args(output, *(QUICK + MINIMAL_PYPERF)))
    assert result.code == 0, result
    assert len(names(output)) == 8
    assert os.listdir(str(tmp_path)) == ["out.json"]


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130),
                                       (signal.SIGTERM, 143)])
def test_interrupt_writes_what_finished_and_says_how_to_resume(
        tmp_path, sig, code):
    output = tmp_path / "out.json"
    runner = start_runner(output, *(QUICK + MINIMAL_PYPERF))
    wait_for_entries(output, 2)
    runner.send_signal(sig)
    stdout, stderr = runner.communicate(timeout=60)
    assert runner.returncode == code, stderr
    assert "--resume" in stderr and "Traceback" not in stderr, stderr
    done = len(names(output))
    assert 2 <= done < 8
    assert len(entries(output)) >= done
    assert our_processes() == []
    result = run_harness(*harness_args(output, "--resume",
                                       *(QUICK + MINIMAL_PYPERF)))
    assert result.code == 0, result
    assert len(names(output)) == 8


def test_resume_refuses_other_settings_and_missing_or_foreign_journals(
        tmp_path):
    output = tmp_path / "out.json"
    killed_run(output, 1)
    other = harness_args(output, "--resume", "--case", "fault.q0.*",
                         *MINIMAL_PYPERF)
    result = run_harness(*other)
    assert_one_line_usage_error(result)
    assert "another" in result.stderr
    again = run_harness(*harness_args(output, *(QUICK + MINIMAL_PYPERF)))
    assert_one_line_usage_error(again)
    assert "--resume" in again.stderr and "--restart" in again.stderr
    fresh = run_harness(*harness_args(output, "--restart",
                                      *(QUICK + MINIMAL_PYPERF)))
    assert fresh.code == 0, fresh
    none = run_harness(*harness_args(tmp_path / "other.json", "--resume",
                                     *(QUICK + MINIMAL_PYPERF)))
    assert_one_line_usage_error(none)
    assert "no journal" in none.stderr
    foreign = tmp_path / "foreign.json"
    os.mkdir(str(foreign) + ".journal")
    with open(os.path.join(str(foreign) + ".journal", "header.json"),
              "w") as stream:
        stream.write('{"not": "ours"}')
    result = run_harness(*harness_args(foreign, "--resume",
                                       *(QUICK + MINIMAL_PYPERF)))
    assert_one_line_usage_error(result)
    assert "not a gilbench run journal" in result.stderr


def test_faults_cost_only_their_own_result(tmp_path):
    output = tmp_path / "out.json"
    started = time.time()
    result = run_harness(*harness_args(
        output, "--case", "fault.q0.*", "--case", "fault.orphan.*", "--case",
        "fault.leak.*", "--case", "fault.gil_deadlock.*", "--case",
        "fault.hog.*",
        "--threads", "1", "--timeout", "10", "--memory-limit", "1024",
        *MINIMAL_PYPERF), timeout=120)
    assert result.code == 1, result
    suite = pyperf.BenchmarkSuite.load(str(output))
    assert sorted(names(output)) == sorted([
        "fault.q0.v.python/t1", "fault.orphan.v.python/t1",
        "fault.leak.v.python/t1"])
    missing = {e["name"]: e["reason"] for e in json.loads(
        suite.get_benchmarks()[0].get_metadata()["gilbench_missing"])}
    assert missing["fault.gil_deadlock.v.python/t1"] == (
        "hung: killed after 10 s")
    assert "MemoryError" in missing["fault.hog.v.python/t1"], missing
    # The leaked thread did not hold its benchmark until the timeout.
    assert time.time() - started < 60
    assert our_processes() == []


def test_unwritable_output_directory(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    existing = locked / "out.json"
    existing.write_text("precious")
    os.chmod(str(locked), 0o500)
    try:
        result = run_harness(*harness_args(existing, *(QUICK +
                                                       MINIMAL_PYPERF)))
    finally:
        os.chmod(str(locked), 0o700)
    if os.geteuid() == 0:  # root writes anyway: the run must succeed
        assert result.code == 0, result
        return
    assert_one_line_usage_error(result)
    assert existing.read_text() == "precious"


@pytest.mark.skipif(os.geteuid() != 0 or not sys.platform.startswith(
    "linux"), reason="mounting a tiny tmpfs needs root on Linux")
def test_full_output_directory(tmp_path):
    full = tmp_path / "full"
    full.mkdir()
    mounted = subprocess.call(["mount", "-t", "tmpfs", "-o", "size=64k",
                               "tmpfs", str(full)]) == 0
    if not mounted:
        pytest.skip("mount refused in this sandbox")
    try:
        existing = full / "out.json"
        existing.write_text("precious")
        fd = os.open(str(full / "filler"), os.O_WRONLY | os.O_CREAT)
        try:
            while True:
                os.write(fd, b"x" * 4096)
        except OSError:  # full: no room for a journal or a result
            pass
        finally:
            os.close(fd)
        result = run_harness(*harness_args(existing, *(QUICK +
                                                       MINIMAL_PYPERF)))
        assert_one_line_usage_error(result)
        assert existing.read_text() == "precious"
    finally:
        subprocess.call(["umount", str(full)])
