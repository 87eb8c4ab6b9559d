"""The findings table that opens a report: each family's declared
questions (gilbench.model.findings) answered per interpreter.

A finding's cell is any table cell kind, computed at the point its
declaration names; the dimensions the point leaves out are completed from
the benchmarks it selects in that result file, when they agree on one
value (else the answer is "n/a: ambiguous").  Rows are the findings,
grouped by family in page order; columns the interpreters.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from gilbench.model.findings import N_PLACE, USABLE
from gilbench.model.resultformat import (
    EXTENDED_KEY,
    INTERPRETER,
    SECONDS_KEY,
)
from gilbench.report import kinds
from gilbench.report.data import interpreters
from gilbench.report.data.lookup import Lookup, Recording
from gilbench.report.data.records import Cell
from gilbench.report.numbers import cells, intervals
from gilbench.report.tables import builds, pivot, why

TITLE = "Findings"
INTRO = ("Each family's questions, answered per interpreter from the "
         "tables below. %s ? marks an answer that is not significant; "
         "a + in the matrix, an answer with a note: (up to N processes), "
         "its benchmarks got more worker processes than their first look "
         "(the run's rounds, or gilbench refine); \"differs from\", the "
         "same question at a contrasting point its family declares "
         "(another value of one of its dimensions) is answered "
         "significantly differently there (the two intervals do not "
         "overlap), and both answers are given.  What each answer's "
         "measurement cost is one hover away."
         % intervals.NOTE)
# What the compact matrix leaves out of a cell, and where it is.
MATRIX_NOTE = ("The matrix shows each answer alone, with its marks; its "
               "interval and notes are %s.")
MARKS_NOTE = ("A mark beside a question is every one of its answers'; %s "
              "(noisy values) is left to the intervals, which carry it."
              % cells.NOISY_MARK)


def names_winner(cell):
    """Whether ``cell`` answers a best-of by its winner's name."""
    return cell.winner is not None and cell.short == str(cell.winner)


def winner_codes(answers):
    """{winner: letter} of a best-of question's answers, in first-seen
    order: a compact matrix shows the letter, the question line the key."""
    codes = {}
    for cell in answers:
        if names_winner(cell) and cell.winner not in codes:
            codes[cell.winner] = chr(ord("A") + len(codes) % 26)
    return codes


def winner_key(codes):
    """"A: mutex, B: spin": what the letters of ``codes`` stand for."""
    return ", ".join("%s: %s" % (code, winner)
                     for winner, code in codes.items())


def answer_code(cell, codes):
    """An answer alone in a compact matrix: a best-of's winner by its
    letter, any other answer as it is short."""
    return codes.get(cell.winner) if names_winner(cell) else cell.short


def matrix_marks(cell):
    """The flags a matrix cell shows: all but noisy values' ~, which its
    interval already carries (its whole wording keeps it)."""
    return cell.flags.replace(cells.NOISY_MARK, "")


def shared_marks(answers):
    """The marks every answer of a question carries (two answers or
    more), said once beside the question instead of in each cell."""
    marked = [matrix_marks(cell) for cell in answers if not cell.missing]
    if len(marked) < 2:
        return ""
    return "".join(mark for mark in marked[0]
                   if all(mark in marks for marks in marked))


@dataclass
class Finding:
    family: str
    question: str
    declaration: dict
    answers: list  # Cells, one per interpreter
    evidence: str = ""  # title of the table declaration that shows it


@dataclass
class FindingsTable:
    interpreters: list
    rows: list = field(default_factory=list)  # Findings
    # Each column's N (the usable CPUs its run was planned for) where the
    # columns' differ, else None: the questions then say "at N".
    counts: list | None = None

    @property
    def count(self):
        return len(self.rows)

    @property
    def headers(self):
        """The column headers: the interpreters, with each one's N when
        the columns' Ns differ."""
        if self.counts is None:
            return list(self.interpreters)
        return ["%s (N=%s)" % (label, "?" if n is None else n)
                for label, n in zip(self.interpreters, self.counts)]

    @property
    def short_headers(self):
        """The headers in a few characters each, for a compact matrix
        (interpreters.short_label; "N=8" where the columns' Ns differ)."""
        short = [interpreters.short_label(i) for i in self.interpreters]
        if self.counts is None:
            return short
        return ["%s N=%s" % (label, "?" if n is None else n)
                for label, n in zip(short, self.counts)]


UNANSWERED_TITLE = "Not answered here, and why"


def folded(found):
    """(the rows with an answer somewhere, "family: question -- reasons"
    of those answered n/a in every column): a question no interpreter
    answers is one line below the matrix, not a row of n/a cells.  A
    failed or hung answer is never folded: it is a problem to look at."""
    shown, unanswered, lead = [], [], ""
    for row in found.rows:
        # "... and at 2 processes?" reads on from the question before it.
        question = ("%s %s" % (lead, row.question)
                    if row.question.startswith("...") else row.question)
        if not row.question.startswith("..."):
            lead = row.question
        reasons = cells.not_applicable(row.answers)
        if reasons:
            unanswered.append("%s: %s -- %s" % (row.family, question,
                                                "; ".join(reasons)))
        else:
            shown.append(row)
    return shown, unanswered


