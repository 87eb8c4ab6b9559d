"""The cell kinds of declared tables (see gilbench.tables): what a cell
computes from the records, and the note that says so under its table."""
from __future__ import annotations

import math
import numbers

from gilbench.report import cells
from gilbench.report.cells import NOT_RUN
from gilbench.report.model import Cell

TABLE_KEYS = ("title", "rows", "columns", "per", "where", "cell", "note")
CELL_KEYS = {
    "value": ("per_op",),
    "ratio": ("over", "numerator", "denominator", "fallback"),
    "speedup": ("over", "baseline", "scaled"),
    "throughput": ("unit",),
    "recorded": ("key", "unit"),
    "crossover": ("over", "numerator", "denominator", "fallback", "along",
                  "unit"),
}


def problem(declaration):
    """Why a declaration from a result file cannot be drawn, or None."""
    if not isinstance(declaration, dict):
        return "a table declaration must be an object"
    lacking = [k for k in TABLE_KEYS if k not in declaration]
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


class Value:
    """The mean, per loop or (``per_op``) per operation."""
    consumed = ()

    def __init__(self, declaration, axes):
        self.declaration = declaration
        self.spec = declaration["cell"]
        self.axes = axes

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

    def describe(self, grid):
        if self.spec["per_op"]:
            return "Mean time per operation (per loop / ops_per_loop)."
        return "Mean time per loop."

    def note(self, grid):
        extra = self.declaration["note"]
        return self.describe(grid) + (" " + extra if extra else "")


class Throughput(Value):
    """Operations per second: ops_per_loop / mean."""

    def cell(self, lookup, dims):
        record, reason = lookup.get(dims)
        if record is None:
            return cells.missing(reason)
        if record.unit != "second":
            return cells.missing("n/a: values are not times")
        rate = record.ops_per_loop / record.mean
        return Cell("%s %s/s" % (cells.si(rate), self.spec["unit"]), rate,
                    rate * record.rsd, cells.flags(record))

    def describe(self, grid):
        return ("%s per second: ops_per_loop / mean time per loop."
                % self.spec["unit"])


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
        text = cells.si(number) + (" " + unit if unit else "")
        return Cell(text, number, None, cells.flags(record))

    def describe(self, grid):
        return ("%s, as the case recorded it per run (mean over runs)."
                % self.spec["key"])


class Speedup(Value):
    """Baseline twin's mean / this mean (x this over / baseline over when
    ``scaled``).  ``over`` is an ordinary dimension here: the baseline has
    a row (or column) of its own, at 1.00x."""

    def cell(self, lookup, dims):
        over, baseline = self.spec["over"], self.spec["baseline"]
        this, reason = lookup.get(dims)
        base, base_reason = lookup.get({**dims, over: baseline})
        if this is None or base is None:
            return cells.missing(reason or base_reason)
        factor = 1.0
        if self.spec["scaled"]:
            if not (_is_number(dims[over]) and _is_number(baseline)):
                return cells.missing("n/a: %s is not numeric" % over)
            factor = dims[over] / baseline
        speedup = base.mean / this.mean * factor
        text = "%.2fx (%s -> %s)" % (
            speedup, cells.format_quantity(base.mean, base.unit),
            cells.format_quantity(this.mean, this.unit))
        return Cell(text, speedup, speedup * math.hypot(this.rsd, base.rsd),
                    cells.flags(this, base))

    def describe(self, grid):
        over, baseline = self.spec["over"], self.spec["baseline"]
        text = "Speedup: the %s time / this time" % _equals(over, baseline)
        if self.spec["scaled"]:
            text += (" x %s/%s (each loop's work grows with %s)"
                     % (over, baseline, over))
        return text + "; in brackets the %s time -> this time." % (
            _equals(over, baseline))


class Ratio(Value):
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
        numerator, reason = lookup.get(
            {**dims, self.spec["over"]: self.spec["numerator"]})
        denominator, den_reason, fallback = self.denominator(lookup, dims)
        return numerator, denominator, reason or den_reason, fallback

    def cell(self, lookup, dims):
        numerator, denominator, reason, fallback = self.pair(lookup, dims)
        if numerator is None or denominator is None:
            return Cell(reason, missing=True, fallback=fallback)
        ratio = numerator.mean / denominator.mean
        text = "%.2f (%s/%s)" % (
            ratio, cells.format_quantity(numerator.mean, numerator.unit),
            cells.format_quantity(denominator.mean, denominator.unit))
        return Cell(text, ratio,
                    ratio * math.hypot(numerator.rsd, denominator.rsd),
                    cells.flags(numerator, denominator), fallback=fallback)

    def division(self):
        over = self.spec["over"]
        return "%s divided by %s" % (
            _equals(over, self.spec["numerator"]),
            _equals(over, self.spec["denominator"]))

    def describe(self, grid):
        return self.division() + "."

    def note(self, grid):
        """The division; the fallback and the declared note (which then
        usually explains the fallback) only where the fallback was used."""
        text = self.describe(grid)
        declared = self.declaration["note"]
        if self.spec["fallback"]:
            if not any(c.fallback for row in grid for c in row):
                return text
            alt = ", ".join("%s=%s" % kv
                            for kv in sorted(self.spec["fallback"].items()))
            text = text[:-1] + (" (or, where there is no such twin, with "
                                "%s)" % alt)
            return text + (": " + declared.rstrip(".") + "." if declared
                           else ".")
        return text + (" " + declared if declared else "")


class Crossover(Ratio):
    """Along a numeric axis, where the ratio falls to 1 or below for good,
    interpolated on a log scale of the axis (linearly from 0)."""

    @property
    def consumed(self):
        return (self.spec["over"], self.spec["along"])

    def cell(self, lookup, dims):
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
                points.append((x, num.mean / den.mean, num, den))
        if len(points) < 2:
            why = (reasons[0] if reasons else NOT_RUN if not xs
                   else "n/a: only one %s measured" % along)
            return Cell(why, missing=True, fallback=fallback)
        marks = cells.flags(*[r for p in points for r in p[2:]])
        x = crossing([(p[0], p[1]) for p in points])
        if isinstance(x, str):
            return Cell(x, flags=marks, fallback=fallback)
        text = ("%s %s" % (cells.significant(x), self.unit())).strip()
        return Cell(text, x, flags=marks, fallback=fallback)

    def unit(self):
        axis = self.axes.get(self.spec["along"], {})
        return self.spec["unit"] or axis.get("unit") or ""

    def describe(self, grid):
        return ("The smallest %s from which %s / %s stays <= 1, "
                "interpolated on a log scale of %s between the last point "
                "above 1 and the next (\"always\": no point is above 1; "
                "\"never in range\": the last one is)." % (
                    self.spec["along"],
                    _equals(self.spec["over"], self.spec["numerator"]),
                    _equals(self.spec["over"], self.spec["denominator"]),
                    self.spec["along"]))


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
         "recorded": Recorded}


def make(declaration, axes):
    """The kind object for a (checked) declaration; ``axes`` describes the
    family's axes ({name: {"unit", "log"}})."""
    return KINDS[declaration["cell"]["kind"]](declaration, axes)
