"""The run sizes itself (gilbench.model.design, gilbench.runner.rounds):
a benchmark whose worker processes take turns between two modes gets more
of them, one whose processes agree does not; every benchmark says what its
measurement cost; ``--design fixed`` measures today's recipe once; an
adaptive run killed during its rounds resumes with the rounds it had
finished; ``extend --budget`` goes on with the rounds on a file."""
import json
import os
import signal
import subprocess
import sys
import time

import pyperf
import pytest
from helpers import FIXTURES, ROOT, assert_one_line_usage_error, run_harness

from gilbench.model import design as designs
from gilbench.model.resultformat import BLOCK_KEY, PARTNER_KEY

CASES = os.path.join(FIXTURES, "design_cases.py")
STEADY = "designing.wait.python.python[spread=steady]/t1"
SPLIT = "designing.wait.python.python[spread=split]/t1"
# A short first look: two processes of two 5 ms values.
SHORT = ["-p", "2", "-n", "2", "-w", "1", "--min-time", "0.005"]


def _env(directory, judge="none"):
    """The run's environment: its judge, and the split case's turn counter."""
    return dict(os.environ, GILBENCH_JUDGE_PYTHON=judge,
                DESIGN_SPLIT_COUNTER=str(directory / "split-turns"))


def _benchmarks(path):
    """{name: (its runs with values, its common metadata)}."""
    suite = pyperf.BenchmarkSuite.load(str(path))
    return {bench.get_name(): ([run for run in bench.get_runs()
                                if run.values],
                               bench.get_runs()[-1].get_metadata())
            for bench in suite.get_benchmarks()}


@pytest.fixture(scope="module")
def sized(tmp_path_factory):
    directory = tmp_path_factory.mktemp("design")
    path = directory / "r.json"
    done = run_harness("run", "--module", CASES, "-o", path, "--budget", "40",
                       *SHORT, env=_env(directory))
    assert done.code == 0, done
    return path, done


