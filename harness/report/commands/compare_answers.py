"""``compare``'s answers check: which findings changed their answer.

Each side's findings are answered from its own file alone.  An answer
has a verdict where its kind makes one: a best-of names its winner, a
comparison (ratio, speedup, efficiency) is above 1, below 1 or undecided
(its interval reaches 1), and a reason is "n/a".  A verdict that differs
is a changed answer; so is a number without a verdict (a value, a
throughput, a crossover) whose two intervals no longer overlap.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy

from gilbench.model.resultformat import BUSY_SHARE
from gilbench.report import kinds
from gilbench.report.data.lookup import Lookup
from gilbench.report.data.records import Table, label
from gilbench.report.numbers import cells, intervals
from gilbench.report.tables import pivot, questions

TITLE = "Changed answers"
NOTE = ("Findings whose answer changed: a best-of's winner, a comparison "
        "now above, below or across 1 (undecided), an answer that became "
        "n/a; a number whose intervals no longer overlap; or one whose "
        "change (changed / base, drawn from both sides' bootstrap draws, "
        "so what they share cancels) lies wholly beyond its margin.")


@dataclass
class ChangedAnswer:
    family: str
    question: str
    pair: str  # which files, as compare's Change.pair
    base: object  # Cell
    changed: object  # Cell
    why: str
    margin: float = intervals.MARGIN  # the finding's (a share)
    kind: str = ""  # its cell's kind (speedup, efficiency, ratio...)
    moved: tuple | None = None  # (changed / base, its interval), or None


def verdict(kind, found):
    """What an answer decides, or None when it only measures."""
    if found.missing:
        return "n/a"
    if found.same is not None:
        return "tied" if kind == "best" else "the same"
    if kind == "best":
        return str(found.winner) if found.significant else "undecided"
    if found.significant is True:
        return "above 1" if found.value > 1 else "below 1"
    if found.significant is False:
        return "undecided"
    return None


def why_changed(kind, base, changed, moved=None, margin=intervals.MARGIN):
    """Why the answer changed, or None when it did not.  ``moved``: the
    change's (ratio, interval), where the kind draws its number."""
    before, after = verdict(kind, base), verdict(kind, changed)
    if before != after:
        return "%s -> %s" % (before or "a number", after or "a number")
    if questions.apart(base.interval, changed.interval):  # another number
        return "intervals apart"
    if moved is not None and _outside(moved[1], margin):
        return "moved %s" % _ratio_text(moved)
    return None


def _outside(interval, margin):
    """Whether a ratio's interval lies wholly beyond ``margin`` of 1."""
    return interval[1] < 1 / (1 + margin) or interval[0] > 1 + margin


def _ratio_text(moved):
    ratio, (low, high) = moved
    return "%.2fx [%.2f-%.2f]" % (ratio, low, high)


def moved(base_file, changed_file, row):
    """(changed / base, its 95% interval) of a finding's number: the
    ratio of the two sides' bootstrap draws, which share what both read
    (the ceiling; a block's shift, when one run measured both sides), so
    it cancels; None where a side or the kind has no draws."""
    declaration, family = row.declaration, row.family
    found = []
    for result in (base_file, changed_file):
        records = [r for r in result.records if r.dims["family"] == family]
        kind = kinds.make({"cell": declaration["cell"], "note": "",
                           "margin": declaration.get("margin")},
                          pivot.family_axes([result], family),
                          pivot.ceiling_lookup([result]))
        found.append(questions.answer_draws(
            kind, declaration, records, Lookup(records), result.interpreter,
            result.planned_cpus))
    if found[0] is None or found[1] is None:
        return None
    with numpy.errstate(divide="ignore", invalid="ignore"):
        ratio = found[1] / found[0]
    if not (numpy.isfinite(ratio).all() and (ratio > 0).all()):
        return None
    return (float(numpy.median(ratio)), intervals.bounds(ratio))


@dataclass
class Answers:
    """What ``changes`` found between two files."""
    changed: list  # ChangedAnswers whose answer changed
    compared: int  # how many answers both files give
    blind: list  # ChangedAnswers a busy machine hides (cannot_tell)


def changes(base_file, changed_file, pair):
    """The Answers of two files: those changed, how many both give, and
    those a busy machine hides (changed or not)."""
    sides = [questions.findings_table([one], pivot.family_order([one]))
             for one in (base_file, changed_file)]
    answered = dict(zip(_keys(sides[1].rows), sides[1].rows))
    found = Answers([], 0, [])
    for key, row in zip(_keys(sides[0].rows), sides[0].rows):
        other = answered.get(key)
        if other is None:
            continue
        found.compared += 1
        kind = row.declaration["cell"]["kind"]
        margin = row.declaration.get("margin") or intervals.MARGIN
        change = (moved(base_file, changed_file, row)
                  if row.family in base_file.tables else None)
        why = why_changed(kind, row.answers[0], other.answers[0], change,
                          margin)
        if why and split_alone(row.answers[0], other.answers[0]):
            why += ("; the changed side's processes split (#): read from "
                    "each side's interval")
        answer = ChangedAnswer(row.family, row.question, pair,
                               row.answers[0], other.answers[0],
                               why or "unchanged", margin, kind, change)
        if why:
            found.changed.append(answer)
        if (cannot_tell(answer)
                and not one_measurement(answer.base, answer.changed)):
            found.blind.append(answer)
    return found


