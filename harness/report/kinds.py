"""The cell kinds of declared tables (see gilbench.model.tables): what a cell
computes from the records, and the note that says so under its table.

Each kind gives a table cell (``cell``: the number with its interval and
what it was computed from) and a finding's compact answer (``answer``:
the number and its interval).  Derived numbers carry a bootstrap interval
(gilbench.report.intervals); a comparison whose interval holds 1 (or a
best-of whose runner-up is within reach) is flagged not significant.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import replace

import numpy

from gilbench.model.resultformat import CELL_KEYS, TABLE_KEYS
from gilbench.report import cells, intervals
from gilbench.report.cells import NOT_RUN, spaced
from gilbench.report.model import Cell

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


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _equals(dim, value):
    return "%s=%s" % (dim, value)


def _twin_missing(reason, dim, value):
    """A twin that is not in the result file is named, never "not
    run"."""
    if reason == NOT_RUN:
        return "n/a: no %s benchmark" % _equals(dim, value)
    return reason


def interval_text(interval, number=cells.significant):
    if interval is None:
        return ""
    return "[%s-%s]" % (number(interval[0]), number(interval[1]))


def ratio_interval(numerator, denominator, factor=1.0):
    """The bootstrap interval of numerator mean / denominator mean x
    factor, or None when either has too few values."""
    top = intervals.SHARED.means(numerator)
    bottom = intervals.SHARED.means(denominator)
    if top is None or bottom is None:
        return None
    return intervals.bounds(top / bottom * factor)


def _compared(interval, *records):
    """A comparison's Cell pieces: (flags, significant)."""
    significant = intervals.excludes(interval)
    return cells.flags(*records, significant=significant), significant


class Value:
    """The mean, per loop or (``per_op``) per operation."""
    consumed = ()

    def __init__(self, declaration, axes, ceiling=None):
        self.declaration = declaration
        self.spec = declaration["cell"]
        self.axes = axes
        self.ceiling = ceiling  # a Lookup of the ceiling family, or None

    def anchors(self, records):
        """The records that give a table its rows and columns."""
        return records

    def cell(self, lookup, dims):
        record, reason = lookup.get(dims)
        if record is None:
            return cells.missing(reason)
        ops = record.ops_per_loop if self.spec["per_op"] else 1
        return Cell(cells.format_quantity(record.mean / ops, record.unit),
                    record.mean / ops, record.stdev / ops,
                    cells.flags(record))

    def answer(self, lookup, dims):
        """A finding's compact answer; a table cell unless a kind says."""
        return self.cell(lookup, dims)

    def describe(self, grid):
        if self.spec["per_op"]:
            return "Mean time per operation (per loop / ops_per_loop)."
        return "Mean time per loop."

    def note(self, grid):
        extra = self.declaration["note"]
        return self.describe(grid) + (" " + extra if extra else "")


class Judged(Value):
    """A kind whose table cell and finding answer share one computation:
    ``judged`` gives a Cell without text (value, interval, flags) and what
    the wording needs, or a Cell saying why there is none and None; the
    cell words it in full (``wording``), the answer briefly (``brief``)."""

    def judged(self, lookup, dims):
        raise NotImplementedError

    def cell(self, lookup, dims):
        found, context = self.judged(lookup, dims)
        if context is None:
            return found
        return _unless_too_noisy(replace(found,
                                         text=self.wording(found, context)))

    def answer(self, lookup, dims):
        found, context = self.judged(lookup, dims)
        if context is None:
            return found
        return _unless_too_noisy(replace(found,
                                         text=self.brief(found, context)))


def _unless_too_noisy(found):
    """A Cell whose interval spans more than cells.TOO_NOISY (high over
    low) says so instead of a number, and is never significant."""
    interval = found.interval
    if not cells.too_noisy(interval):
        return found
    flags = found.flags if cells.NOT_SIGNIFICANT_MARK in found.flags \
        else cells.NOT_SIGNIFICANT_MARK + found.flags
    return replace(found, text=spaced("too noisy to tell",
                                      interval_text(interval)),
                   significant=False, flags=flags)


class Throughput(Value):
    """Operations per second: ops_per_loop / mean."""

    def cell(self, lookup, dims):
        record, reason = lookup.get(dims)
        if record is None:
            return cells.missing(reason)
        if record.unit != "second":
            return cells.missing("n/a: values are not times")
        rate = record.ops_per_loop / record.mean
        means = intervals.SHARED.means(record)
        interval = (None if means is None
                    else intervals.bounds(record.ops_per_loop / means))
        text = spaced("%s %s/s" % (cells.si(rate), self.spec["unit"]),
                       interval_text(interval, cells.si))
        return Cell(text, rate, rate * record.rsd, cells.flags(record),
                    interval=interval)

    def describe(self, grid):
        return ("%s per second: ops_per_loop / mean time per loop. %s"
                % (self.spec["unit"], intervals.NOTE))


