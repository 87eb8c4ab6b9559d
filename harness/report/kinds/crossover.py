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
# What a compact matrix shows of NEVER (its whole wording is a hover away).
NEVER_BRIEF = "never"


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

    def _falling(self, ratios):
        """``ratios`` (an array) as ones that cross 1 falling."""
        return 1.0 / ratios if self.spec.get("rises") else ratios

    def measure(self, lookup, dims):
        points, reasons, fallback = self.points(lookup, dims)
        failed = cells.problem(reasons)
        if len(points) < 2 or failed:
            why = (cells.first_reason(reasons)
                   or "n/a: only one %s measured" % self.spec["along"])
            return Cell(why, missing=True, fallback=fallback), None
        marks = cells.flags(*[r for p in points for r in p[1:]])
        xs = [p[0] for p in points]
        x = crossing(list(zip(xs, self._falling(numpy.array(
            [n.mean / d.mean for _, n, d in points])))))
        interval = self._interval(points)
        return Cell("", None if isinstance(x, str) else x, flags=marks,
                    fallback=fallback, interval=interval), x

    def _interval(self, points):
        """The crossing of each resample: ALWAYS counts as -inf, NEVER as
        +inf, so the bounds may say either."""
        ratios = [_ratio_samples(n, d) for _, n, d in points]
        if any(r is None for r in ratios):
            return None
        return intervals.bounds(crossings(
            [p[0] for p in points],
            self._falling(numpy.stack(ratios, axis=1))))

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
        if isinstance(x, str):
            brief = NEVER_BRIEF if x == NEVER else x
        else:
            brief = spaced(cells.compact(x), self.unit())
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
    x = float(crossings([x for x, _ in points], [[r for _, r in points]])[0])
    return ALWAYS if x == -math.inf else NEVER if x == math.inf else x


def crossings(xs, ratios):
    """``crossing`` of each row of ``ratios`` (a ratio per x of ``xs``,
    sorted) at once, ALWAYS as -inf and NEVER as +inf: a crossover's
    interval asks it of every resample."""
    xs = numpy.asarray(xs, dtype=float)
    ratios = numpy.atleast_2d(numpy.asarray(ratios, dtype=float))
    above = ratios > 1
    count = ratios.shape[1]
    # The last point above 1 in each row (-1: none).
    last = numpy.where(above.any(axis=1),
                       count - 1 - numpy.argmax(above[:, ::-1], axis=1), -1)
    found = numpy.where(last == count - 1, math.inf, -math.inf)
    rows = numpy.nonzero((last >= 0) & (last < count - 1))[0]
    at = last[rows]
    r0, r1 = ratios[rows, at], ratios[rows, at + 1]
    x0, x1 = xs[at], xs[at + 1]
    t = (r0 - 1) / (r0 - r1)
    with numpy.errstate(divide="ignore", invalid="ignore"):
        logged = numpy.exp(numpy.log(x0) + t * (numpy.log(x1)
                                                - numpy.log(x0)))
    found[rows] = numpy.where(x0 <= 0, x0 + t * (x1 - x0), logged)
    return found
