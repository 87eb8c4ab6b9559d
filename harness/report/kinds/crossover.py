"""``crossover``: from which value along an axis a ratio crosses 1."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy

from gilbench.report.data.records import Cell
from gilbench.report.kinds.base import equals, interval_text, is_number
from gilbench.report.kinds.ratio import Ratio
from gilbench.report.numbers import cells, intervals
from gilbench.report.numbers.cells import NOT_RUN, spaced

ALWAYS = "always"
NEVER = "never in range"


class Crossover(Ratio):
    """Along a numeric axis, where the ratio falls to 1 or below for good
    (or, ``rises``, climbs to 1 or above), interpolated on a log scale of
    the axis (linearly from 0)."""

    @property
    def consumed(self):
        return (self.spec["over"], self.spec["along"])

    def points(self, lookup, dims):
        """([(x, numerator, denominator)], reasons, fallback used)."""
        along = self.spec["along"]
        anchor = {**dims, self.spec["over"]: self.spec["numerator"]}
        xs = sorted(x for x in lookup.values(anchor, along) if is_number(x))
        points, reasons, fallback = [], [], False
        for x in xs:
            num, den, reason, used = self.pair(lookup, {**dims, along: x})
            fallback = fallback or used
            if num is None or den is None:
                reasons.append(reason)
            else:
                points.append((x, num, den))
        if not xs:
            reasons.append(NOT_RUN)
        return points, reasons, fallback

    def _crossing(self, xs, ratios):
        if self.spec.get("rises"):
            ratios = [1.0 / r for r in ratios]
        return crossing(list(zip(xs, ratios)))

    def measure(self, lookup, dims):
        points, reasons, fallback = self.points(lookup, dims)
        failed = cells.problem(reasons)
        if len(points) < 2 or failed:
            why = (cells.first_reason(reasons)
                   or "n/a: only one %s measured" % self.spec["along"])
            return Cell(why, missing=True, fallback=fallback), None
        marks = cells.flags(*[r for p in points for r in p[1:]])
        xs = [p[0] for p in points]
        x = self._crossing(xs, [n.mean / d.mean for _, n, d in points])
        interval = self._interval(points)
        return Cell("", None if isinstance(x, str) else x, flags=marks,
                    fallback=fallback, interval=interval), x

    def _interval(self, points):
        """The crossing of each resample: ALWAYS counts as -inf, NEVER as
        +inf, so the bounds may say either."""
        ratios = [_ratio_samples(n, d) for _, n, d in points]
        if any(r is None for r in ratios):
            return None
        xs = [p[0] for p in points]
        found = []
        for sample in numpy.stack(ratios, axis=1):
            x = self._crossing(xs, sample)
            found.append(-math.inf if x == ALWAYS
                         else math.inf if x == NEVER else x)
        return intervals.bounds(found)

    def _text(self, found, x):
        if isinstance(x, str):
            # Every resample agreeing with "never"/"always" adds nothing.
            same = found.interval is not None and (
                found.interval[0] == found.interval[1]
                and math.isinf(found.interval[0]))
            return spaced(x, "" if same
                           else self._interval_text(found.interval))
        return spaced(cells.significant(x), self.unit(),
                       self._interval_text(found.interval))

    def _interval_text(self, interval):
        def bound(number):
            if math.isinf(number):
                return ALWAYS if number < 0 else "never"
            return cells.significant(number)
        return interval_text(interval, bound)

    def cell(self, lookup, dims):
        found, x = self.measure(lookup, dims)
        if found.missing:
            return found
        brief = x if isinstance(x, str) else spaced(cells.significant(x),
                                                    self.unit())
        return replace(found, text=self._text(found, x), brief=brief)

    answer = cell

    def unit(self):
        axis = self.axes.get(self.spec["along"], {})
        return self.spec["unit"] or axis.get("unit") or ""

    def describe(self, grid):
        bound = "climbs to 1 or above" if self.spec.get("rises") \
            else "stays <= 1"
        side = "below" if self.spec.get("rises") else "above"
        return ("The smallest %s from which %s / %s %s, "
                "interpolated on a log scale of %s between the last point "
                "%s 1 and the next (\"always\": no point is %s 1; "
                "\"never in range\": the last one is). %s \"always\" "
                "and \"never\" in it bound what the resamples found." % (
                    self.spec["along"],
                    equals(self.spec["over"], self.spec["numerator"]),
                    equals(self.spec["over"], self.spec["denominator"]),
                    bound, self.spec["along"], side, side,
                    intervals.NOTE))

    def note(self, grid):
        return self.describe(grid) + (
            " " + self.declaration["note"] if self.declaration["note"]
            else "")

    def y_label(self):
        return "%s (%s)" % (self.spec["along"], self.spec["unit"] or "")

    def reference_line(self, row_dim, row_values):
        return None


def _ratio_samples(numerator, denominator):
    top = intervals.SHARED.means(numerator)
    bottom = intervals.SHARED.means(denominator)
    return None if top is None or bottom is None else top / bottom


def crossing(points):
    """The smallest x from which r stays <= 1, from (x, r) points sorted by
    x: ALWAYS, NEVER, or x interpolated between the last point above 1 and
    the next, with log(x) linear in r (x linear when the lower x is 0)."""
    above = [i for i, (_, r) in enumerate(points) if r > 1]
    if not above:
        return ALWAYS
    if above[-1] == len(points) - 1:
        return NEVER
    (x0, r0), (x1, r1) = points[above[-1]], points[above[-1] + 1]
    t = (r0 - 1) / (r0 - r1)
    if x0 <= 0:
        return x0 + t * (x1 - x0)
    return math.exp(math.log(x0) + t * (math.log(x1) - math.log(x0)))
