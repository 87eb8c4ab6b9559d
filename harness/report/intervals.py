"""Confidence intervals of derived cells: a seeded percentile bootstrap.

Every derived number (a ratio, a speedup, a throughput, a crossover, a
best-of margin) is a function of benchmark means.  Each benchmark's
pyperf values are resampled RESAMPLES times (numpy's Generator), giving
RESAMPLES resampled means per benchmark; the function is applied to them
resample by resample, and the interval is the central LEVEL of the
results (numpy.quantile).  A bootstrap needs no
assumption about the shape of the ratio's distribution (a ratio of means
is skewed) and handles crossovers and best-of choices, which have no
closed form.  Each benchmark's generator is seeded from its own identity,
so a re-render draws the same numbers and a cell's interval does not
depend on what else the page holds.

The resampling is hierarchical, as the values were made: first the
worker processes (pyperf's runs) with replacement, then each picked
process's values with replacement.  Values of one process share its
start-up luck (where its threads landed, how the GIL was handed over),
so resampling them as independent draws made intervals too narrow: an
A/A pair of runs differed "significantly" in 28% of its benchmarks.  A
benchmark with fewer than MIN_VALUES values has no interval, and nothing
computed from it is called significant.
"""
from __future__ import annotations

import zlib

import numpy

from gilbench.model.resultformat import INTERPRETER

RESAMPLES = 2000
LEVEL = 0.95
MIN_VALUES = 2
METHOD = ("percentile bootstrap over each benchmark's worker processes "
          "and their pyperf values (%d resamples, seeded)" % RESAMPLES)
NOTE = "[low-high]: its 95%% confidence interval, by %s." % METHOD


class Resampler:
    """Resampled means of records, drawn once per record and kept."""

    def __init__(self):
        self._means = {}

    def means(self, record, samples=None):
        """RESAMPLES resampled means of the record's pyperf values
        (process, then value), or of ``samples`` (one number per run,
        resampled flat); None with fewer than MIN_VALUES."""
        if samples is None:
            groups = record.run_values or (record.values,)
        else:
            groups = tuple((sample,) for sample in samples)
        if sum(len(group) for group in groups) < MIN_VALUES:
            return None
        identity = (record.name, record.dims.get(INTERPRETER), groups)
        found = self._means.get(identity)
        if found is None:
            seed = zlib.crc32(repr(identity[:2]).encode())
            found = self._means[identity] = _hierarchical(
                numpy.random.default_rng(seed), groups)
        return found


def _hierarchical(generator, groups):
    """RESAMPLES means of ``groups`` resampled with replacement, then
    each picked group's members with replacement; weighted by group size
    so that equal groups give the plain mean."""
    sizes = numpy.array([len(group) for group in groups], dtype=float)
    group_means = numpy.empty((len(groups), RESAMPLES))
    for index, group in enumerate(groups):
        data = numpy.asarray(group, dtype=float)
        picks = generator.integers(0, len(data), size=(RESAMPLES, len(data)))
        group_means[index] = data[picks].mean(axis=1)
    chosen = generator.integers(0, len(groups),
                                size=(RESAMPLES, len(groups)))
    weights = sizes[chosen]
    picked = group_means[chosen, numpy.arange(RESAMPLES)[:, None]]
    return (picked * weights).sum(axis=1) / weights.sum(axis=1)


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
