"""``compare``'s answers check: which findings changed their answer.

Each side's findings are answered from its own file alone.  An answer
has a verdict where its kind makes one: a best-of names its winner, a
comparison (ratio, speedup, efficiency) is above 1, below 1 or undecided
(its interval reaches 1), and a reason is "n/a".  A verdict that differs
is a changed answer; so is a number without a verdict (a value, a
throughput, a crossover) whose two intervals no longer overlap.
"""
from __future__ import annotations

from dataclasses import dataclass

from gilbench.report.data.records import Table, label
from gilbench.report.tables import pivot, questions

TITLE = "Changed answers"
NOTE = ("Findings whose answer changed: a best-of's winner, a comparison "
        "now above, below or across 1 (undecided), an answer that became "
        "n/a; or a number whose intervals no longer overlap.")


@dataclass
class ChangedAnswer:
    family: str
    question: str
    pair: str  # which files, as compare's Change.pair
    base: object  # Cell
    changed: object  # Cell
    why: str


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


def _apart(base, changed):
    """Whether two answers' intervals no longer overlap."""
    if base.interval is None or changed.interval is None:
        return False
    return base.interval[1] < changed.interval[0] or \
        changed.interval[1] < base.interval[0]


def why_changed(kind, base, changed):
    """Why the answer changed, or None when it did not."""
    before, after = verdict(kind, base), verdict(kind, changed)
    if before != after:
        return "%s -> %s" % (before or "a number", after or "a number")
    if before is None and _apart(base, changed):
        return "intervals apart"
    return None


def changes(base_file, changed_file, pair):
    """([ChangedAnswer], how many answers both files give)."""
    sides = [questions.findings_table([one], pivot.family_order([one]))
             for one in (base_file, changed_file)]
    answered = {(row.family, row.question): row for row in sides[1].rows}
    found, compared = [], 0
    for row in sides[0].rows:
        other = answered.get((row.family, row.question))
        if other is None:
            continue
        compared += 1
        kind = row.declaration["cell"]["kind"]
        why = why_changed(kind, row.answers[0], other.answers[0])
        if why:
            found.append(ChangedAnswer(row.family, row.question, pair,
                                       row.answers[0], other.answers[0],
                                       why))
    return found, compared


def table(found):
    return Table(TITLE, NOTE,
                 [label(h) for h in ("Question", "Interpreter", "Base",
                                     "Changed", "What changed")],
                 [[label(c.question), label(c.pair), c.base, c.changed,
                   label(c.why)] for c in found])
