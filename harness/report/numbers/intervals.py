"""Confidence intervals of derived cells: a parametric bootstrap of each
benchmark's mean under the variance its run measured.

Every derived number (a ratio, a speedup, a throughput, a crossover, a
best-of margin) is a function of benchmark means.  Each benchmark gets
RESAMPLES draws of its mean; the function is applied to them draw by
draw, and the interval is the central LEVEL of the results
(numpy.quantile); "the same" is tested on the central
EQUIVALENCE_LEVEL of the same draws (two one-sided tests).  Drawing
needs no closed form for a ratio of means, a
crossover or a best-of choice.  Each benchmark's generator is seeded from
its own identity, so a re-render draws the same numbers and a cell's
interval does not depend on what else the page holds.

What a draw holds is what gilbench.report.numbers.variance measured in
the benchmark's own file (Kalibera and Jones, "Rigorous Benchmarking in
Reasonable Time", 2013: variation enters at every level of repetition):

- its own spread between worker processes once its blocks' shifts are
  out, moderated by its family's (limma), drawn from Student's t with
  the degrees of freedom that estimate has (numpy's
  Generator.standard_t; the normal where they are infinite);
- the shift of each block it was measured in, drawn once per block and
  family and shared by every benchmark of the block: a ratio of two
  benchmarks measured side by side cancels it, as Abedi and Brecht's
  interleaved trials and duet benchmarking ask.  Its spread is the
  family's blocks' (an inverse chi-square draw of its scale, for the few
  blocks it comes from), a duet's block's its family's duets';
- a ratio of two benchmarks measured together in duets is drawn from
  their duets' log ratios (gilbench.report.numbers.pairs;
  Resampler.ratio).

A draw is the mean (at its family's median machine state, as the
variance's probe slope moved it) times exp(t x the mean's standard
deviation + the shifts), on the log scale (times and rates are positive
and vary by factors); a recorded figure that can be 0 or negative draws
the same added, not multiplied.  A benchmark with fewer than MIN_VALUES
values has no interval, and nothing computed from it is called
significant.

A benchmark an adaptive run kept measuring because an undecided finding
read it was looked at several times, and stopping once an answer is
significant inflates false decisions.  Its own spread (not the blocks'
shifts, which the looks did not choose) is widened as Bonferroni over its
decision looks k asks: z(1 - (1-LEVEL)/2k) / z(1 - (1-LEVEL)/2)
(scipy.stats.norm), 1.14 for two looks, 1.31 for five.
"""

import contextlib
import functools
import math
import warnings
import zlib
from dataclasses import replace

import numpy

from gilbench.model.resultformat import INTERPRETER
from gilbench.report.numbers import pairs, variance

RESAMPLES = 2000
LEVEL = 0.95
# "The same" is two one-sided tests, each at the 1 - LEVEL a difference is
# tested at (Schuirmann 1987; Lakens, "Equivalence Tests", 2017): the
# central 1 - 2 x (1 - LEVEL) of the draws inside the margin, 90%.
EQUIVALENCE_LEVEL = 1.0 - 2.0 * (1.0 - LEVEL)
MIN_VALUES = 2
# The smallest difference that matters, unless a finding declares less
# (gilbench.model.findings): within it both ways, two numbers are "the
# same".
MARGIN = 0.10
# How near a bound a bounded index's run counts as, on its 0-1 scale (a
# run at the bound has no logit).
BOUND_EDGE = 1e-3
METHOD = ("parametric bootstrap of each benchmark's mean: its worker "
          "processes' spread once their blocks' shifts are out, moderated "
          "by its family's, as Student's t with those degrees of freedom, "
          "and the shift of each block it was measured in, shared with "
          "what was measured beside it (%d draws, seeded)" % RESAMPLES)
NOTE = "[low-high]: its 95%% confidence interval, by %s." % METHOD
ALONE_NOTE = ("Read alone, not against a benchmark measured beside it, a "
              "mean keeps its blocks' shifts (the machine's state while "
              "they were measured).")


