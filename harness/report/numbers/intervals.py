"""Confidence intervals of derived cells: a parametric bootstrap of each
benchmark's mean under a two-level variance model.

Every derived number (a ratio, a speedup, a throughput, a crossover, a
best-of margin) is a function of benchmark means.  Each benchmark gets
RESAMPLES draws of its mean; the function is applied to them draw by
draw, and the interval is the central LEVEL of the results
(numpy.quantile).  Drawing needs no closed form for a ratio of means, a
crossover or a best-of choice.  Each benchmark's generator is seeded from
its own identity, so a re-render draws the same numbers and a cell's
interval does not depend on what else the page holds.

What a draw's spread must hold is what a re-run would change (Kalibera
and Jones, "Rigorous Benchmarking in Reasonable Time", 2013: variation
enters at every level of repetition, and the level above the one
resampled decides whether a re-run agrees).  Two levels are modelled,
on the log of the mean (times are positive and vary by factors):

- between worker processes: the variance of the log process means over
  the number of processes, never below the values' own variance over
  their number (which is all one process gives).  From few processes
  this estimate is itself rough: it counts (Student's t with processes -
  1 degrees of freedom / the normal's)^2 times
  (gilbench.model.design.few_processes_factor, pyperf's t table), 42
  for two processes, 2.6 for four;
- between runs: RUN_DRIFT, the relative standard deviation of a
  benchmark's mean from one run to the next beyond its processes'
  spread, measured on this project's 2-core machines by A/A re-runs
  (bench/coverage.py; docs/reading.rst gives the figures).  No single
  run can see it: the machine's state drifts between benchmarks minutes
  apart.  The run's design (gilbench.model.design) owns it: it measures
  each benchmark's processes down to half of it.

A draw is the mean times exp(N(0, sd)) with sd the square root of the
two variances added (numpy's Generator).  A benchmark with fewer than
MIN_VALUES values has no interval, and nothing computed from it is
called significant.

A benchmark an adaptive run kept measuring because an undecided finding
read it was looked at several times, and stopping once an answer is
significant inflates false decisions.  Its draws are widened as
Bonferroni over its decision looks k asks: the spread times
z(1 - (1-LEVEL)/2k) / z(1 - (1-LEVEL)/2) (scipy.stats.norm), 1.14 for two
looks, 1.31 for five; one look is not widened.

A third level is shared, not per benchmark: the machine's state over the
stretch of minutes in which a file's family was measured moves all its
benchmarks together (STRETCH_DRIFT).  A ratio of two benchmarks of one
family and file cancels it, so only a mean read alone -- a throughput,
bench/coverage.py's means -- draws it (:func:`alone`).
"""
from __future__ import annotations

import contextlib
import warnings
import zlib

import numpy

from gilbench.model.design import RUN_DRIFT, few_processes_factor
from gilbench.model.resultformat import INTERPRETER

RESAMPLES = 2000
LEVEL = 0.95
MIN_VALUES = 2
STRETCH_DRIFT = 0.10
METHOD = ("parametric bootstrap of each benchmark's mean: the variance "
          "of its worker processes' means (widened as Student's t asks "
          "for few processes) plus a run-to-run drift of "
          "%g%% measured by A/A re-runs (%d draws, seeded)"
          % (RUN_DRIFT * 100, RESAMPLES))
NOTE = "[low-high]: its 95%% confidence interval, by %s." % METHOD
ALONE_NOTE = ("Read alone, not against a benchmark of its own family, a "
              "mean also draws its family's shift of %g%% (the machine's "
              "state over the minutes it was measured in)."
              % (STRETCH_DRIFT * 100))


class Resampler:
    """Drawn means of records, drawn once per record and kept."""

    def __init__(self, drift=RUN_DRIFT, processes_agree=False,
                 correct_looks=True):
        self.drift = drift
        # What any number of worker processes could at best give: their
        # spread gone, the run-to-run drift left (gilbench judge asks).
        self.processes_agree = processes_agree
        # Off only to measure what the correction for looks does
        # (bench/design_time.py).
        self.correct_looks = correct_looks
        self._means = {}

    def means(self, record, samples=None):
        """RESAMPLES drawn means of the record's pyperf values (grouped
        by worker process), or of ``samples`` (one number per run, each
        a group); None with fewer than MIN_VALUES."""
        if samples is None:
            groups = record.run_values or (record.values,)
        else:
            groups = tuple((sample,) for sample in samples)
        if sum(len(group) for group in groups) < MIN_VALUES:
            return None
        identity = (record.name, record.dims.get(INTERPRETER), groups)
        found = self._means.get(identity)
        if found is None:
            # The values are part of the seed: two files' benchmarks of one
            # name and label (compare's two sides) draw independently.
            seed = zlib.crc32(repr(identity).encode())
            widen = (looks_factor(record.decision_looks)
                     if self.correct_looks else 1.0)
            found = self._means[identity] = _drawn_means(
                numpy.random.default_rng(seed), groups, self.drift,
                self.processes_agree, widen)
        return found


