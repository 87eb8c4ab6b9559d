"""Confidence intervals of derived cells: a seeded percentile bootstrap.

Every derived number (a ratio, a speedup, a throughput, a crossover, a
best-of margin) is a function of benchmark means.  Each benchmark's
pyperf values are resampled with replacement (numpy's Generator),
RESAMPLES times, giving RESAMPLES resampled means per benchmark; the
function is applied to them resample by resample, and the interval is
the central LEVEL of the results (numpy.quantile).  A bootstrap needs no
assumption about the shape of the ratio's distribution (a ratio of means
is skewed) and handles crossovers and best-of choices, which have no
closed form.  Each benchmark's generator is seeded from its own identity,
so a re-render draws the same numbers and a cell's interval does not
depend on what else the page holds.

Values are resampled as independent draws: pyperf's values come from
several worker processes, and a difference between processes counts only
as far as the values show it.  A benchmark with fewer than MIN_VALUES
values has no interval, and nothing computed from it is called
significant.
"""
from __future__ import annotations

import zlib

import numpy

from gilbench.report.model import INTERPRETER

RESAMPLES = 2000
LEVEL = 0.95
MIN_VALUES = 2
METHOD = ("percentile bootstrap over each benchmark's pyperf values "
          "(%d resamples, seeded)" % RESAMPLES)
NOTE = "[low-high]: its 95%% confidence interval, by %s." % METHOD


class Resampler:
    """Resampled means of records, drawn once per record and kept."""

    def __init__(self):
        self._means = {}

    def means(self, record, samples=None):
        """RESAMPLES resampled means of ``samples`` (the record's pyperf
        values by default), or None with fewer than MIN_VALUES."""
        samples = record.values if samples is None else samples
        if len(samples) < MIN_VALUES:
            return None
        identity = (record.name, record.dims.get(INTERPRETER),
                    tuple(samples))
        found = self._means.get(identity)
        if found is None:
            seed = zlib.crc32(repr(identity[:2]).encode())
            generator = numpy.random.default_rng(seed)
            data = numpy.asarray(samples, dtype=float)
            picks = generator.integers(0, len(data),
                                       size=(RESAMPLES, len(data)))
            found = self._means[identity] = data[picks].mean(axis=1)
        return found


def bounds(samples):
    """The central LEVEL of ``samples``; with infinities among them (a
    crossover that never happens) the bounds are samples themselves, not
    interpolated."""
    tail = (1.0 - LEVEL) / 2.0
    data = numpy.asarray(samples, dtype=float)
    method = "linear" if numpy.isfinite(data).all() else "inverted_cdf"
    low, high = numpy.quantile(data, [tail, 1.0 - tail], method=method)
    return float(low), float(high)


def excludes(interval, reference=1.0):
    """Whether ``interval`` lies wholly on one side of ``reference``."""
    return interval is not None and (interval[0] > reference
                                     or interval[1] < reference)


# One Resampler per process: a render draws each record's resamples once.
SHARED = Resampler()
