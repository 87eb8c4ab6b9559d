"""``throughput``: operations per second."""
from __future__ import annotations

from gilbench.report.data.records import Cell
from gilbench.report.kinds.base import Kind, interval_text
from gilbench.report.numbers import cells, intervals
from gilbench.report.numbers.cells import spaced


class Throughput(Kind):
    """Operations per second: ops_per_loop / mean."""

    def cell(self, lookup, dims):
        record, reason = lookup.get(dims)
        if record is None:
            return cells.missing(reason)
        if record.unit != "second":
            return cells.missing("n/a: values are not times")
        rate = record.ops_per_loop / record.mean
        means = intervals.alone(record)
        interval = (None if means is None
                    else intervals.bounds(record.ops_per_loop / means))
        text = spaced("%s %s/s" % (cells.si(rate), self.spec["unit"]),
                       interval_text(interval, cells.si))
        return Cell(text, rate, rate * record.rsd, cells.flags(record),
                    interval=interval, brief=cells.si(rate))

    def describe(self, grid):
        return ("%s per second: ops_per_loop / mean time per loop. %s %s"
                % (self.spec["unit"], intervals.NOTE, intervals.ALONE_NOTE))

    y_format = "si"
    log_when_wide = True

    def y_label(self):
        return "%s/s" % self.spec["unit"]