class Recorded(Value):
    """A per-run number the case recorded, averaged over the runs."""

    def cell(self, lookup, dims):
        record, reason = lookup.get(dims)
        if record is None:
            return cells.missing(reason)
        key, unit = self.spec["key"], self.spec["unit"]
        number = record.recorded.get(key)
        if number is None:
            return cells.missing("n/a: not recorded")
        runs = record.recorded_runs.get(key, ())
        means = intervals.SHARED.means(record, runs)
        interval = None if means is None else intervals.bounds(means)
        text = spaced(cells.si(number) + (" " + unit if unit else ""),
                       interval_text(interval, cells.si))
        return Cell(text, number, None, cells.flags(record),
                    interval=interval)

    def describe(self, grid):
        return ("%s, as the case recorded it per run (mean over runs). %s"
                % (self.spec["key"],
                   intervals.NOTE.replace("pyperf values", "runs")))


class Speedup(Judged):
    """Baseline twin's mean / this mean (x this over / baseline over when
    ``scaled``).  ``over`` is an ordinary dimension here: the baseline has
    a row (or column) of its own, at 1.00x."""

    def judged(self, lookup, dims):
        measured = self.measure(lookup, dims)
        if isinstance(measured, Cell):
            return measured, None
        speedup, interval, this, base = measured
        flags, significant = self._flags(interval, this, base)
        return Cell("", speedup, speedup * math.hypot(this.rsd, base.rsd),
                    flags, interval=interval,
                    significant=significant), (this, base)

    def wording(self, found, context):
        this, base = context
        return spaced(self.brief(found, context), "(%s -> %s)" % (
            cells.format_quantity(base.mean, base.unit),
            cells.format_quantity(this.mean, this.unit)))

    def brief(self, found, context):
        return spaced(cells.factor(found.value) + "x",
                       interval_text(found.interval))

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
                [reason, _twin_missing(base_reason, over, baseline)]))
        factor = 1.0
        if self.spec["scaled"]:
            if not (_is_number(dims[over]) and _is_number(baseline)):
                return cells.missing("n/a: %s is not numeric" % over)
            factor = dims[over] / baseline
        speedup = base.mean / this.mean * factor
        interval = None if this is base else ratio_interval(base, this,
                                                            factor)
        return speedup, interval, this, base

    @staticmethod
    def _flags(interval, this, base):
        """(flags, significant); the baseline's own cell compares
        nothing, so it is neither."""
        if this is base:
            return cells.flags(this), None
        return _compared(interval, this, base)

    def describe(self, grid):
        over, baseline = self.spec["over"], self.spec["baseline"]
        text = "Speedup: the %s time / this time" % _equals(over, baseline)
        if self.spec["scaled"]:
            text += (" x %s/%s (each loop's work grows with %s)"
                     % (over, baseline, over))
        return text + ("; in parentheses the %s time -> this time. %s"
                       % (_equals(over, baseline), intervals.NOTE))


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
            _twin_missing(reason, over, self.spec["numerator"]),
            _twin_missing(den_reason, over, self.spec["denominator"])])
        return numerator, denominator, reason, fallback

    def judged(self, lookup, dims):
        """A Cell without text and the pair it divided, or a Cell saying
        why there is none and None."""
        numerator, denominator, reason, fallback = self.pair(lookup, dims)
        if numerator is None or denominator is None:
            return Cell(reason, missing=True, fallback=fallback), None
        ratio = numerator.mean / denominator.mean
        interval = ratio_interval(numerator, denominator)
        flags, significant = _compared(interval, numerator, denominator)
        return Cell("", ratio,
                    ratio * math.hypot(numerator.rsd, denominator.rsd),
                    flags, fallback=fallback, interval=interval,
                    significant=significant), (numerator, denominator)

    def wording(self, found, pair):
        numerator, denominator = pair
        return spaced(cells.factor(found.value),
                       interval_text(found.interval), "(%s/%s)" % (
                           cells.format_quantity(numerator.mean,
                                                 numerator.unit),
                           cells.format_quantity(denominator.mean,
                                                 denominator.unit)))

    def brief(self, found, pair):
        return spaced(cells.factor(found.value) + "x",
                       interval_text(found.interval))

    def division(self):
        over = self.spec["over"]
        return "%s divided by %s" % (
            _equals(over, self.spec["numerator"]),
            _equals(over, self.spec["denominator"]))

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
        xs = sorted(x for x in lookup.values(anchor, along) if _is_number(x))
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
        return replace(found, text=self._text(found, x))

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
                    _equals(self.spec["over"], self.spec["numerator"]),
                    _equals(self.spec["over"], self.spec["denominator"]),
                    bound, self.spec["along"], side, side,
                    intervals.NOTE))

    def note(self, grid):
        return self.describe(grid) + (
            " " + self.declaration["note"] if self.declaration["note"]
            else "")


