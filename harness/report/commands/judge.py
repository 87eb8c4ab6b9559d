"""``gilbench judge FILE_OR_DIR...``: which benchmarks an undecided
finding still needs, as JSON -- what an adaptive run's rounds ask between
them (gilbench.runner.judging) and what ``gilbench refine`` reads.

An answer is undecided when its interval does not tell (a comparison's
straddles 1, a best-of's runner-up is within reach, too noisy).  More
worker processes narrow only the spread between processes; the
run-to-run drift (gilbench.report.numbers.intervals) stays.  An answer
that would still be undecided if its processes agreed perfectly cannot
be decided by more of them: it is counted, and its benchmarks are not
asked for -- once its processes do nearly agree (its interval at most
``KNOWN_WIDTH`` times as wide as theirs agreeing would be).  Before
that, its point is one draw of a few processes (a first look's two), and
more processes may move it out of the drift's reach: such an answer is
*unsure*, asked for after those more processes may decide at their point.

Prints ``{"open": [benchmark names], "unsure": [benchmark names],
"undecided": N, "cannot": M, "answers": [[question, interpreter, answer,
[names]], ...]}``.
"""
from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass

from gilbench.errors import OneLineErrorParser, UsageError
from gilbench.report.data import loader
from gilbench.report.numbers import intervals
from gilbench.report.tables import pivot, questions

# How much wider than the drift alone an interval may be for its point
# to count as known: more processes would narrow it by under half.
KNOWN_WIDTH = 2.0


@dataclass
class Undecided:
    question: str
    interpreter: str
    text: str  # the answer as the report words it
    members: list  # the measured Records it reads
    sure: bool = True  # decided at its point were its processes agreeing

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
            sure = not is_undecided(could)
            if not cell.read or not (sure or _point_wide(cell, could)):
                hopeless.append((row.question, label))
            else:
                open_.append(Undecided(row.question, label, cell.display,
                                       list(cell.read), sure))
    return open_, hopeless


def _point_wide(cell, agreeing):
    """Whether ``cell``'s interval is over KNOWN_WIDTH times as wide (as a
    ratio of its ends) as ``agreeing``'s, the same answer's with its
    processes agreeing."""
    try:
        width = math.log(cell.interval[1] / cell.interval[0])
        drift = math.log(agreeing.interval[1] / agreeing.interval[0])
    except (TypeError, ValueError, ZeroDivisionError):
        return False  # not a ratio's interval: the drift alone judges it
    return width > KNOWN_WIDTH * drift


def verdict(results):
    """The JSON-ready answer for ``results`` (see the module's doc)."""
    open_, hopeless = undecided(results)
    sure = {r.name for item in open_ if item.sure for r in item.members}
    unsure = {r.name for item in open_ if not item.sure
              for r in item.members}
    return {"open": sorted(sure), "unsure": sorted(unsure - sure),
            "undecided": len(open_) + len(hopeless),
            "cannot": len(hopeless),
            "answers": [[item.question, item.interpreter, item.text,
                         sorted(r.name for r in item.members)]
                        for item in open_]}


def serve(lines, write):
    """Judge the result file each of ``lines`` names, a JSON line each
    (an error as {"error": ...}), until the lines end: one process for
    all of a run's rounds, its imports paid once."""
    for line in lines:
        try:
            said = verdict(loader.load_results([line.strip()]))
        except UsageError as exc:
            said = {"error": str(exc)}
        write(json.dumps(said, sort_keys=True) + "\n")


def _parser():
    parser = OneLineErrorParser(
        prog="gilbench judge",
        description="Print, as JSON, the benchmarks that undecided findings "
        "of result files read and more worker processes may decide.")
    parser.add_argument("paths", nargs="*", metavar="FILE_OR_DIR",
                        help="result files, or directories of them")
    parser.add_argument("--serve", action="store_true",
                        help="read a result file's path per line on stdin "
                        "and answer each with a JSON line (what a run's "
                        "rounds use)")
    return parser


def main(argv):
    args = _parser().parse_args(argv)
    if args.serve:
        serve(sys.stdin, lambda text: (sys.stdout.write(text),
                                       sys.stdout.flush()))
        return 0
    if not args.paths:
        raise UsageError("name result files, or --serve")
    print(json.dumps(verdict(loader.load_results(args.paths)),
                     sort_keys=True))
    return 0
