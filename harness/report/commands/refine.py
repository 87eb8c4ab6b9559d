"""``gilbench refine FILE_OR_DIR... [--budget SECONDS]``: more time for
earlier runs, where their answers still need it.

Refine is the run's own rounds (gilbench.runner.rounds) applied to
existing files: for each file, ``gilbench extend FILE --budget S`` run by
the interpreter that made it, with this interpreter judging the findings
between rounds (``gilbench judge``).  A round gives more worker processes
to the benchmarks an undecided finding reads and to those wider than the
design's target between their processes, until none needs more or the
file's share of the budget is spent.  Files with undecided answers go
first, and each gets an equal share of what is left.

More processes narrow only the spread between processes; the run-to-run
drift (gilbench.report.numbers.intervals) stays.  An answer that would
still be undecided if its processes agreed perfectly cannot be decided
by more of them and costs nothing here: it is counted and left as it is.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

from gilbench.errors import OneLineErrorParser, UsageError
from gilbench.report.commands import judge
from gilbench.report.data import loader

DEFAULT_BUDGET = 60.0
# A file's share below this is not worth an interpreter's start.
LEAST_SHARE = 2.0


def extend(result, seconds, say):
    """Run ``gilbench extend FILE --budget SECONDS`` with the interpreter
    that made ``result``, this one judging; None when done, else the one
    line it said."""
    env = dict(os.environ)
    if result.version_key[3]:  # a free-threaded build run with its GIL on
        env["PYTHON_GIL"] = "1"
    command = [result.executable or sys.executable, "-m", "gilbench",
               "extend", result.path, "--budget", "%.1f" % seconds,
               "--judge", sys.executable]
    try:
        done = subprocess.run(command, env=env, capture_output=True,
                              text=True)
    except OSError as exc:
        return "cannot start %s: %s" % (command[0], exc.strerror or exc)
    for line in done.stdout.splitlines():
        say("refine: %s: %s" % (result.interpreter,
                                 line.replace("gilbench extend: ", "")))
    if done.returncode == 0:
        return None
    said = [line for line in done.stderr.splitlines() if line.strip()]
    return said[-1] if said else "exit code %d" % done.returncode


def _undecided(results):
    """{interpreter: set of undecided answer keys}, and how many more
    processes cannot decide."""
    open_, hopeless = judge.undecided(results)
    found = {}
    for item in open_:
        found.setdefault(item.interpreter, set()).add(item.key)
    return found, len(hopeless)


def refine(paths, budget, say=print):
    """Extend every file within its share of ``budget``; the summary
    line."""
    started = time.monotonic()
    results = loader.load_results(paths)
    first, cannot = _undecided(results)
    asked = set().union(*first.values()) if first else set()
    say("refine: %d undecided answers more processes may decide; %d they "
        "cannot (they read no measured benchmark)" % (len(asked), cannot))
    order = sorted(results, key=lambda r: r.interpreter not in first)
    extended = 0
    for position, result in enumerate(order):
        left = budget - (time.monotonic() - started)
        share = left / (len(order) - position)
        if share < LEAST_SHARE:
            break
        why = extend(result, share, say)
        if why:
            say("refine: %s left as it is: %s" % (result.path, why))
        else:
            extended += 1
    still = set().union(*_undecided(loader.load_results(paths))[0].values()) \
        if extended else asked
    return ("refine: %d of %d answers decided, %d still undecided; %d of %d "
            "files extended; %.0f s of %.0f s spent" % (
                len(asked - still), len(asked), len(asked & still),
                extended, len(results), time.monotonic() - started, budget))


def _parser():
    parser = OneLineErrorParser(
        prog="gilbench refine",
        description="More worker processes where the answers of result "
        "files still need them, within a time budget; the result files are "
        "updated in place (pyperf appends the runs).")
    loader.add_paths_argument(parser)
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET,
                        metavar="SECONDS", help="time to spend at most "
                        "(default: %(default)g)")
    return parser


def main(argv):
    args = _parser().parse_args(argv)
    if not args.budget >= 0:
        raise UsageError("--budget must be 0 or more seconds")
    print(refine(args.paths, args.budget), flush=True)
    return 0
