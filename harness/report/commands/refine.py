"""``gilbench refine FILE_OR_DIR... [--budget SECONDS]``: time spent
where an answer is undecided.

After a run, some findings are undecided: their interval straddles the
decision point (1 for a ratio or speedup, the runner-up for a best-of)
or reads "too noisy to tell".  Refine gives the benchmarks such an
answer reads STEP more worker processes each (``gilbench extend``, run
by the interpreter that made each file; pyperf appends the runs),
answers again, and goes on until every finding is decided, a time
budget is spent, or no benchmark may grow.  Cheapest answers first.

More processes narrow only the spread between processes; the run-to-run
drift (gilbench.report.numbers.intervals) stays.  An answer that would still be
undecided if its processes agreed perfectly cannot be decided by more
of them and costs nothing here: it is counted and left as it is.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass

from gilbench.errors import OneLineErrorParser, UsageError
from gilbench.model.resultformat import INTERPRETER
from gilbench.report.data import loader
from gilbench.report.numbers import intervals
from gilbench.report.tables import pivot, questions

DEFAULT_BUDGET = 60.0
STEP = 2  # worker processes added to a benchmark per round
MOST = 12  # a benchmark never gets more
# What an added process costs besides its measured duration (its fork,
# exit and pyperf's bookkeeping), and what each extend call costs
# before it measures (an interpreter start, the case modules' import).
PROCESS_COST = 0.05
CALL_COST = 1.0


@dataclass
class Undecided:
    question: str
    interpreter: str
    text: str  # the answer as the report words it
    members: list  # the Records it reads that may get more processes

    @property
    def key(self):
        return (self.question, self.interpreter)


def is_undecided(cell):
    """An answer with an interval that does not tell (a comparison's
    straddles 1, a best-of's runner-up is within reach, too noisy)."""
    return (not cell.missing and cell.significant is False
            and cell.interval is not None)


def undecided(results):
    """([Undecided] more processes may decide, [keys] they cannot)."""
    families = pivot.family_order(results)
    table = questions.findings_table(results, families)
    agreeing = intervals.Resampler(processes_agree=True)
    with intervals.resampling(agreeing):
        best = questions.findings_table(results, families)
    open_, hopeless = [], []
    for row, ideal in zip(table.rows, best.rows):
        for label, cell, could in zip(table.interpreters, row.answers,
                                      ideal.answers):
            if not is_undecided(cell):
                continue
            members = [r for r in cell.read
                       if questions.processes(r) + STEP <= MOST]
            if is_undecided(could) or not members:
                hopeless.append((row.question, label))
            else:
                open_.append(Undecided(row.question, label, cell.display,
                                       members))
    return open_, hopeless


def cost(record):
    """Seconds STEP more worker processes of ``record`` take."""
    duration = record.recorded.get("duration", 1.0)
    return STEP * (duration + PROCESS_COST)


def plan(pending, budget):
    """{interpreter: [benchmark names]} for the cheapest answers first,
    within ``budget`` seconds, and its estimated cost."""
    chosen, spent = {}, 0.0
    for item in sorted(pending, key=lambda p: sum(map(cost, p.members))):
        new = [r for r in item.members
               if r.name not in chosen.get(r.dims[INTERPRETER], ())]
        files = {r.dims[INTERPRETER] for r in new} - set(chosen)
        extra = sum(map(cost, new)) + CALL_COST * len(files)
        if not new or spent + extra > budget:
            continue
        for record in new:
            chosen.setdefault(record.dims[INTERPRETER], []).append(
                record.name)
        spent += extra
    return chosen, spent


def extend(result, names):
    """Run ``gilbench extend`` with the interpreter that made ``result``;
    None when done, else the one line it said."""
    env = dict(os.environ)
    if result.version_key[3]:  # a free-threaded build run with its GIL on
        env["PYTHON_GIL"] = "1"
    command = [result.executable or sys.executable, "-m", "gilbench",
               "extend", result.path, *names, "--processes", str(STEP), "-q"]
    try:
        done = subprocess.run(command, env=env, capture_output=True,
                              text=True)
    except OSError as exc:
        return "cannot start %s: %s" % (command[0], exc.strerror or exc)
    if done.returncode == 0:
        return None
    said = [line for line in done.stderr.splitlines() if line.strip()]
    return said[-1] if said else "exit code %d" % done.returncode


def refine(paths, budget, say=print):
    """Extend until every answer is decided or ``budget`` is spent;
    the summary line."""
    started = time.monotonic()
    first, refused, rounds = None, {}, 0
    while True:
        results = loader.load_results(paths)
        pending, hopeless = undecided(results)
        if first is None:
            first = {item.key for item in pending}
            say("refine: %d undecided answers more processes may decide; "
                "%d they cannot (within the run-to-run drift, or at %d "
                "processes)" % (len(first), len(hopeless), MOST))
        still = {item.key for item in pending}
        left = budget - (time.monotonic() - started)
        chosen, estimate = plan([p for p in pending
                                 if p.interpreter not in refused], left)
        if not chosen:
            break
        rounds += 1
        say("refine: round %d: %d more processes for %d benchmarks of %d "
            "files (about %.0f s; %.0f s left)" % (
                rounds, STEP, sum(map(len, chosen.values())), len(chosen),
                estimate, left))
        by_label = {r.interpreter: r for r in results}
        for label, names in chosen.items():
            why = extend(by_label[label], names)
            if why:
                refused[label] = why
                say("refine: %s left as it is: %s" % (
                    by_label[label].path, why))
    return ("refine: %d of %d answers decided in %d rounds, %d still "
            "undecided; %.0f s of %.0f s spent" % (
                len(first - still), len(first), rounds, len(first & still),
                time.monotonic() - started, budget))


def _parser():
    parser = OneLineErrorParser(
        prog="gilbench refine",
        description="Give the benchmarks of undecided findings more worker "
        "processes, within a time budget; the result files are updated in "
        "place (pyperf appends the runs).")
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