class Resampler:
    """Drawn means of records, drawn once per record and kept."""

    def __init__(self, correct_looks=True):
        # Off only to measure what the correction for looks does
        # (bench/design_time.py).
        self.correct_looks = correct_looks
        self._means = {}

    def means(self, record, samples=None, shifts=True):
        """RESAMPLES drawn means of the record's pyperf values (grouped
        by worker process), or of ``samples`` (one number per run, each
        a group); None with fewer than MIN_VALUES.  ``shifts``: with
        its blocks' shifts; False for a comparison across runs, which
        draws the runs' drift instead (gilbench.report.tables.builds)."""
        if samples is None:
            groups = record.run_values or (record.values,)
            spread = variance.spread_of(record)
        else:
            groups = tuple((sample,) for sample in samples)
            spread = variance.spread_of(record, groups)
        if sum(len(group) for group in groups) < MIN_VALUES or spread is None:
            return None
        identity = (record.name, record.dims.get(INTERPRETER), groups)
        if not shifts:
            identity = ("without shifts",) + identity
        found = self._means.get(identity)
        if found is None:
            if not shifts:
                spread = replace(spread, shift_sd=0.0, duet_shift_sd=0.0)
            # The values are part of the seed: two files' benchmarks of one
            # name and label (compare's two sides) draw independently.
            seed = zlib.crc32(repr(identity).encode())
            widen = (looks_factor(record.decision_looks)
                     if self.correct_looks else 1.0)
            # At its family's median machine state, as the record's mean
            # is (variance.at_median_state).
            mean = float(numpy.mean([v for g in groups for v in g])) * (
                math.exp(spread.adjustment))
            found = self._means[identity] = _drawn_means(
                numpy.random.default_rng(seed), mean, spread, widen)
        return found

    def ratio(self, top, bottom):
        """RESAMPLES drawn ratios of ``top``'s mean over ``bottom``'s: of
        their duets where they were measured together in enough of them
        (gilbench.report.numbers.pairs), else of their drawn means; None
        where either has too few values."""
        paired = pairs.spread(top, bottom)
        if paired is None:
            upper, lower = self.means(top), self.means(bottom)
            return None if upper is None or lower is None else upper / lower
        found, sign = paired
        identity = ("pair", found)
        drawn = self._means.get(identity)
        if drawn is None:
            widen = (looks_factor(max(top.decision_looks,
                                      bottom.decision_looks))
                     if self.correct_looks else 1.0)
            generator = numpy.random.default_rng(
                zlib.crc32(repr(identity).encode()))
            # Clipped as a mean's draws are (_drawn_means).
            drawn = self._means[identity] = numpy.exp(
                found.log_ratio + numpy.clip(
                    widen * math.sqrt(found.mean_variance)
                    * t_draws(generator, found.df), -30.0, 30.0))
        return drawn if sign > 0 else 1.0 / drawn


def bounded(record, samples, low, high, spread=None):
    """RESAMPLES draws of the mean of ``samples`` (one number per run of
    ``record``), a bounded index within [low, high]: drawn on the logit of
    where it lies between them -- the mean of the runs' logits plus
    Student's t times their standard error -- and mapped back, so every
    draw lies within the bounds.  ``spread``: (variance of one run's
    logit, its degrees of freedom), moderated by the record's peers
    (recorded.logit_spread); else the runs' own, with runs - 1.  Runs at
    a bound count as within BOUND_EDGE of it.  None with fewer than
    MIN_VALUES runs."""
    data = numpy.asarray(samples, dtype=float)
    if len(data) < MIN_VALUES or not high > low:
        return None
    from scipy import special
    found = logits(data, low, high)
    seed = zlib.crc32(repr((record.name, record.dims.get(INTERPRETER),
                            tuple(data))).encode())
    one, df = spread or (float(numpy.var(found, ddof=1)), len(data) - 1)
    drawn = numpy.mean(found) + math.sqrt(one / len(data)) * t_draws(
        numpy.random.default_rng(seed), df)
    return low + (high - low) * special.expit(drawn)


def logits(samples, low, high):
    """The logits of where ``samples`` lie between ``low`` and ``high``,
    those at a bound counted as within BOUND_EDGE of it."""
    from scipy import special
    share = numpy.clip((numpy.asarray(samples, dtype=float) - low)
                       / (high - low), BOUND_EDGE, 1.0 - BOUND_EDGE)
    return special.logit(share)


@functools.lru_cache(maxsize=None)
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
    """The drawn means of ``record`` read alone, not against a benchmark
    measured beside it: SHARED's draws, whose blocks' shifts then do not
    cancel; None as SHARED.means."""
    return SHARED.means(record)


def ratio_point(top, bottom):
    """``top``'s mean over ``bottom``'s: the ratio their duets measured
    where SHARED.ratio reads it from them, else of their means."""
    paired = pairs.spread(top, bottom)
    if paired is None:
        return top.mean / bottom.mean
    found, sign = paired
    return math.exp(sign * found.log_ratio)


def shift(identity, sd):
    """RESAMPLES draws of a log shift N(0, sd) that many records share,
    seeded from ``identity`` as a record's draws are."""
    seed = zlib.crc32(repr(identity).encode())
    return numpy.random.default_rng(seed).normal(0.0, sd, RESAMPLES)


def block_shift(spread, block, duet=False):
    """The draws of ``block``'s shift in the family of ``spread``: a
    standard normal per block, times the family's shift spread (its
    duets' where the block is a ``duet``'s), times one inverse chi-square
    scale per family (its spread comes from that many degrees of
    freedom)."""
    sd, df = ((spread.duet_shift_sd, spread.duet_shift_df) if duet
              else (spread.shift_sd, spread.shift_df))
    if not sd > 0:
        return numpy.zeros(RESAMPLES)
    key = (spread.family, sd, df)
    scale = _SCALES.get(key)
    if scale is None:
        generator = numpy.random.default_rng(
            zlib.crc32(repr(key).encode()))
        scale = _SCALES[key] = sd * numpy.sqrt(
            df / generator.chisquare(df, RESAMPLES))
    return scale * shared_unit((spread.family, block))


