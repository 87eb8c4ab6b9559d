"""``gilbench judge FILE_OR_DIR...``: which benchmarks an undecided
finding still needs, as JSON -- what an adaptive run's rounds ask between
them (gilbench.runner.judging) and what ``gilbench refine`` reads.

An answer is undecided when its interval does not tell: a comparison's
straddles 1 and reaches beyond the margin (so it is neither above, below
nor the same), a best-of's runner-up is within reach and not tied, or it
is too noisy.  Its interval comes from what its run measured
(gilbench.report.numbers.variance), so more worker processes of the
benchmarks it reads narrow it: every undecided answer with measured
benchmarks is open.  One that reads none is counted as one more
processes cannot decide.

Prints ``{"open": [benchmark names], "unsure": [], "undecided": N,
"cannot": M, "answers": [[question, interpreter, answer, [names]],
...], "partners": [[names], ...]}`` ("unsure" is kept, empty, for the
readers of older verdicts; "partners": what each answer reading two or
more measured benchmarks reads where it is undecided or not yet settled
-- what a run's first look measures together, gilbench.runner.laterblocks).
A decided answer whose finding declares a precision is open too while
its interval reaches beyond it (not counted undecided): a reference
others are read against.  An answer is settled when it is decided and
its interval lies within its margin of its point both ways: its high
end at most (1 + margin)^2 its low end, as narrow as the margin asks
of a "the same" verdict; duets would narrow it no further than its
question needs.  A best-of's
answer names its winner and runner-up only: its margin is their ratio,
read from their duets where they have them, and the other candidates'
processes would not narrow it.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass

from gilbench.errors import OneLineErrorParser, UsageError
from gilbench.model import revisions
from gilbench.report.data import loader, sides
from gilbench.report.kinds import base
from gilbench.report.tables import pivot, questions


@dataclass
class Undecided:
    question: str
    interpreter: str
    text: str  # the answer as the report words it
    members: list  # the measured Records it reads
    sure: bool = True  # decided at its point were its processes agreeing
    # Decided, but not yet as precise as its finding declares.
    imprecise: bool = False

    @property
    def key(self):
        return (self.question, self.interpreter)


def is_undecided(cell):
    """An answer with an interval that does not tell (a comparison's
    straddles 1 and reaches beyond the margin, a best-of's runner-up is
    within reach and not tied, too noisy)."""
    return (not cell.missing and cell.significant is False
            and cell.same is None and cell.interval is not None)


def is_settled(cell, margin):
    """An answer not undecided (decided, or no comparison) whose interval
    is no wider than (1 + margin)^2 (high over low): what more processes
    would narrow, no question needs."""
    if is_undecided(cell) or cell.missing or cell.interval is None:
        return False
    low, high = cell.interval
    return 0 < low and high <= low * (1.0 + margin) ** 2


def is_imprecise(cell, precision):
    """A decided answer whose finding declares a ``precision`` (a share)
    and whose interval reaches beyond it from its point either way."""
    if (not precision or is_undecided(cell) or cell.missing
            or cell.interval is None or not cell.value):
        return False
    low, high = cell.interval
    point = cell.value
    return not (0 < low and point / low <= 1.0 + precision
                and high / point <= 1.0 + precision)


def undecided(results):
    """([Undecided] more processes may decide, [keys] they cannot)."""
    return _judged(results)[:2]


def _judged(results):
    """As :func:`undecided`, and the names each answer that reads two or
    more measured benchmarks reads, unless it is settled."""
    # A run of two revisions (gilbench continuous) decides each one's,
    # and measures a benchmark's revisions together (twinned).
    twins = _revision_twins(results)
    results = sides.each_side(results, revisions.AXIS)
    families = pivot.family_order(results)
    table = questions.findings_table(results, families)
    open_, hopeless, partners = [], [], []
    for row in table.rows:
        for label, cell in zip(table.interpreters, row.answers):
            # A best-of's margin divides its two leaders: the others'
            # processes would not narrow it.
            read = cell.duel or cell.read or ()
            if len(read) >= 2 and not is_settled(
                    cell, base.margin_of(row.declaration)):
                partners.append(sorted(r.name for r in read))
            imprecise = is_imprecise(cell,
                                     row.declaration.get("precision"))
            if not (imprecise or is_undecided(cell)):
                continue
            if not read:
                if not imprecise:
                    hopeless.append((row.question, label))
            else:
                open_.append(Undecided(row.question, label, cell.display,
                                       [twin for record in read
                                        for twin in twins.get(record.name,
                                                              [record])],
                                       imprecise=imprecise))
    return open_, hopeless, partners


def _revision_twins(results):
    """{name of a benchmark measured at a revision: its records at every
    revision}: one revision's answer that needs more
    processes gets them for all, in the same blocks, or the machine's
    state of the moment would stand between the revisions."""
    found = {}
    for result in results:
        by_point = {}
        for record in result.records:
            if revisions.AXIS in record.dims:
                point = revisions.point_of(record.dims)
                by_point.setdefault(point, []).append(record)
        for group in by_point.values():
            for record in group:
                found[record.name] = group
    return found


def verdict(results):
    """The JSON-ready answer for ``results`` (see the module's doc)."""
    open_, hopeless, partners = _judged(results)
    sure = {r.name for item in open_ if item.sure for r in item.members}
    unsure = {r.name for item in open_ if not item.sure
              for r in item.members}
    return {"open": sorted(sure), "unsure": sorted(unsure - sure),
            "undecided": len([item for item in open_
                              if not item.imprecise]) + len(hopeless),
            "cannot": len(hopeless),
            "answers": [[item.question, item.interpreter, item.text,
                         sorted(r.name for r in item.members)]
                        for item in open_],
            "partners": partners}


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
