"""``recorded``: a number the case recorded per run."""
from __future__ import annotations

from gilbench.report.data.records import Cell
from gilbench.report.kinds.base import Kind, interval_text
from gilbench.report.numbers import cells, intervals
from gilbench.report.numbers.cells import spaced


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
        runs = record.recorded_runs.get(key, ())
        means = intervals.SHARED.means(record, runs)
        interval = None if means is None else intervals.bounds(means)
        text = spaced(cells.si(number) + (" " + unit if unit else ""),
                       interval_text(interval, cells.si))
        return Cell(text, number, None, cells.flags(record),
                    interval=interval, brief=cells.si(number))

    def describe(self, grid):
        return ("%s, as the case recorded it per run (mean over runs). %s"
                % (self.spec["key"],
                   intervals.NOTE.replace("pyperf values", "runs")))

    y_format = "si"

    def y_label(self):
        key, unit = self.spec["key"], self.spec["unit"]
        return "%s (%s)" % (key, unit) if unit else key