def asked(question, counts):
    """``question`` with its {N} as the columns' one N, else "N"."""
    shared = set(counts)
    said = str(shared.pop()) if len(shared) == 1 and None not in counts \
        else "N"
    return question.replace(N_PLACE, said)


def resolved(at, planned):
    """``at`` with USABLE as ``planned`` (the file's N); None when a count
    is USABLE and the file says no N."""
    if USABLE not in at.values():
        return at
    if planned is None:
        return None
    return {dim: planned if value == USABLE else value
            for dim, value in at.items()}


def point(kind, at, records):
    """The dimensions at which to compute the cell: ``at`` completed with
    every dimension its benchmarks agree on; or a reason."""
    anchors = [r for r in kind.anchors(records) if pivot.matches(r, at)]
    if not anchors:
        return None, cells.NOT_RUN
    dims, ambiguous = dict(at), []
    free = []
    for record in anchors:
        free += [d for d in record.dims if d not in free]
    for dim in free:
        if dim in at or dim in kind.consumed or dim == INTERPRETER:
            continue
        values = {r.dims.get(dim) for r in anchors}
        if len(values) == 1:
            dims[dim] = values.pop()
        else:
            ambiguous.append(dim)
    if ambiguous:
        return None, "n/a: ambiguous, name %s" % ", ".join(ambiguous)
    return dims, None


def answer(kind, declaration, records, lookup, interpreter, planned=None):
    """One finding's Cell for one result file's records of its family
    (``lookup`` finds among them), computed by ``kind`` near its point;
    ``planned``: the file's N, for a count at USABLE."""
    dims = located(kind, declaration, records, interpreter, planned)
    if isinstance(dims, Cell):
        return dims
    return kind.answer(lookup, dims)


def answer_draws(kind, declaration, records, lookup, interpreter,
                 planned=None):
    """The bootstrap draws of ``answer``'s number (kind.draws), or None."""
    dims = located(kind, declaration, records, interpreter, planned)
    return None if isinstance(dims, Cell) else kind.draws(lookup, dims)


def located(kind, declaration, records, interpreter, planned=None):
    """The dimensions ``answer`` computes a finding's cell at, or a
    missing Cell saying why there are none."""
    if not records:
        return cells.missing(cells.NOT_RUN)
    at = resolved(declaration["at"], planned)
    if at is None:
        return cells.missing("n/a: the file says no usable CPU count")
    dims, reason = point(kind, at, records)
    if dims is None:
        return cells.missing(reason)
    if not declaration.get("oversubscribed"):
        # A count the cell consumes (a fit's, a crossover's) is its own
        # business; one the point pins is the question's.
        crowded = [r for r in records
                   if r.oversubscribed and r.count_axis not in kind.consumed
                   and pivot.matches(r, dims)]
        if crowded:
            return cells.missing(
                "n/a: the question reads %d workers at once; this machine "
                "has %d usable CPUs" % (crowded[0].concurrency,
                                        crowded[0].cpus_usable))
    return {**dims, INTERPRETER: interpreter}


def evidence_title(declaration, tables):
    """The declared evidence, else the first table of the family that
    compares the same two values of the same dimension (a ratio grwl/gil
    shows a speedup of grwl over gil too)."""
    if declaration.get("evidence"):
        return declaration["evidence"]
    wanted = _compared(declaration["cell"], declaration["at"])
    for table in tables:
        if wanted[1] and _compared(table["cell"], {}) == wanted:
            return table["title"]
    for table in tables:  # a speedup table: one baseline, every value
        over, values = _compared(table["cell"], {})
        if (over, values - {None}) == (wanted[0], wanted[1] & values):
            return table["title"]
    return ""


def _compared(cell, at):
    """(dimension, the set of its values a cell compares)."""
    over = cell.get("over")
    if cell["kind"] in ("ratio", "crossover"):
        return over, {cell["numerator"], cell["denominator"]}
    if cell["kind"] == "speedup":
        return over, {cell["baseline"], at.get(over)}
    return over, set()


def declared(results):
    """{family: (findings, tables, axes)}, first file declaring wins."""
    found = {}
    for result in results:
        for family, findings in result.findings.items():
            if family not in found:
                found[family] = (findings, result.tables.get(family, []),
                                 pivot.family_axes(results, family))
    return found


