"""``ratio``: the numerator twin over the denominator twin."""
from __future__ import annotations

import math

from gilbench.report.data.records import Cell
from gilbench.report.kinds.base import (
    Judged,
    Level,
    compared,
    equals,
    interval_text,
    ratio_interval,
    twin_missing,
)
from gilbench.report.numbers import cells, intervals
from gilbench.report.numbers.cells import NOT_RUN, spaced


class Ratio(Judged):
    """Numerator twin / denominator twin over a consumed dimension."""

    @property
    def consumed(self):
        return (self.spec["over"],)

    def anchors(self, records):
        over = self.spec["over"]
        return [r for r in records
                if r.dims.get(over) == self.spec["numerator"]]

    def denominator(self, lookup, dims):
        """(record or None, reason, whether the fallback twin was used).

        The declared fallback is tried when the exact twin has no value,
        and taken when it has one or the exact twin was never registered
        (e.g. cffi has no GIL-held call, so it is divided by Cython's).
        """
        twin = {**dims, self.spec["over"]: self.spec["denominator"]}
        found, reason = lookup.get(twin)
        alternative = {**twin, **self.spec["fallback"]}
        if found is None and alternative != twin:
            alt_found, alt_reason = lookup.get(alternative)
            if alt_found is not None or reason == NOT_RUN:
                return alt_found, alt_reason, True
        return found, reason, False

    def pair(self, lookup, dims):
        """(numerator, denominator, reason, fallback used)."""
        over = self.spec["over"]
        numerator, reason = lookup.get({**dims, over: self.spec["numerator"]})
        denominator, den_reason, fallback = self.denominator(lookup, dims)
        if reason == NOT_RUN and den_reason == NOT_RUN:
            return numerator, denominator, NOT_RUN, fallback
        reason = cells.first_reason([
            twin_missing(reason, over, self.spec["numerator"]),
            twin_missing(den_reason, over, self.spec["denominator"])])
        return numerator, denominator, reason, fallback

    def judged(self, lookup, dims):
        """A Cell without text and the pair it divided, or a Cell saying
        why there is none and None."""
        numerator, denominator, reason, fallback = self.pair(lookup, dims)
        if numerator is None or denominator is None:
            return Cell(reason, missing=True, fallback=fallback), None
        ratio = intervals.ratio_point(numerator, denominator)
        interval = ratio_interval(numerator, denominator)
        flags, significant, same = compared(interval, numerator,
                                            denominator, margin=self.margin)
        return Cell("", ratio,
                    ratio * math.hypot(numerator.rsd, denominator.rsd),
                    flags, fallback=fallback, interval=interval,
                    significant=significant, same=same), (numerator,
                                                          denominator)

    def draws(self, lookup, dims):
        numerator, denominator, _, _ = self.pair(lookup, dims)
        if numerator is None or denominator is None:
            return None
        return intervals.SHARED.ratio(numerator, denominator)

    def wording(self, found, pair):
        numerator, denominator = pair
        return spaced(cells.factor(found.value),
                       interval_text(found.interval), "(%s/%s)" % (
                           cells.format_quantity(numerator.mean,
                                                 numerator.unit),
                           cells.format_quantity(denominator.mean,
                                                 denominator.unit)))

    def compact(self, found, pair):
        return cells.compact_multiple(found.value)

    def stated(self, found, context):
        return cells.multiple(found.value)

    def division(self):
        over = self.spec["over"]
        return "%s divided by %s" % (
            equals(over, self.spec["numerator"]),
            equals(over, self.spec["denominator"]))

    def describe(self, grid):
        return "%s. %s" % (self.division(), intervals.NOTE)

    def note(self, grid):
        """The division; the fallback and the declared note (which then
        usually explains the fallback) only where the fallback was used;
        then how the interval is made."""
        text = self.division()
        declared = self.declaration["note"]
        method = " " + intervals.NOTE
        if self.spec["fallback"]:
            if not any(c.fallback for row in grid for c in row):
                return text + "." + method
            alt = ", ".join("%s=%s" % kv
                            for kv in sorted(self.spec["fallback"].items()))
            text += " (or, where there is no such twin, with %s)" % alt
            return text + (": " + declared.rstrip(".") + "." if declared
                           else ".") + method
        return text + "." + (" " + declared if declared else "") + method

    def y_label(self):
        return "%s / %s" % (equals(self.spec["over"], self.spec["numerator"]),
                            self.spec["denominator"])

    def reference_line(self, row_dim, row_values):
        return Level("1 (break-even)", style="--")
