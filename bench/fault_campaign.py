"""Fault campaign: kill ``run`` with SIGKILL at random moments, resume each
time, and count finished benchmarks lost (the target is 0).

Usage: python bench/fault_campaign.py [--kills 20] [--seed N]

A small suite (tests/fixtures/fault_cases.py, the eight ``fault.q*``
benchmarks at threads 1 and 2, tiny pyperf settings) is run once
uninterrupted for reference.  Then, until ``--kills`` kills have landed:
start ``run`` (with ``--resume`` when a journal exists), SIGKILL it
after a random delay within the reference run's duration, and note which
benchmarks the journal had committed at that moment.  A run that
completes before its kill ends a chain; its file must hold every
benchmark the chain had committed, and the same benchmark set as the
reference.  Also measures what a journal commit costs next to a
benchmark's run time.
"""
from __future__ import print_function

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

from gilbench.runner import journal as journal_module

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SUITE = ["--module", os.path.join("tests", "fixtures", "fault_cases.py"),
         "--case", "fault.q*", "--param", "threads=1,2",
         "-p", "1", "-n", "1", "-w", "0", "-l", "1"]


def runner(output, flags=(), log_path=None):
    """Start ``run`` on ``output``; what it says goes to ``log_path``
    (``output``.log by default; appended: a chain's runs one after
    another), shown if one fails."""
    cmd = ([sys.executable, "-m", "gilbench", "run", "-o", output] + SUITE
           + list(flags))
    with open(log_path or output + ".log", "a") as log:
        log.write("$ %s\n" % " ".join(cmd))
        log.flush()
        return subprocess.Popen(cmd, cwd=ROOT, stdout=log,
                                stderr=subprocess.STDOUT)


def failed(output, what, log_path=None):
    """Exit, showing the tail of the chain's log."""
    with open(log_path or output + ".log") as log:
        tail = log.readlines()[-40:]
    sys.stderr.write("".join(tail))
    sys.exit(what)


def committed(output):
    path = journal_module.journal_dir(output)
    names = set()
    if not os.path.isdir(path):
        return names
    for name in os.listdir(path):
        if name.endswith(".entry.json"):
            with open(os.path.join(path, name)) as stream:
                names.add(json.load(stream)["name"])
    return names


def benchmark_names(output):
    with open(output) as stream:
        suite = json.load(stream)
    return {b["metadata"].get("name") or b["runs"][0]["metadata"]["name"]
            for b in suite["benchmarks"]}


def reference_run(work):
    """One uninterrupted run in ``work``: (its wall time, its benchmarks)."""
    output = os.path.join(work, "reference.json")
    started = time.time()
    if runner(output).wait() != 0:
        failed(output, "reference run failed")
    return time.time() - started, benchmark_names(output)


def commit_cost(samples=50):
    """Mean seconds of one journal commit (pyperf file fsync, entry write,
    fsync, rename, directory fsync) on this disk."""
    directory = tempfile.mkdtemp(prefix="gilbench-commit-")
    try:
        book = journal_module.Journal(os.path.join(directory, "x.json"), {})
        book.start(resume=False)
        for index in range(samples):
            with open(book.work_file(index, "pyperf.json"), "w") as stream:
                stream.write("{}" * 2000)
        start = time.time()
        for index in range(samples):
            book.commit(index, "b%d" % index, None)
        return (time.time() - start) / samples
    finally:
        shutil.rmtree(directory)


def options(doc, count, default):
    """``--COUNT N --seed N``: (the arguments, a generator seeded so)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--" + count, type=int, default=default)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    return args, random.Random(args.seed)


def main():
    args, rng = options(__doc__, "kills", 20)
    work = tempfile.mkdtemp(prefix="gilbench-campaign-")
    try:
        reference_wall, reference = reference_run(work)

        kills = lost = chains = 0
        output = os.path.join(work, "chain%d.json" % chains)
        chain_committed = set()
        while kills < args.kills:
            resume = os.path.isdir(journal_module.journal_dir(output))
            process = runner(output, ["--resume"] if resume else [])
            delay = rng.uniform(0.05, reference_wall)
            try:
                code = process.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                kills += 1
                chain_committed |= committed(output)
                continue
            if code != 0:
                failed(output, "a resumed run failed with exit code %d"
                       % code)
            final = benchmark_names(output)
            lost += len(chain_committed - final)
            if final != reference:
                sys.exit("chain %d: benchmark set differs from the "
                         "reference" % chains)
            chains += 1
            output = os.path.join(work, "chain%d.json" % chains)
            chain_committed = set()
        if os.path.isdir(journal_module.journal_dir(output)):  # finish it
            if runner(output, ["--resume"]).wait() != 0:
                failed(output, "the last resumed run failed")
            final = benchmark_names(output)
            lost += len(chain_committed - final)
            if final != reference:
                sys.exit("last chain: benchmark set differs")
            chains += 1

        cost = commit_cost()
        per_benchmark = reference_wall / len(reference)
        print("fault campaign: %d SIGKILLs over %d resumed runs, %d finished "
              "benchmarks lost; every final file has the reference's %d "
              "benchmarks" % (kills, chains, lost, len(reference)))
        print("journal: %.2f ms per commit, %.2f%% of a benchmark's %.2f s "
              "(this suite's tiny settings; default settings take ~2 s a "
              "benchmark)" % (cost * 1e3, 100 * cost / per_benchmark,
                              per_benchmark))
        return 1 if lost else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
