"""``efficiency``: a speedup against the ideal or this machine's ceiling."""
from __future__ import annotations

from gilbench.model.resultformat import INTERPRETER
from gilbench.report.data.records import Cell
from gilbench.report.kinds.base import Level, is_number
from gilbench.report.kinds.speedup import Speedup
from gilbench.report.numbers import cells, intervals
from gilbench.report.numbers.cells import spaced

NO_CEILING = ("n/a: no ceiling results for this interpreter (run the "
              "ceiling family)")


class Efficiency(Speedup):
    """Speedup / (N / baseline), or speedup / the ceiling family's speedup
    at the same N: 1.0 is as good as it gets."""

    def ceiling_pair(self, dims, this):
        """(ceiling at baseline, ceiling at N) records, or a reason."""
        axis = this.count_axis or "threads"
        if self.ceiling is None:
            return NO_CEILING
        interpreter = dims.get(INTERPRETER)
        one, reason = self.ceiling.get(axis, self.spec["baseline"],
                                       interpreter)
        many, many_reason = self.ceiling.get(axis, dims[self.spec["over"]],
                                             interpreter)
        if one is None or many is None:
            why = cells.first_reason([reason, many_reason])
            return NO_CEILING if why == cells.NOT_RUN else why
        return one, many

    def efficiency(self, lookup, dims):
        """(efficiency, interval, reference speedup, speedup, records) or
        a Cell saying why there is none."""
        found = self.drawn(lookup, dims)
        if isinstance(found, Cell):
            return found
        value, draws, reference, speedup, records = found
        interval = None if draws is None else intervals.bounds(draws)
        return value, interval, reference, speedup, records

    def drawn(self, lookup, dims):
        """As ``efficiency``, with the efficiency's bootstrap draws (or
        None) in place of its interval: what a best-of ranks."""
        over, baseline = self.spec["over"], self.spec["baseline"]
        if not (is_number(dims.get(over)) and is_number(baseline)):
            return cells.missing("n/a: %s is not numeric" % over)
        measured = self.measure(lookup, dims)
        if isinstance(measured, Cell):
            return measured
        speedup, interval, this, base = measured
        n = dims[over] / baseline
        if self.spec["against"] == "ideal":
            value = speedup / n
            return (value, _draws(base, this, scale=value
                                  / intervals.ratio_point(base, this)),
                    n, speedup, (this, base))
        pair = self.ceiling_pair(dims, this)
        if isinstance(pair, str):
            return cells.missing(pair)
        one, many = pair
        ceiling = intervals.ratio_point(one, many) * n
        return (speedup / ceiling, _draws(base, this, one, many),
                ceiling, speedup, (this, base, one, many))

    def draws(self, lookup, dims):
        found = self.drawn(lookup, dims)
        return None if isinstance(found, Cell) else found[1]

    def judged(self, lookup, dims):
        found = self.efficiency(lookup, dims)
        if isinstance(found, Cell):
            return found, None
        value, interval, reference, speedup, records = found
        baseline = records[0] is records[1]
        if baseline:  # 1 by definition: nothing to tell
            interval = None
        significant, same = (None, None) if baseline else \
            intervals.decided(interval, self.margin)
        flags = cells.flags(*records, significant=significant, same=same)
        return Cell("", value, flags=flags, interval=interval,
                    significant=significant, same=same), (reference,
                                                          speedup)

    def wording(self, found, context):
        reference, speedup = context
        return spaced(self.brief(found, context),
                       "(%.2fx of %s)" % (speedup, _times(reference)))

    def stated(self, found, context):
        return "%.2f" % found.value

    compact = stated

    def describe(self, grid):
        over, baseline = self.spec["over"], self.spec["baseline"]
        against = ("%s/%s, what N workers would give with nothing shared"
                   % (over, baseline) if self.spec["against"] == "ideal"
                   else "this machine's ceiling: the speedup of the "
                   "ceiling family's perfectly parallel C loop at the same "
                   "count, interpreter and driver")
        return ("Efficiency: the speedup over %s=%s divided by %s; 1.00 is "
                "perfect; ? where the interval reaches 1.  In parentheses "
                "the speedup and what it is divided by. %s"
                % (over, baseline, against, intervals.NOTE))

    def y_label(self):
        return "efficiency against the %s (1 = perfect)" % (
            self.spec["against"])

    def reference_line(self, row_dim, row_values):
        return Level("1 (perfect)")


def _draws(base, this, one=None, many=None, scale=1.0):
    """Bootstrap draws of (base/this) / (one/many), the N factors
    cancelling; against the ideal, of base/this x ``scale``.  None when a
    record has too few values."""
    work = intervals.SHARED.ratio(base, this)
    if work is None or one is None:
        return None if work is None else work * scale
    ceiling = intervals.SHARED.ratio(one, many)
    return None if ceiling is None else work / ceiling


def _times(number):
    """``2x`` for a whole number of workers, ``1.90x`` for a speedup."""
    return ("%dx" % number if float(number).is_integer()
            else "%.2fx" % number)