def _keys(rows):
    """Each row's (family, question, how many rows before it ask the
    same): a question may repeat ("... efficiency against this machine's
    ceiling?" after each count's speedup), and its k-th asking pairs with
    the other side's k-th."""
    seen = {}
    keys = []
    for row in rows:
        asked = (row.family, row.question)
        keys.append(asked + (seen.get(asked, 0),))
        seen[asked] = seen.get(asked, 0) + 1
    return keys


# The kinds that say how a call scales: the check fails on their fall.
SCALING_KINDS = ("speedup", "efficiency")


def stopped_scaling(found):
    """Whether a ChangedAnswer says the change made a call scale worse,
    for certain and by more than its finding's margin: a speedup or an
    efficiency whose change (changed / base) lies wholly below 1 / (1 +
    margin) -- where the kind has no draws, whose two intervals are apart
    and whose value fell by more than the margin (a verdict changing at a
    threshold is not enough: 0.93 "the same" and 0.90 "below 1" can both
    hold of one call); or any answer that became n/a (the change broke
    it).  Other answers that moved (a ratio, a time, a winner) are listed,
    not failed: where processes fall into modes, two builds of one source
    can differ by more than their intervals (docs/your-extension.rst).
    Where only the changed side's processes split (:func:`split_alone`),
    the two answers' own intervals decide, as where there are no draws."""
    base, changed = found.base, found.changed
    if changed.missing or base.missing:
        return changed.missing and not base.missing
    if found.kind not in SCALING_KINDS:
        return False
    if found.moved is not None and not split_alone(base, changed):
        # The change's own interval decides.
        return found.moved[1][1] < 1 / (1 + found.margin)
    if not (questions.apart(base.interval, changed.interval)
            and base.value and changed.value
            and base.value * changed.value > 0):
        return False
    return math.log(base.value / changed.value) > math.log1p(found.margin)


def one_measurement(base, changed):
    """Whether two cells read the very same benchmarks (the ceiling's,
    which both sides share): an answer the change cannot move."""
    return bool(base.read) and ({r.name for r in base.read}
                                == {r.name for r in changed.read})


def busy(cell):
    """Whether a cell read values measured on a busy machine (!)."""
    return cells.BUSY_MARK in (cell.flags or "")


def cannot_tell(found):
    """Whether the check cannot tell if a scaling answer fell: a side was
    measured while other processes took a real share of the CPUs (!),
    and it did not fall for certain.  Where the work's threads cannot
    run at once, neither can the ceiling's, so a call that stopped
    scaling reads as one that scales -- a busy side's answer says
    nothing of the change, and passing it would be a false pass."""
    return ((busy(found.base) or busy(found.changed))
            and found.kind in SCALING_KINDS and not stopped_scaling(found))


def split_alone(base, changed):
    """Whether the changed side's worker processes split into modes (#)
    where the base's agree.  Some of its processes may then scale as the
    base's do and some not (a GIL convoy's share of serialised
    processes): its mean reads how many fell into the slow mode, which
    the change's shared draws, each side's one mode, cannot carry.  Each
    side's own interval does (a split benchmark keeps its own spread)."""
    return (cells.SPLIT_MARK in (changed.flags or "")
            and cells.SPLIT_MARK not in (base.flags or ""))


def said(found):
    """One line naming a changed answer: question, interpreter, before ->
    after (and the change's ratio, where drawn)."""
    return "%s [%s]: %s -> %s%s" % (
        found.question, found.pair, found.base.display,
        found.changed.display,
        "; %s" % _ratio_text(found.moved) if found.moved else "")


BLIND_TITLE = "Answers the check cannot tell"
BLIND_NOTE = ("Speedups and efficiencies a side of which was measured on a "
              "busy machine (!: other processes took over %d%% of its CPUs, "
              "and again when measured a second time): the ceiling cannot "
              "rise there either, so a call that stopped scaling reads as "
              "one that scales.  Run the check again on a quiet machine."
              % (BUSY_SHARE * 100))


def table(found, title=TITLE, note=NOTE):
    return Table(title, note,
                 [label(h) for h in ("Question", "Interpreter", "Base",
                                     "Changed", "Changed / base",
                                     "What changed")],
                 [[label(c.question), label(c.pair), c.base, c.changed,
                   label(_ratio_text(c.moved) if c.moved else "-"),
                   label(c.why)] for c in found])
