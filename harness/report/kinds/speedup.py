"""``speedup``: the baseline twin's time over this one's."""
from __future__ import annotations

import math

from gilbench.report.data.records import Cell
from gilbench.report.kinds.base import (
    Ideal,
    Judged,
    Level,
    compared,
    equals,
    is_number,
    ratio_interval,
    twin_missing,
)
from gilbench.report.numbers import cells, intervals
from gilbench.report.numbers.cells import NOT_RUN, spaced


class Speedup(Judged):
    """Baseline twin's mean / this mean (x this over / baseline over when
    ``scaled``).  ``over`` is an ordinary dimension here: the baseline has
    a row (or column) of its own, at 1.00x."""

    def judged(self, lookup, dims):
        measured = self.measure(lookup, dims)
        if isinstance(measured, Cell):
            return measured, None
        speedup, interval, this, base = measured
        flags, significant, same = self._flags(interval, this, base)
        return Cell("", speedup, speedup * math.hypot(this.rsd, base.rsd),
                    flags, interval=interval, significant=significant,
                    same=same), (this, base)

    def wording(self, found, context):
        this, base = context
        return spaced(self.brief(found, context), "(%s -> %s)" % (
            cells.format_quantity(base.mean, base.unit),
            cells.format_quantity(this.mean, this.unit)))

    def compact(self, found, context):
        return cells.compact_multiple(found.value)

    def stated(self, found, context):
        return cells.multiple(found.value)

    def measure(self, lookup, dims):
        """(speedup, interval, this record, baseline record), or a Cell
        saying why there is none."""
        over, baseline = self.spec["over"], self.spec["baseline"]
        this, reason = lookup.get(dims)
        base, base_reason = lookup.get({**dims, over: baseline})
        if this is None or base is None:
            if reason == NOT_RUN == base_reason:
                return cells.missing(NOT_RUN)
            return cells.missing(cells.first_reason(
                [reason, twin_missing(base_reason, over, baseline)]))
        factor = 1.0
        if self.spec["scaled"]:
            if not (is_number(dims[over]) and is_number(baseline)):
                return cells.missing("n/a: %s is not numeric" % over)
            factor = dims[over] / baseline
        speedup = (factor if this is base
                   else intervals.ratio_point(base, this) * factor)
        interval = None if this is base else ratio_interval(base, this,
                                                            factor)
        return speedup, interval, this, base

    def draws(self, lookup, dims):
        measured = self.measure(lookup, dims)
        if isinstance(measured, Cell) or measured[2] is measured[3]:
            return None
        speedup, _, this, base = measured
        drawn = intervals.SHARED.ratio(base, this)
        return None if drawn is None else drawn * (
            speedup / intervals.ratio_point(base, this))

    def _flags(self, interval, this, base):
        """(flags, significant, same); the baseline's own cell compares
        nothing, so it is neither."""
        if this is base:
            return cells.flags(this), None, None
        return compared(interval, this, base, margin=self.margin)

    def describe(self, grid):
        over, baseline = self.spec["over"], self.spec["baseline"]
        text = "Speedup: the %s time / this time" % equals(over, baseline)
        if self.spec["scaled"]:
            text += (" x %s/%s (each loop's work grows with %s)"
                     % (over, baseline, over))
        return text + ("; in parentheses the %s time -> this time. %s"
                       % (equals(over, baseline), intervals.NOTE))

    def y_label(self):
        return "speedup over %s" % equals(self.spec["over"],
                                          self.spec["baseline"])

    def reference_line(self, row_dim, row_values):
        """The ideal speedup (x / baseline) along its own numeric axis,
        else 1."""
        over, baseline = self.spec["over"], self.spec["baseline"]
        if (row_dim == over and is_number(baseline) and baseline > 0
                and row_values and all(map(is_number, row_values))):
            return Ideal([x / baseline for x in row_values],
                         "ideal (x %s/%s)" % (over, baseline))
        return Level("1 (no speedup)")