def test_the_split_benchmark_gets_more_processes_and_the_steady_none(sized):
    path, done = sized
    found = _benchmarks(path)
    steady_runs, steady = found[STEADY]
    split_runs, split = found[SPLIT]
    # The steady case's sleeps agree within the design's target on a quiet
    # machine; a loaded one can make its first look disagree, and then
    # more processes are the design's right answer.
    if designs.narrow([run.values for run in steady_runs[:2]]):
        assert len(steady_runs) == 2
        assert steady["gilbench_looks"] == 1
        assert steady["gilbench_stopped"] == "narrow"
    else:
        assert steady["gilbench_stopped"] in ("limit", "budget", "narrow",
                                              "busy")
    assert len(split_runs) > 2
    assert split["gilbench_looks"] > 1
    assert split["gilbench_stopped"] in ("limit", "budget", "narrow", "busy")
    # No judge: no look was a decision look.
    assert split["gilbench_decision_looks"] == 1
    # Added runs say their round; the first look's do not.
    assert [r.get_metadata().get("gilbench_round", 0)
            for r in split_runs][:2] == [0, 0]
    assert all(r.get_metadata()["gilbench_round"] >= 1
               for r in split_runs[2:])
    assert all(meta["gilbench_seconds"] > 0 for _, meta in found.values())
    assert "round 1:" in done.stderr, done
    # No judge asked (GILBENCH_JUDGE_PYTHON=none): the run says so.
    assert "findings not judged (no report side here" in done.stdout
    # Still one pyperf file that pyperf reads.
    shown = subprocess.run([sys.executable, "-m", "pyperf", "show",
                            str(path)], capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr


def test_a_small_budget_keeps_its_rounds(tmp_path):
    # A few benchmarks' file is written in milliseconds: the rounds leave a
    # share of a small budget for the run's end, not a whole run's 2 s.
    path = tmp_path / "r.json"
    done = run_harness("run", "--module", CASES, "--param", "spread=split",
                       "-o", path, "--budget", "2.2", *SHORT,
                       env=_env(tmp_path))
    assert done.code == 0, done
    split_runs, split = _benchmarks(path)[SPLIT]
    assert split["gilbench_looks"] > 1 and len(split_runs) > 2, done


def test_the_fixed_design_measures_every_benchmark_once(tmp_path):
    path = tmp_path / "fixed.json"
    done = run_harness("run", "--module", CASES, "-o", path, "--design",
                       "fixed", "--min-time", "0.005", "-q")
    assert done.code == 0, done
    for runs, meta in _benchmarks(path).values():
        assert len(runs) == 2 and all(len(r.values) == 3 for r in runs)
        assert meta["gilbench_stopped"] == "fixed"
        assert meta["gilbench_looks"] == 1
    assert "round" not in done.stderr


def test_a_judged_run_asks_the_report_side(tmp_path):
    if sys.version_info < (3, 9):
        pytest.skip("the judge is report side")
    path = tmp_path / "judged.json"
    done = run_harness("run", "--module", CASES, "-o", path, "--budget", "40",
                       *SHORT, env=_env(tmp_path, judge=sys.executable))
    assert done.code == 0, done
    assert "answers undecided" in done.stdout, done
    shown = run_harness("report", path, "--format", "json")
    answer = json.loads(shown.stdout)["findings"][0]["answers"][0]
    assert answer["cost"]["looks"] > 1, answer
    assert answer["cost"]["seconds"] > 0
    # The answer's two were measured as duets: one worker process each
    # time, each run naming the other, in a block of their own.
    blocks = {}
    for name, (runs, _) in _benchmarks(path).items():
        for run in runs:
            meta = run.get_metadata()
            if PARTNER_KEY in meta:
                blocks.setdefault(meta[BLOCK_KEY], set()).add(
                    (name, meta[PARTNER_KEY]))
    assert blocks, "no duet"
    assert all(pairs == {(SPLIT, STEADY), (STEADY, SPLIT)}
               for pairs in blocks.values()), blocks


def _wait_for_round(journal, run, timeout=120):
    """Until the run's journal says a round finished (True), or it ended."""
    progress = os.path.join(journal, "progress.json")
    deadline = time.time() + timeout
    while time.time() < deadline and run.poll() is None:
        try:
            with open(progress) as stream:
                if json.load(stream).get("rounds", 0) >= 1:
                    return True
        except (IOError, OSError, ValueError):
            pass
        time.sleep(0.005)
    return False


def test_a_run_killed_in_its_rounds_resumes_with_them(tmp_path):
    path = tmp_path / "killed.json"
    command = [sys.executable, "-m", "gilbench", "run", "--module", CASES,
               "-o", str(path), "--budget", "60", "-q", "-p", "2", "-n", "2",
               "-w", "1", "--min-time", "0.02"]
    env = _env(tmp_path)
    run = subprocess.Popen(command, cwd=ROOT, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if not _wait_for_round(str(path) + ".journal", run):
        run.kill()
        run.communicate()
        pytest.fail("the run ended before a round was kept")
    run.send_signal(signal.SIGKILL)
    run.communicate()
    assert not path.exists()
    resumed = run_harness("run", "--module", CASES, "-o", path, "--budget",
                          "60", "-q", "-p", "2", "-n", "2", "-w", "1",
                          "--min-time", "0.02", "--resume", env=env)
    assert resumed.code == 0, resumed
    runs, meta = _benchmarks(path)[SPLIT]
    rounds = [r.get_metadata().get("gilbench_round", 0) for r in runs]
    assert 1 in rounds  # the round kept before the kill
    assert rounds == sorted(rounds)
    assert meta["gilbench_looks"] == len(set(rounds))
    assert meta["gilbench_stopped"] in ("limit", "budget", "narrow", "busy")


def test_extend_goes_on_with_the_rounds(tmp_path):
    path = tmp_path / "short.json"
    done = run_harness("run", "--module", CASES, "-o", path, "-q", "--budget",
                       "0.5", *SHORT, env=_env(tmp_path))
    assert done.code == 0, done
    before = len(_benchmarks(path)[SPLIT][0])
    extended = run_harness("extend", path, "--budget", "20",
                           env=_env(tmp_path))
    assert extended.code == 0, extended
    assert "more worker processes" in extended.stdout
    runs, meta = _benchmarks(path)[SPLIT]
    assert len(runs) > before
    assert runs[-1].get_metadata()["gilbench_extended"] == 1
    assert meta["gilbench_looks"] > 1


@pytest.mark.parametrize("arguments", [
    ["--budget", "0"], ["--budget", "-5"], ["--budget", "nan"],
    ["--budget", "soon"], ["--design", "sometimes"],
    ["--design", "fixed", "--budget", "10"]])
def test_a_bad_design_or_budget_is_one_line_before_anything_runs(tmp_path,
                                                                  arguments):
    kept = tmp_path / "kept.json"
    kept.write_text("{}")
    assert_one_line_usage_error(run_harness(
        "run", "--module", CASES, "-o", kept, *arguments))
    assert kept.read_text() == "{}"
    assert not os.path.exists(str(kept) + ".journal")


def test_extend_takes_names_or_a_budget(sized):
    path, _ = sized
    assert_one_line_usage_error(run_harness("extend", path))
    assert_one_line_usage_error(run_harness("extend", path, STEADY,
                                            "--budget", "5"))
