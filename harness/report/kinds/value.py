"""``value``: a benchmark's mean, per loop or per operation."""
from __future__ import annotations

from gilbench.report.data.records import Cell
from gilbench.report.kinds.base import Kind
from gilbench.report.numbers import cells, intervals


class Value(Kind):
    """The mean, per loop or (``per_op``) per operation."""

    def cell(self, lookup, dims):
        record, reason = lookup.get(dims)
        if record is None:
            return cells.missing(reason)
        ops = record.ops_per_loop if self.spec["per_op"] else 1
        return Cell(cells.format_quantity(record.mean / ops, record.unit),
                    record.mean / ops, record.stdev / ops,
                    cells.flags(record))

    def draws(self, lookup, dims):
        record, _ = lookup.get(dims)
        if record is None:
            return None
        found = intervals.SHARED.means(record)
        ops = record.ops_per_loop if self.spec["per_op"] else 1
        return None if found is None else found / ops

    def describe(self, grid):
        if self.spec["per_op"]:
            return "Mean time per operation (per loop / ops_per_loop)."
        return "Mean time per loop."

    y_format = "seconds"
    log_when_wide = True

    def y_label(self):
        return "time per operation" if self.spec["per_op"] \
            else "time per loop"
