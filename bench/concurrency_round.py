"""Concurrency round: two runs on one output at random offsets; one must
finish with every benchmark, the other finish after it or be refused (exit
2, one line) without touching anything.  The targets: 0 lost benchmarks,
no traceback, nothing left beside the output.

Usage: python bench/concurrency_round.py [--rounds 12] [--seed N]

The suite is bench/fault_campaign.py's, run once for reference.  Each
round has a fresh output; in every third round a run is first SIGKILLed at
a random moment, so the two race for an interrupted run's journal.  The
first run gets a flag that can succeed alone (none or --restart without a
journal, --resume or --restart with one); the second, started after a
random delay up to 1.3 times the reference run's wall time (at times just
as the first ends), any of none, --resume and --restart.  A refusal
naming a live run must name the other run's pid.
"""
from __future__ import print_function

import os
import shutil
import sys
import tempfile
import time

from fault_campaign import benchmark_names, options, reference_run, runner

from gilbench.runner import journal as journal_module

LIVE = "in use by a live run (pid %d,"


def interrupt(output, log_path, rng, wall):
    """SIGKILL a run on ``output`` at a random moment; True if it left a
    journal (the kill can land before it is made or after it is gone)."""
    process = runner(output, [], log_path)
    time.sleep(rng.uniform(0.3, wall))
    process.kill()
    process.wait()
    return os.path.isdir(journal_module.journal_dir(output))


def said(log_path):
    """The lines the log's last run printed: runs append to a log, each
    after a line with its command (an interrupted run shares the first
    run's log)."""
    with open(log_path) as log:
        lines = log.read().splitlines()
    last = max(i for i, line in enumerate(lines) if line.startswith("$ "))
    return lines[last + 1:]


def judge(process, other, log_path):
    """``process``'s outcome: "done", "refused: live" or "refused: other";
    raises AssertionError on anything else."""
    lines = said(log_path)
    assert not any("Traceback" in line for line in lines), "a traceback"
    if process.returncode == 0:
        return "done"
    assert process.returncode == 2, "exit %d" % process.returncode
    assert len(lines) == 1 and lines[0].startswith("gilbench: error: "), (
        "a refusal of %d lines" % len(lines))
    if "live run" not in lines[0]:
        return "refused: other"
    assert LIVE % other.pid in lines[0], "names another pid"
    return "refused: live"


def one_round(directory, logs, rng, wall, reference, kill_first):
    """Race two runs on a fresh output in ``directory`` (after killing one
    there if ``kill_first``); return (their outcomes, whether there was an
    interrupted run's journal, lost benchmarks)."""
    output = os.path.join(directory, "x.json")
    journal = kill_first and interrupt(output, logs[0], rng, wall)
    first_flags = rng.choice([["--resume"], ["--restart"]] if journal
                             else [[], ["--restart"]])
    first = runner(output, first_flags, logs[0])
    time.sleep(rng.uniform(0, 1.3 * wall))  # past its end at times
    second = runner(output, rng.choice([[], ["--resume"], ["--restart"]]),
                    logs[1])
    first.wait()
    second.wait()
    outcomes = [judge(first, second, logs[0]),
                judge(second, first, logs[1])]
    assert "done" in outcomes, "neither run finished"
    left = sorted(os.listdir(directory))
    assert left == ["x.json"], "left beside the output: %s" % left
    return outcomes, journal, len(reference - benchmark_names(output))


def show(logs, problem):
    for path in logs:
        with open(path) as log:
            sys.stderr.write("--- %s\n%s" % (path, log.read()[-3000:]))
    sys.stderr.write("concurrency round: %s\n" % problem)


def main():
    args, rng = options(__doc__, "rounds", 12)
    work = tempfile.mkdtemp(prefix="gilbench-concurrency-")
    started = time.time()
    try:
        wall, reference = reference_run(work)
        counts = {"done": 0, "refused: live": 0, "refused: other": 0}
        interrupted = lost = 0
        for index in range(args.rounds):
            directory = os.path.join(work, "round%d" % index)
            os.mkdir(directory)
            logs = [os.path.join(work, "round%d.%s.log" % (index, who))
                    for who in "ab"]
            try:
                outcomes, journal, missing = one_round(
                    directory, logs, rng, wall, reference, index % 3 == 2)
            except AssertionError as problem:
                show(logs, "round %d: %s" % (index, problem))
                return 1
            for outcome in outcomes:
                counts[outcome] += 1
            interrupted += journal
            lost += missing
        print("concurrency round: %d rounds (%d on an interrupted run's "
              "journal), %d refusals naming the live run, %d other "
              "refusals, %d runs finished, %d lost benchmarks; %.0f s" % (
                  args.rounds, interrupted, counts["refused: live"],
                  counts["refused: other"], counts["done"], lost,
                  time.time() - started))
        return 1 if lost else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
