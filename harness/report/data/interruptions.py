"""Values an interruption slowed, left out where a case declares that
only an interruption can slow them (``CaseSpec(outliers=INTERRUPTIONS)``).

The machine's ceiling is a C loop on each worker's own data: nothing in
it waits, shares or allocates, so its values sit within about 1% of each
other, and one a hypervisor's or a timer's interruption hit reads 4-40%
slower (docs/reading.rst, "Interruptions").  Two such values in a
benchmark's few worker processes widen its interval by more than all the
others' spread, and the ceiling's speedup then reaches past what two
CPUs can give.

The fence is one-sided and the benchmark's own: a value above its median,
and above the median of its process's other values, by more than FENCE
robust standard deviations of the benchmark's values (scipy.stats'
median_abs_deviation, scaled to the normal's) is left out; faster values
never are, since no interruption makes work faster.  A benchmark whose
values do not spread (a MAD of 0) keeps them all.  The report's mean and
interval are then the kept values'; the result file keeps every value,
and ``pyperf show`` shows them all.
"""
from __future__ import annotations

import numpy
from scipy.stats import median_abs_deviation

from gilbench.model.resultformat import INTERRUPTIONS, OUTLIERS_KEY

# Robust standard deviations above the median: a normal value lies
# beyond 5 once in 3.5 million, so what the fence cuts is not the work's
# own scatter.
FENCE = 5.0


def declared(meta):
    """Whether the benchmark's case declares its slower outliers
    interruptions."""
    return meta.get(OUTLIERS_KEY) == INTERRUPTIONS


def kept(run_values):
    """(each worker process's values with the interrupted ones left out,
    how many were left out).

    A value is interrupted where it lies beyond the fence above both its
    benchmark's median and the median of its own process's other values:
    a process whose values are all slower met a slower phase of the
    machine, which the blocks' shifts and the probe account for, not an
    interruption.  A process's only value, and its fastest (never above
    the median of the others), are never left out."""
    values = numpy.asarray([v for run in run_values for v in run],
                           dtype=float)
    spread = median_abs_deviation(values, scale="normal") if len(
        values) else 0.0
    if not spread > 0:
        return tuple(tuple(run) for run in run_values), 0
    reach = FENCE * float(spread)
    above = float(numpy.median(values)) + reach
    runs = tuple(tuple(v for i, v in enumerate(run)
                       if not _interrupted(v, run[:i] + run[i + 1:], above,
                                           reach))
                 for run in map(tuple, run_values))
    return runs, len(values) - sum(len(run) for run in runs)


def _interrupted(value, others, above, reach):
    return (bool(others) and value > above
            and value > float(numpy.median(others)) + reach)


def note(records):
    """A table's sentence on the values its declared ``records`` left
    out, or "" where none declares the rule."""
    declaring = [r for r in records if r.interruptions is not None]
    if not declaring:
        return ""
    left_out = sum(r.interruptions for r in declaring)
    total = sum(len(r.values) for r in declaring) + left_out
    return ("Interruptions left out: %d of %d values (a value more than "
            "%g robust standard deviations, by the median absolute "
            "deviation, slower than its benchmark's median and its "
            "process's others; only an interruption slows this work, as "
            "its case declares)." % (left_out, total, FENCE))