def findings_table(results, families):
    """The FindingsTable of ``results``, families in ``families`` order."""
    planned = [r.planned_cpus for r in results]
    table = FindingsTable([r.interpreter for r in results],
                          counts=None if len(set(planned)) == 1 else planned)
    found = declared(results)
    reads = []  # what the answer being computed reads
    ceiling = pivot.ceiling_lookup(results)
    if ceiling is not None:
        ceiling = ceiling.watched(reads)
    for family in [f for f in families if f in found]:
        findings, tables, axes = found[family]
        per_file = [[r for r in result.records
                     if r.dims["family"] == family] for result in results]
        lookups = [Recording(Lookup(records), reads) for records in per_file]
        for declaration in findings:
            kind = kinds.make({"cell": declaration["cell"], "note": "",
                               "margin": declaration.get("margin")},
                              axes, ceiling)
            answers = []
            for records, lookup, result in zip(per_file, lookups, results):
                del reads[:]
                dims = located(kind, declaration, records,
                               result.interpreter, result.planned_cpus)
                found_cell = dims if isinstance(dims, Cell) else \
                    kind.answer(lookup, dims)
                found_cell = contrasted(found_cell, kind, declaration,
                                        records, lookup, result)
                found_cell = _with_cost(replace(found_cell,
                                                read=tuple(reads)))
                answers.append(replace(found_cell, cause=why.finding_cause(
                    found_cell, declaration, lookup,
                    None if isinstance(dims, Cell) else dims, ceiling, axes,
                    result.facts.get("gil", "unknown"))))
            table.rows.append(Finding(
                family, asked(declaration["question"], planned), declaration,
                answers, evidence_title(declaration, tables)))
    for declaration, answers, evidence in builds.findings(results,
                                                          families):
        table.rows.append(Finding(builds.FAMILY, declaration["question"],
                                  declaration, answers, evidence))
    return table


def contrasted(found, kind, declaration, records, lookup, result):
    """``found`` with a note giving both answers where the declaration's
    contrast (another value of dimensions its point names) is answered
    significantly differently: their 95% intervals do not overlap, a
    conservative test that needs nothing of the kind but its interval."""
    contrast = declaration.get("contrast")
    if not contrast or found.missing:
        return found
    other = answer(kind, dict(declaration, at=dict(declaration["at"],
                                                   **contrast)),
                   records, lookup, result.interpreter, result.planned_cpus)
    if other.missing or not apart(found.interval, other.interval):
        return found
    said = ", ".join("%s=%s" % (dim, declaration["at"][dim])
                     for dim in contrast)
    other_said = ", ".join("%s=%s" % item for item in contrast.items())
    return replace(found, note=cells.spaced(found.note, "(%s: %s; differs "
                                            "from %s: %s)" % (
                                                said, found.short,
                                                other_said, other.text)))


def apart(one, other):
    """Whether two intervals do not overlap."""
    return (one is not None and other is not None
            and (one[1] < other[0] or other[1] < one[0]))


def processes(record):
    """How many worker processes measured ``record``."""
    return len(record.run_values) or 1


def _with_cost(found):
    """An answer with what measuring its benchmarks cost; one that read
    benchmarks given more worker processes than their first look says
    how many the most measured of them got."""
    if found.missing or not found.read:
        return found
    found = replace(found, cost=cost(found.read))
    if not any(r.looks > 1 or EXTENDED_KEY in r.recorded_runs
               for r in found.read):
        return found
    most = max(processes(r) for r in found.read)
    return replace(found, note=cells.spaced(
        "(up to %d processes)" % most, found.note))


def cost(records):
    """What measuring ``records`` cost: {"seconds" (their programs' wall
    time, 0 where not recorded), "looks", "decision_looks" (the most of
    any), "processes", "values" (per process; [fewest, most]), "stopped"
    (why, each reason once)}."""
    per_process = [len(values) for r in records for values in r.run_values]
    counts = [processes(r) for r in records]
    return {"seconds": round(sum(r.recorded.get(SECONDS_KEY, 0.0)
                                 for r in records), 1),
            "looks": max(r.looks for r in records),
            "decision_looks": max(r.decision_looks for r in records),
            "processes": [min(counts), max(counts)],
            "values": [min(per_process or [0]), max(per_process or [0])],
            "stopped": sorted({r.stopped or "fixed" for r in records})}


def cost_wording(found):
    """The cost as words: "2-6 worker processes x 2-3 values, 3 looks,
    4.1 s; stopped: decided, narrow; interval widened for 2 decision
    looks"."""
    def span(pair):
        return "%d" % pair[0] if pair[0] == pair[1] else "%d-%d" % tuple(pair)
    said = "%s worker processes x %s values, %d look%s%s; stopped: %s" % (
        span(found["processes"]), span(found["values"]), found["looks"],
        "" if found["looks"] == 1 else "s",
        ", %.1f s" % found["seconds"] if found["seconds"] else "",
        ", ".join(found["stopped"]))
    if found["decision_looks"] > 1:
        said += "; interval widened for %d decision looks" % found[
            "decision_looks"]
    return said
