"""``recorded``: a number the case recorded per run."""
from __future__ import annotations

from gilbench.report.data.records import Cell
from gilbench.report.kinds.base import Kind, interval_text
from gilbench.report.numbers import cells, intervals
from gilbench.report.numbers.cells import spaced


def bounds_of(spec, record):
    """The (low, high) a bounded recorded cell declares, for ``record``
    ("1/threads": one over its threads), or None."""
    declared = spec.get("bounds")
    if not declared:
        return None
    found = []
    for bound in declared:
        if isinstance(bound, str) and bound.startswith("1/"):
            count = record.dims.get(bound[2:])
            if not isinstance(count, (int, float)) or count <= 0:
                return None
            bound = 1.0 / count
        found.append(float(bound))
    return tuple(found)


def recorded_draws(spec, record):
    """The drawn means of ``spec``'s key over ``record``'s runs: a
    bounded index's within its bounds (intervals.bounded), else as any
    mean (intervals.Resampler.means); None with too few runs."""
    runs = record.recorded_runs.get(spec["key"], ())
    found = bounds_of(spec, record)
    if found is not None:
        return intervals.bounded(record, runs, *found)
    return intervals.SHARED.means(record, runs)


class Recorded(Kind):
    """A per-run number the case recorded, averaged over the runs."""

    def cell(self, lookup, dims):
        record, reason = lookup.get(dims)
        if record is None:
            return cells.missing(reason)
        key, unit = self.spec["key"], self.spec["unit"]
        number = record.recorded.get(key)
        if number is None:
            return cells.missing("n/a: not recorded")
        means = recorded_draws(self.spec, record)
        interval = None if means is None else intervals.bounds(means)
        text = spaced(cells.si(number) + (" " + unit if unit else ""),
                       interval_text(interval, cells.si))
        return Cell(text, number, None, cells.flags(record),
                    interval=interval, brief=cells.si(number))

    def describe(self, grid):
        if self.spec.get("bounds"):
            return ("%s, as the case recorded it per run (mean over runs), "
                    "an index between %s and %s; [low-high]: its 95%% "
                    "interval, Student's t over the runs on the logit of "
                    "where it lies between them, so within them."
                    % (self.spec["key"], self.spec["bounds"][0],
                       self.spec["bounds"][1]))
        return ("%s, as the case recorded it per run (mean over runs). %s"
                % (self.spec["key"],
                   intervals.NOTE.replace("pyperf values", "runs")))

    y_format = "si"

    def y_label(self):
        key, unit = self.spec["key"], self.spec["unit"]
        return "%s (%s)" % (key, unit) if unit else key