def looks_factor(looks):
    """How much wider a spread must be for a LEVEL interval to hold over
    ``looks`` looks at it, as Bonferroni asks (1 for one look)."""
    if looks <= 1:
        return 1.0
    from scipy import stats
    tail = (1.0 - LEVEL) / 2.0
    return float(stats.norm.ppf(1.0 - tail / looks) / stats.norm.ppf(
        1.0 - tail))


def alone(record):
    """The drawn means of ``record`` read alone, not against another
    benchmark of its family and file: SHARED's draws times its family's
    stretch shift (STRETCH_DRIFT); None as SHARED.means."""
    drawn = SHARED.means(record)
    if drawn is None:
        return None
    return drawn * numpy.exp(shift(
        (record.dims.get(INTERPRETER), record.dims.get("family")),
        STRETCH_DRIFT))


def shift(identity, sd):
    """RESAMPLES draws of a log shift N(0, sd) that many records share
    (e.g. one file's family, measured in one stretch of time), seeded
    from ``identity`` as a record's draws are."""
    seed = zlib.crc32(repr(identity).encode())
    return numpy.random.default_rng(seed).normal(0.0, sd, RESAMPLES)


def between_processes(groups):
    """The variance of the mean of ``groups`` (a tuple of values per
    worker process) from process to process: of the process means over
    their number, and never below what the values' own scatter gives (two
    process means can agree by chance)."""
    data = numpy.concatenate([numpy.asarray(g, dtype=float) for g in groups])
    scatter = float(numpy.var(data, ddof=1)) / len(data)
    if len(groups) < 2:
        return scatter
    means = numpy.array([numpy.mean(group) for group in groups])
    return max(float(numpy.var(means, ddof=1)) / len(means), scatter)


# Worker processes "split" when their means differ by over SPLIT_RATIO and
# a one-way ANOVA of their log values (scipy.stats.f_oneway) gives
# p < SPLIT_P: they measured different things (a memory layout, a machine
# state), not one thing with scatter.
SPLIT_RATIO = 1.10
SPLIT_P = 0.001


def processes_split(groups):
    """Whether ``groups`` (a tuple of values per worker process) disagree
    beyond their values' scatter (see SPLIT_RATIO, SPLIT_P)."""
    key = tuple(tuple(group) for group in groups)
    if key not in _SPLITS:
        judge_splits([key])
    return _SPLITS[key]


# processes_split's answers, by the groups judged.
_SPLITS = {}


def judge_splits(many):
    """processes_split of each of ``many`` groups, judged at once and kept
    for it: one scipy.stats.f_oneway call per shape (the values of each
    process) instead of one per benchmark, which a page of thousands of
    benchmarks would wait seconds for."""
    shapes = {}
    for groups in many:
        key = tuple(tuple(group) for group in groups)
        if key in _SPLITS:
            continue
        arrays = [numpy.asarray(g, dtype=float) for g in key if len(g) >= 2]
        _SPLITS[key] = False
        if len(arrays) < 2 or not all((g > 0).all() for g in arrays):
            continue
        means = [g.mean() for g in arrays]
        if max(means) >= SPLIT_RATIO * min(means):
            shape = tuple(len(g) for g in arrays)
            shapes.setdefault(shape, []).append((key, arrays))
    if not shapes:
        return
    from scipy import stats
    for shape, found in shapes.items():
        # One array per process: a row per benchmark, its log values.
        logged = [numpy.log([arrays[k] for _, arrays in found])
                  for k in range(len(shape))]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # values constant within a group
            pvalues = stats.f_oneway(*logged, axis=1).pvalue
        pvalues = numpy.nan_to_num(numpy.atleast_1d(pvalues), nan=1.0)
        for (key, _), pvalue in zip(found, pvalues):
            _SPLITS[key] = bool(pvalue < SPLIT_P)


def _drawn_means(generator, groups, drift, processes_agree=False,
                 widen=1.0):
    """The mean times exp(N(0, sd)) in log terms (times, rates: positive,
    varying by factors); a recorded figure that can be 0 or negative
    (errors, violations) draws the same variance added, not multiplied.
    ``widen``: a factor on sd (the correction for looks)."""
    data = numpy.concatenate([numpy.asarray(g, dtype=float) for g in groups])
    mean = data.mean()

    def between(spread_of):
        if processes_agree:
            return 0.0
        return (between_processes(spread_of)
                * few_processes_factor(len(spread_of)))
    if (data > 0).all():
        logged = tuple(numpy.log(numpy.asarray(g, dtype=float))
                       for g in groups)
        spread = widen * numpy.sqrt(between(logged) + drift ** 2)
        return mean * numpy.exp(generator.normal(0.0, spread, RESAMPLES))
    spread = widen * numpy.sqrt(between(groups) + (drift * mean) ** 2)
    return mean + generator.normal(0.0, spread, RESAMPLES)


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


@contextlib.contextmanager
def resampling(resampler):
    """Cells computed inside draw from ``resampler`` instead of SHARED."""
    global SHARED
    kept, SHARED = SHARED, resampler
    try:
        yield resampler
    finally:
        SHARED = kept