def shared_unit(identity):
    """:func:`shift`'s standard normal draws of ``identity`` (a block of a
    family, a family's probe slope), drawn once and kept: every benchmark
    sharing them asks."""
    unit = _UNITS.get(identity)
    if unit is None:
        unit = _UNITS[identity] = shift(identity, 1.0)
    return unit


_SCALES = {}  # a family's shift scale draws, by (family, sd, df)
_UNITS = {}  # shared standard normal draws, by identity


def t_draws(generator, df):
    """RESAMPLES draws of Student's t with ``df`` degrees of freedom (the
    normal's where infinite)."""
    if math.isinf(df):
        return generator.normal(0.0, 1.0, RESAMPLES)
    return generator.standard_t(df, RESAMPLES)


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


def _drawn_means(generator, mean, spread, widen=1.0):
    """``mean`` times exp(t x its standard deviation + its blocks'
    shifts), or plus t x its standard deviation where ``spread`` is not
    logged (a recorded figure that can be 0 or negative).  ``widen``: a
    factor on its own standard deviation (the correction for looks)."""
    own = widen * math.sqrt(spread.mean_variance) * t_draws(generator,
                                                             spread.df)
    if spread.duets:  # its processes in duets: a variance of their own
        own = own + widen * math.sqrt(spread.duet_mean_variance) * t_draws(
            generator, spread.duet_df)
    if not spread.logged:
        return mean + own
    # Both logs clipped where a t (or a shift's scale) from about one
    # degree of freedom would overflow: e^30 is as "too noisy to tell" as
    # any larger number, and a shift clipped alike still cancels.
    own = numpy.clip(own, -30.0, 30.0)
    shifts = numpy.zeros(RESAMPLES)
    if spread.shift_sd > 0 or spread.duet_shift_sd > 0:
        marks = spread.duet_blocks or (False,) * len(spread.blocks)
        for weight, block, duet in zip(spread.weights, spread.blocks, marks):
            if block is not None:
                shifts = shifts + weight * block_shift(spread, block, duet)
    if spread.slope_se > 0 and spread.lever:
        # The probe's slope is an estimate: its error moves every
        # benchmark of its family by its own lever.
        shifts = shifts - spread.lever * spread.slope_se * shared_unit(
            ("probe slope", spread.slope_key))
    return mean * numpy.exp(own + numpy.clip(shifts, -30.0, 30.0))


class Interval(tuple):
    """(low, high): the central LEVEL of a number's draws, what a cell
    shows and a difference is tested on; ``equivalence``: their central
    EQUIVALENCE_LEVEL, what "the same" is tested on (None: test the
    interval itself)."""

    def __new__(cls, ends, equivalence=None):
        made = tuple.__new__(cls, ends)
        made.equivalence = equivalence
        return made


def bounds(samples):
    """The central LEVEL of ``samples`` as an Interval, with the central
    EQUIVALENCE_LEVEL of the same draws; with infinities among them (a
    crossover that never happens) the bounds are samples themselves, not
    interpolated."""
    tail = (1.0 - LEVEL) / 2.0
    inner = (1.0 - EQUIVALENCE_LEVEL) / 2.0
    data = numpy.asarray(samples, dtype=float)
    method = "linear" if numpy.isfinite(data).all() else "inverted_cdf"
    low, low_inner, high_inner, high = numpy.quantile(
        data, [tail, inner, 1.0 - inner, 1.0 - tail], method=method)
    return Interval((float(low), float(high)),
                    (float(low_inner), float(high_inner)))


def excludes(interval, reference=1.0):
    """Whether ``interval`` lies wholly on one side of ``reference``."""
    return interval is not None and (interval[0] > reference
                                     or interval[1] < reference)


def same_within(interval, margin=MARGIN, reference=1.0):
    """How close to ``reference`` ``interval`` says a number is -- the
    farther end of its equivalence interval (the central
    EQUIVALENCE_LEVEL of its draws, where it carries one), as a share of
    ``reference`` (0.04 for 4%) -- where that lies within ``margin`` of
    it on both sides; else None.  Two one-sided tests (Schuirmann 1987),
    each at the level a difference is tested at, each end inside the
    margin: "the same" is a decision, not a want of one."""
    if interval is None:
        return None
    low, high = getattr(interval, "equivalence", None) or interval
    if not (low > 0 and math.isfinite(high)):
        return None
    lowest, highest = reference / (1.0 + margin), reference * (1.0 + margin)
    if low < lowest or high > highest:
        return None
    return max(reference / low, high / reference) - 1.0


def decided(interval, margin=MARGIN, reference=1.0):
    """(significant, same): whether ``interval`` lies on one side of
    ``reference`` beyond the margin's reach, and :func:`same_within`.  An
    interval inside the margin is "the same" even where it misses
    ``reference``: a difference below the one that matters."""
    same = same_within(interval, margin, reference)
    return (same is None and excludes(interval, reference)), same


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
