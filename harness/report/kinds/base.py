"""What every cell kind builds on (gilbench.report.kinds): the Kind and
Judged bases, the declaration check, and the pieces of wording and
interval the kinds share."""
from __future__ import annotations

import numbers
from dataclasses import dataclass, replace

from gilbench.model.resultformat import CELL_KEYS, TABLE_KEYS
from gilbench.report.numbers import cells, intervals
from gilbench.report.numbers.cells import NOT_RUN, spaced


def problem(declaration, keys=TABLE_KEYS):
    """Why a table (or, with FINDING_KEYS, finding) declaration from a
    result file cannot be drawn, or None."""
    if not isinstance(declaration, dict):
        return "a declaration must be an object"
    lacking = [k for k in keys if k not in declaration]
    cell = declaration.get("cell")
    if not lacking and not isinstance(cell, dict):
        return "its cell must be an object"
    if not lacking and cell.get("kind") not in CELL_KEYS:
        return "unknown cell kind %r" % (cell.get("kind"),)
    if not lacking:
        lacking = [k for k in CELL_KEYS[cell["kind"]] if k not in cell]
    return "no %s" % ", ".join(lacking) if lacking else None


def is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def equals(dim, value):
    return "%s=%s" % (dim, value)


def twin_missing(reason, dim, value):
    """A twin that is not in the result file is named, never "not
    run"."""
    if reason == NOT_RUN:
        return "n/a: no %s benchmark" % equals(dim, value)
    return reason


def interval_text(interval, number=cells.significant):
    if interval is None:
        return ""
    return "[%s-%s]" % (number(interval[0]), number(interval[1]))


def ratio_interval(numerator, denominator, factor=1.0):
    """The bootstrap interval of numerator mean / denominator mean x
    factor, or None when either has too few values."""
    drawn = intervals.SHARED.ratio(numerator, denominator)
    return None if drawn is None else intervals.bounds(drawn * factor)


def compared(interval, *records, margin=intervals.MARGIN):
    """A comparison's Cell pieces: (flags, significant, same)."""
    significant, same = intervals.decided(interval, margin)
    return (cells.flags(*records, significant=significant, same=same),
            significant, same)


def margin_of(declaration):
    """The smallest difference that matters to a table or finding: its
    own where it declares one, else intervals.MARGIN."""
    return declaration.get("margin") or intervals.MARGIN


class Kind:
    """What every cell kind shares: its declaration, the family's axes,
    this machine's ceiling; its anchors, answer and note; and what a plot
    of it needs (gilbench.report.pages.plots asks: the y axis's label and
    number format, whether a wide range is drawn on a log scale, and
    the reference line)."""
    consumed = ()
    y_format = None  # "seconds", "si" or None (matplotlib's own)
    log_when_wide = False  # values that span factors: times, rates

    def __init__(self, declaration, axes, ceiling=None):
        self.declaration = declaration
        self.spec = declaration["cell"]
        self.axes = axes
        self.ceiling = ceiling  # this machine's lookup.Ceiling, or None
        self.margin = margin_of(declaration)

    def anchors(self, records):
        """The records that give a table its rows and columns."""
        return records

    def cell(self, lookup, dims):
        raise NotImplementedError

    def answer(self, lookup, dims):
        """A finding's compact answer; a table cell unless a kind says."""
        return self.cell(lookup, dims)

    def draws(self, lookup, dims):
        """The bootstrap draws of the answer's number (intervals.SHARED's:
        two answers read from one load share their benchmarks' and
        blocks' draws), or None where the kind has none."""
        return None

    def describe(self, grid):
        raise NotImplementedError

    def note(self, grid):
        extra = self.declaration["note"]
        return self.describe(grid) + (" " + extra if extra else "")

    def y_label(self):
        """What a plot's y axis says the cells are."""
        raise NotImplementedError

    def reference_line(self, row_dim, row_values):
        """The line a plot draws to read the cells against: a Level, an
        Ideal along numeric ``row_values``, or None."""
        return None


@dataclass(frozen=True)
class Level:
    """A horizontal line at 1 (break-even, perfect, no speedup)."""
    label: str
    style: str = ":"


@dataclass(frozen=True)
class Ideal:
    """The ideal speedup along the rows: ys at each row value."""
    ys: list
    label: str


class Judged(Kind):
    """A kind whose table cell and finding answer share one computation:
    ``judged`` gives a Cell without text (value, interval, flags) and what
    the wording needs, or a Cell saying why there is none and None; the
    cell words it in full (``wording``), the answer briefly (``brief``),
    and a compact matrix by its number alone (``compact``)."""

    def judged(self, lookup, dims):
        raise NotImplementedError

    def cell(self, lookup, dims):
        found, context = self.judged(lookup, dims)
        if context is None:
            return found
        return _unless_too_noisy(replace(found, text=self.said_same(
            found, self.wording(found, context))))

    def brief(self, found, context):
        return spaced(self.stated(found, context),
                      interval_text(found.interval))

    def stated(self, found, context):
        """The answer's number as its interval states it; the compact
        cell's may round it further."""
        return self.compact(found, context)

    def compact(self, found, context):
        raise NotImplementedError

    def answer(self, lookup, dims):
        found, context = self.judged(lookup, dims)
        if context is None:
            return found
        return _unless_too_noisy(replace(
            found, text=self.said_same(found, self.brief(found, context)),
            brief=self.compact(found, context)))

    def said_same(self, found, text):
        """``text`` with ", the same within 4%" where ``found`` says so."""
        if found.same is None:
            return text
        return "%s, %s" % (text, cells.within(found.same))


TOO_NOISY_WORDS = "too noisy to tell"
TOO_NOISY_BRIEF = "noisy"


def _unless_too_noisy(found):
    """A Cell whose interval spans more than cells.TOO_NOISY (high over
    low) says so instead of a number, and is never significant."""
    interval = found.interval
    if not cells.too_noisy(interval):
        return found
    flags = found.flags if cells.NOT_SIGNIFICANT_MARK in found.flags \
        else cells.NOT_SIGNIFICANT_MARK + found.flags
    return replace(found, text=spaced(TOO_NOISY_WORDS,
                                      interval_text(interval)),
                   brief=TOO_NOISY_BRIEF, significant=False, flags=flags)