def _ratio_samples(numerator, denominator):
    top = intervals.SHARED.means(numerator)
    bottom = intervals.SHARED.means(denominator)
    return None if top is None or bottom is None else top / bottom


class Best(Judged):
    """Which value of ``over`` gives the lowest (highest) ``of`` cell, and
    by what factor over the runner-up: runner-up / winner (winner /
    runner-up for the highest), so the margin is >= 1; significant when
    its interval lies above 1."""

    @property
    def consumed(self):
        return (self.spec["over"],)

    def candidates(self, lookup, dims):
        """[(over value, record, metric, resampled metrics)], reasons."""
        over, among = self.spec["over"], self.spec["among"]
        values = [v for v in lookup.values(dims, over)
                  if not among or v in among]
        found, reasons = [], []
        for value in values:
            record, reason = lookup.get({**dims, over: value})
            if record is None:
                reasons.append(reason)
                continue
            metric = self._metric(record)
            if metric is None:
                reasons.append("n/a: not recorded")
                continue
            found.append((value, record) + metric)
        return found, reasons or [NOT_RUN]

    def _metric(self, record):
        """(number, its resamples or None) of the ``of`` cell."""
        of = self.spec["of"]
        means = intervals.SHARED.means(record)
        if of["kind"] == "throughput":
            return (record.ops_per_loop / record.mean,
                    None if means is None else record.ops_per_loop / means)
        if of["kind"] == "recorded":
            number = record.recorded.get(of["key"])
            if number is None:
                return None
            runs = record.recorded_runs.get(of["key"], ())
            return number, intervals.SHARED.means(record, runs)
        ops = record.ops_per_loop if of["per_op"] else 1
        return (record.mean / ops, None if means is None else means / ops)

    def judged(self, lookup, dims):
        found, reasons = self.candidates(lookup, dims)
        failed = cells.problem(reasons)
        if not found or failed:
            return cells.missing(cells.first_reason(reasons)), None
        highest = self.spec["pick"] == "highest"
        ranked = sorted(found, key=lambda c: c[2], reverse=highest)
        if len(ranked) == 1:
            return Cell("%s (only one measured)" % ranked[0][0],
                        flags=cells.flags(ranked[0][1], significant=False),
                        significant=False), None
        (win, _, win_m, win_s), (run, _, run_m, run_s) = ranked[:2]
        margin = win_m / run_m if highest else run_m / win_m
        interval = None
        if win_s is not None and run_s is not None:
            interval = intervals.bounds(win_s / run_s if highest
                                        else run_s / win_s)
        significant = intervals.excludes(interval)
        # The number is a margin, not something to plot along the rows:
        # the cell has no value, its wording carries the margin.
        return Cell("", None, flags=cells.flags(
            *[c[1] for c in found], significant=significant),
            interval=interval, significant=significant), (win, run, margin)

    def _word(self):
        of, pick = self.spec["of"]["kind"], self.spec["pick"]
        ahead = (of == "value") == (pick == "lowest")
        return "ahead" if ahead else "the next"

    def wording(self, found, context):
        winner, runner_up, margin = context
        return spaced("%s, %sx" % (winner, cells.factor(margin)),
                       interval_text(found.interval),
                       "%s %s" % ("ahead of" if self._word() == "ahead"
                                  else "over", runner_up))

    def brief(self, found, context):
        winner, _, margin = context
        return spaced("%s, %sx %s" % (winner, cells.factor(margin),
                                       self._word()),
                       interval_text(found.interval))

    def describe(self, grid):
        of = self.spec["of"]
        what = {"value": "time", "throughput": "throughput",
                "recorded": of.get("key", "")}[of["kind"]]
        among = (" among %s" % ", ".join(map(str, self.spec["among"]))
                 if self.spec["among"] else "")
        return ("The %s with the %s %s%s, and its margin over the "
                "runner-up (>= 1); not significant (?) when the interval "
                "reaches 1. %s" % (self.spec["over"], self.spec["pick"],
                                   what, among, intervals.NOTE))


ALWAYS = "always"
NEVER = "never in range"


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


KINDS = {"value": Value, "ratio": Ratio, "speedup": Speedup,
         "throughput": Throughput, "crossover": Crossover,
         "recorded": Recorded, "best": Best}
