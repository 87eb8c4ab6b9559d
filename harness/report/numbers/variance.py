"""How far a benchmark's mean may move, from its run's own data.

A run measures its benchmarks in *blocks* (gilbench.model.design): a
block is one worker process of each benchmark it holds, in a fresh
random order, and each run says its block (``gilbench_block``).  What the
machine did during a block -- a slower minute, a busy neighbour -- is in
every benchmark of it.  For one result file, per family, on the log of
each worker process's mean (times vary by factors), the additive model

    log mean of process k of benchmark r = mu_r + shift_k + residual

is fitted by alternating trimmed means of the shifts (robust to the odd
two-mode benchmark) and means of the mu.  A block with fewer than
MIN_BLOCK_RECORDS of the family's benchmarks has no shift of its own.
A block with two is a pair: its shift leaves each their half of the
paired difference, so a pair's ratio draws what pairs varied by.

Two spreads come out of it:

- each benchmark's *residual variance*: how far its processes disagree
  once their blocks' shifts are out, with (processes - 1) degrees of
  freedom less the share the shifts used, and never below what its
  values' scatter within processes gives (two processes agree by
  chance).  From two or three processes
  that is rough, so it is *moderated* as limma does (Smyth, "Linear
  models and empirical Bayes methods for assessing differential
  expression", 2004): where the family's benchmarks pass Bartlett's
  test of equal variances, they share one, pooled, with all their
  degrees of freedom; else the family gives a prior, a scaled
  inverse chi-square fitted by the method of moments on their log
  variances (scipy.special's digamma and polygamma), and each
  benchmark's variance is the prior's and its own weighted by their
  degrees of freedom, which add up.  The fit is its own check that the
  family shares a variance: the more their variances spread beyond
  chance, the fewer the prior's degrees of freedom and the more each
  keeps its own.  A benchmark whose processes split (#) or whose
  variance lies beyond the prior's OWN_QUANTILE keeps its own alone;
- each family's *block shift*: the standard deviation of its blocks'
  shifts, with (blocks - 1) degrees of freedom.  A ratio of two
  benchmarks measured in the same blocks cancels it; a mean read alone,
  or blocks one side has and the other lacks, carry it.

Before the shifts, the machine's measured state comes out.  Each worker
process timed a fixed Python loop before its values
(gilbench.measure.probe, ``machine_probe_ns``): on a shared host the
interpreter slows for phases whatever it runs, and the probe slows with
it (docs/reading.rst, "Intervals").  Per family, the common slope of process
log means on their log probes (within each benchmark, numpy.linalg.
lstsq: an analysis of covariance) says how much of a probe's swing the
benchmarks follow.  Each process's log mean is moved by that slope to
the family's median probe, and each benchmark's mean with it
(:func:`at_median_state`): the analysis of covariance's own choice,
where the slope's error moves a mean least (carried to the fastest
probe, a slope that changes from run to run moved whole families'
means between A/A runs: docs/reading.rst gives the figures).  One slope
for the family, not one per concurrency: a speedup's two sides then move
by the same slope, and its error cancels between them.  The slope's
standard error goes into the draws, shared by the family's benchmarks,
each by how far its probes lay from the median.
The slope costs its degree of freedom; a family whose probes do not
move, or a file without probes, keeps its means as measured.

A benchmark that mostly *waits* -- its process tree kept under
WAITING_UTILISATION of a core busy (a batch of sleeps, a wait on I/O) --
is not moved by the machine's slower phases, which slow CPU work: it
takes no slope and no block shift, and its variance is moderated among
its family's waiting benchmarks only (any concurrency), not by the CPU
work's.

A process that was one of a *duet* (gilbench.measure.duet: two
benchmarks in one worker process, value by value, their runs naming each
other, in a block of their own) varies by what its pair's ratio did, not
by what the machine did between blocks -- a duet's shift takes the
machine's phase out, which a block of programs seconds apart cannot.  So
a benchmark's processes fall into two classes, each with its own
residual variance about its own mean: those apart (as above) and those
in duets, whose shifts cost one of each pair's two degrees of freedom,
floored by the scatter of their values' log ratios beside their
partner's.  Each class is moderated by the family's as above, and the
benchmark's mean weighs its processes by pyperf's weights over their
class's variance (inverse-variance weights), so a ratio measured in
duets leans on them; the draws give each class its own t.

The residual variances are moderated per family *and concurrency*: a
2-thread benchmark contending for the GIL varies by a factor where a
1-thread one varies by percents, and one prior for both would lend the
first's spread to the second.

All of it comes from the file, but for each built-in family's shift
prior (SHIFT_PRIOR): from a first look's two blocks a family's shift
spread has one degree of freedom, so it is moderated by the spread A/A
runs kept in bench/aa_shifts/ gave (bench/fit_shift_prior.py fits it).  A
file measured before blocks (no ``gilbench_block``) gives each process a
block of its own: no shift is taken out, nothing cancels.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy

from gilbench.model.resultformat import INTERPRETER

# A block needs this many of a family's benchmarks for a shift of its own:
# two partners measured back to back are a pair, whose shift is their
# paired difference's business (each shift costs a degree of freedom).
MIN_BLOCK_RECORDS = 2
ITERATIONS = 20
CONVERGED = 1e-6  # log units: a ten-thousandth of a percent
# The share of a block's benchmarks cut at each end before its shift is
# their mean (scipy.stats.trim_mean): a two-mode benchmark does not move
# the block; a median would leave its middle benchmark no residual.
TRIM = 0.1
# A family whose benchmarks' variances pass Bartlett's test at this level
# shares one, pooled; else each is moderated towards the family's.
SHARED_P = 0.05
# A benchmark whose variance lies beyond this quantile of the prior's
# (an F test of its own against the prior) does not share it.
OWN_QUANTILE = 0.999
# A benchmark's processes in duets are a class of their own from this
# many (a first look's): two give it half a degree of freedom (a duet's
# shift takes half, the class's own mean another), which the family's
# other duets add to; one stays with its processes apart, its shift
# still cancelling with its partner's.
MIN_DUETS = 2
# ... and where its family's moderation leaves the class this many degrees
# of freedom or more.
MIN_CLASS_DF = 1.0
# A slope needs this many degrees of freedom (processes less benchmarks,
# less one) among a family's processes with probes: from fewer, its error
# (drawn into every mean by its lever) costs more than the probe saves
# (docs/reading.rst, "Intervals").  It is kept within [0, MAX_SLOPE]: a
# benchmark cannot speed up as the machine slows, nor swing much more
# than the machine's own loop.
MIN_SLOPE_DF = 20
MAX_SLOPE = 1.5
# A benchmark whose process tree kept less than this share of one core
# busy over its timed region (``cpu_utilisation``: a batch of sleeps, a
# wait on I/O) waits three quarters of its time: a slower phase of the
# CPUs, which the probe and the block shifts read, barely moves it.  It
# takes no shift and no slope, and is moderated among the family's
# waiting benchmarks only.
WAITING_UTILISATION = 0.25
# Each family's block shifts as A/A runs moved them: (standard deviation
# in log terms, degrees of freedom), pooled over the shifts of the runs
# kept in bench/aa_shifts/.  From a first look's two blocks a file's own shift
# spread has one degree of freedom (t's 97.5% point 12.7), so each file's
# is moderated by this prior (:func:`moderated_shift`).  Fitted by
# bench/fit_shift_prior.py (its --check says whether these are its fit);
# docs/reading.rst gives the fit and the coverage out of sample.
SHIFT_PRIOR = {
    "ceiling": (0.0113, 6), "executor": (0.0357, 6), "gil": (0.0144, 6),
    "grwl": (0.0144, 6), "lock": (0.0081, 6), "pyops": (0.0162, 6),
    "service": (0.0109, 6),
}


@dataclass(frozen=True)
class Spread:
    """What a benchmark's mean draws from: ``variance`` of one worker
    process's mean (of its log where ``logged``), with ``df`` degrees of
    freedom (inf: as good as known); ``weights`` of its processes in its
    mean (pyperf's, of all values); ``blocks``, each process's block
    (None: its own); its ``family`` (a key) and that family's
    ``shift_sd`` with ``shift_df`` (0: no shift measured); ``pooled``:
    moderated by the family's prior."""
    variance: float
    df: float
    weights: tuple
    blocks: tuple = ()
    family: tuple = ()
    shift_sd: float = 0.0
    shift_df: int = 0
    pooled: bool = False
    logged: bool = True
    # The log factor that moves the mean to its family's median machine
    # state (the probe's slope; 0: as measured) -- and, where some of its
    # processes were in duets, to their precision-weighted mean -- how far
    # the processes' probes lay from that state on average (log), and the
    # slope's standard error, shared by ``slope_key``'s benchmarks (a
    # family's).
    adjustment: float = 0.0
    lever: float = 0.0
    slope_se: float = 0.0
    slope_key: tuple = ()
    # A process that was one of a duet's two (gilbench.measure.duet)
    # varies by what its pair's values did, not by what the machine did
    # between blocks: ``duets`` says which (empty: none), and they draw
    # from ``duet_variance`` with ``duet_df``.
    duet_variance: float = 0.0
    duet_df: float = math.inf
    duets: tuple = ()
    # A duet's block's shift (a process's machine state, not a pass's)
    # has its own spread: ``duet_shift_sd`` with ``duet_shift_df``;
    # ``duet_blocks`` says which of its processes' blocks are duets'.
    duet_shift_sd: float = 0.0
    duet_shift_df: int = 0
    duet_blocks: tuple = ()

    def _weights_squared(self, in_duet):
        marks = self.duets or (False,) * len(self.weights)
        return sum(w * w for w, d in zip(self.weights, marks)
                   if d == in_duet)

    @property
    def mean_variance(self):
        """The variance of the benchmark's mean (its log) from its
        processes apart from duets."""
        return self.variance * self._weights_squared(False)

    @property
    def duet_mean_variance(self):
        """... and from its processes in duets."""
        return self.duet_variance * self._weights_squared(True)


def identity(record):
    return (record.name, record.dims.get(INTERPRETER), record.run_values)


_FITTED = {}  # identity: Spread, of records a loaded file's fit saw


def spread_of(record, groups=None):
    """The Spread of ``record`` as its file's fit found it; else (a record
    made outside a loaded file, or ``groups`` of other numbers, one
    tuple per run) from its own processes alone; None with fewer than
    two values."""
    if groups is None:
        key = identity(record)
        if key in _FITTED:
            return _FITTED[key]
        groups = record.run_values or (record.values,)
    return own_spread(groups)


def positive(groups):
    return all(v > 0 for g in groups for v in g)


def process_means(groups, logged):
    means = numpy.array([numpy.mean(g) for g in groups], dtype=float)
    return numpy.log(means) if logged else means


def own_spread(groups):
    """A Spread from ``groups`` (values per process) alone: their process
    means' variance with processes - 1 degrees of freedom; from one
    process, its values' variance over their number, with values - 1."""
    groups = tuple(tuple(g) for g in groups if len(g))
    values = [v for g in groups for v in g]
    if len(values) < 2:
        return None
    logged = positive(groups)
    if len(groups) >= 2:
        variance = float(numpy.var(process_means(groups, logged), ddof=1))
        if logged:
            variance = max(variance, scatter(groups))
        df = len(groups) - 1
    else:
        data = numpy.log(values) if logged else numpy.asarray(values)
        variance = float(numpy.var(data, ddof=1)) / len(values)
        df = len(values) - 1
    return Spread(variance, df, weights(groups), (None,) * len(groups),
                  logged=logged)


def scatter(groups):
    """The variance of a process's log mean that its values' own scatter
    gives (their pooled variance within processes over the values a
    process has): a floor for processes whose means agree by chance."""
    groups = list(groups)
    return scatter_of([numpy.log(numpy.asarray(g, dtype=float))
                       for g in groups if len(g) >= 2],
                      sum(len(g) for g in groups) / float(len(groups) or 1))


def values_df(groups):
    """The degrees of freedom of the scatter within ``groups`` (those of
    two values or more): their values less one per group."""
    return sum(len(g) - 1 for g in groups if len(g) >= 2)


def floored(variance, df, floor, floor_df):
    """(variance, df): ``variance`` with ``df`` degrees of freedom, or
    where the scatter of the values gives more (``floor``, with
    ``floor_df``), that with its own -- a moderation's correction for
    few df must not inflate a floor that is no chi-square of them."""
    if floor > variance and floor_df > 0:
        return floor, floor_df
    return variance, df


def scatter_of(within, per_process=None):
    """The pooled variance of ``within`` (arrays, each a process's logged
    values, two or more) over the values a process has on average
    (``per_process``; default: theirs): the variance of a process's mean
    that their scatter gives (0 from none)."""
    if not within:
        return 0.0
    pooled = (sum(float(numpy.var(g, ddof=1)) * (len(g) - 1) for g in within)
              / sum(len(g) - 1 for g in within))
    return pooled / (per_process or sum(len(g) for g in within)
                     / float(len(within)))


def weights(groups):
    """Each process's weight in the mean of all values."""
    total = float(sum(len(g) for g in groups))
    return tuple(len(g) / total for g in groups)


def at_median_state(record):
    """``record`` with its mean at its family's median machine state (as
    the fit moved it; unchanged where it did not)."""
    found = _FITTED.get(identity(record))
    if found is None or not found.adjustment or record.mean is None:
        return record
    return replace(record, mean=record.mean * math.exp(found.adjustment))


def fit(records, split=lambda record: False, shift_priors=None):
    """Fit one result file's measured ``records``, family by family, and
    keep each one's Spread (:func:`spread_of` finds it); ``split`` tells a
    record whose processes disagree (#); ``shift_priors``: SHIFT_PRIOR
    unless given.  Returns what it kept, for :func:`keep` in another
    process."""
    families, found = {}, {}
    for record in records:
        groups = tuple(g for g in record.run_values if len(g))
        if record.measured and groups and positive(groups):
            key = (record.dims.get(INTERPRETER), record.dims.get("family"))
            families.setdefault(key, []).append(record)
    priors = SHIFT_PRIOR if shift_priors is None else shift_priors
    for key, members in families.items():
        for record, spread in zip(members, fit_family(
                key, members, split, priors.get(key[1]))):
            found[identity(record)] = spread
    keep(found)
    return found


def keep(found):
    """Keep ``found`` ({identity: Spread}, what :func:`fit` returned,
    maybe in a forked child) for :func:`spread_of`."""
    _FITTED.update(found)


def fit_family(key, records, split=lambda record: False, shift_prior=None):
    """The Spreads of one family's ``records`` (see the module's doc);
    ``shift_prior``: the family's (sd, df) from SHIFT_PRIOR, or None."""
    ys, blocks = [], []
    for index, record in enumerate(records):
        groups = [g for g in record.run_values if len(g)]
        ys.append(process_means(groups, True))
        named = ((None,) * len(groups) if waits(record)
                 else tuple(record.run_blocks or ()) + (None,) * len(groups))
        blocks.append(tuple(b if b is not None else ("own", index, k)
                            for k, b in enumerate(named[:len(groups)])))
    ys, states, slopes = _at_median_state(records, ys)
    shifts = _shifts(ys, blocks)
    mus = [numpy.mean(y - [shifts.get(b, 0.0) for b in bl])
           for y, bl in zip(ys, blocks)]
    residuals = [y - mu - [shifts.get(b, 0.0) for b in bl]
                 for y, mu, bl in zip(ys, mus, blocks)]
    beside = _beside(records, blocks)
    in_duets = _in_duets(records, blocks, beside)
    duets = _duets(records, blocks, shifts, in_duets)
    moderated, moderated_duet = _class_spreads(
        records, residuals, duets, blocks, beside, shifts, slopes, split)
    # A duet class its family cannot lend a degree of freedom to (two
    # duets, no prior) would draw t at half of one: its processes join
    # the record's others, their shifts still cancelling.
    folded = [i for i, class_spread in enumerate(moderated_duet)
              if duets[i].any() and (class_spread is None
                                     or class_spread[1] < MIN_CLASS_DF)]
    if folded:
        for index in folded:
            duets[index] = numpy.zeros(len(duets[index]), dtype=bool)
        moderated, moderated_duet = _class_spreads(
            records, residuals, duets, blocks, beside, shifts, slopes,
            split)
    # A duet's block holds one process of two benchmarks, a family-wide
    # block one of each: their shifts vary by a process's machine state
    # and by a pass's, each its own spread.
    paired_blocks = set(block for _, block in in_duets)
    shift_sd, shift_df = moderated_shift(_spread_of_shifts(
        [v for b, v in shifts.items() if b not in paired_blocks]),
        shift_prior)
    duet_shift_sd, duet_shift_df = _spread_of_shifts(
        [v for b, v in shifts.items() if b in paired_blocks])
    found = []
    for index, (record, bl) in enumerate(zip(records, blocks)):
        groups = [g for g in record.run_values if len(g)]
        apart, duet = moderated[index], moderated_duet[index]
        if apart is None and duet is None:
            fallback = own_spread(groups)
            if fallback is None:
                found.append(None)
                continue
            apart = (fallback.variance, fallback.df, False)
        shared = tuple(b if b in shifts else None for b in bl)
        in_duet = (tuple(bool(d) for d in duets[index]) if duet is not None
                   else ())
        state = dict(states[index])
        combined = weights(groups)
        if in_duet:
            combined, moved = precision_weights(
                groups, in_duet, apart[0] if apart else 0.0, duet[0])
            state["adjustment"] = state.get("adjustment", 0.0) + moved
        found.append(Spread(
            apart[0] if apart else 0.0, apart[1] if apart else math.inf,
            combined, shared, key, shift_sd, shift_df,
            pooled=bool((apart or duet)[2]),
            duet_variance=duet[0] if duet else 0.0,
            duet_df=duet[1] if duet else math.inf, duets=in_duet,
            duet_shift_sd=duet_shift_sd, duet_shift_df=duet_shift_df,
            duet_blocks=tuple(b in paired_blocks for b in bl), **state))
    return found


def _in_duets(records, blocks, beside):
    """{(id of a record, a block)} of the processes that were one of a
    duet's two (gilbench.measure.duet): naming a partner, in a block
    that holds two (``beside``: _beside's)."""
    found = set()
    for record, bl in zip(records, blocks):
        partners = tuple(record.run_partners or ()) + (None,) * len(bl)
        found.update((id(record), block)
                     for block, partner in zip(bl, partners)
                     if partner is not None and (id(record), block) in beside)
    return found


def _spread_of_shifts(values):
    """(standard deviation, degrees of freedom) of block shifts ``values``;
    (0.0, 0) from fewer than two."""
    if len(values) < 2:
        return 0.0, 0
    return float(numpy.std(values, ddof=1)), len(values) - 1


def moderated_shift(own, prior):
    """(sd, df) of a family's block shifts, ``own`` (sd, df) from this
    file's blocks, moderated by the family's ``prior`` (sd, df) fitted on
    A/A runs as a residual variance is by its family's (limma's
    weighting: the degrees of freedom add up); its own alone where it
    measured none, where there is no prior, or where its variance lies
    beyond the prior's OWN_QUANTILE (an F test: this machine moves more
    than the one the prior was fitted on)."""
    sd, df = own
    if not df or prior is None:
        return own
    from scipy import stats
    prior_sd, prior_df = prior
    if sd * sd > prior_sd * prior_sd * stats.f.ppf(OWN_QUANTILE, df,
                                                   prior_df):
        return own
    return (math.sqrt((prior_df * prior_sd ** 2 + df * sd ** 2)
                      / (prior_df + df)), prior_df + df)


def _class_spreads(records, residuals, duets, blocks, beside, shifts,
                   slopes, split):
    """Each record's moderated (variance, df, pooled) of its processes
    apart and of those in duets (``duets``: which), or None."""
    kept = _kept_apart(blocks, duets, shifts, slopes)
    own, own_duet, classes = [], [], []
    for record, r, in_duet, bl in zip(records, residuals, duets, blocks):
        groups = [g for g in record.run_values if len(g)]
        apart, duet = _classes(r, in_duet)
        classes.append((apart, duet))
        df = (len(apart) - 1) * kept
        own.append((max(float(apart @ apart) / df, scatter(
            [g for g, d in zip(groups, in_duet) if not d]))
            if df > 0 else None, df))
        # A duet's shift takes one of its two processes' two df.
        df = (len(duet) - 1) / 2.0
        own_duet.append((max(float(duet @ duet) / df, paired_scatter([
            (groups[k], beside[(id(record), block)])
            for k, block in enumerate(bl) if in_duet[k]]))
            if df > 0 else None, df))
    # Processes of duets differ by the machine's phases, which their pairs
    # cancel: their record's split (#) says nothing of its spread.
    apart_split = dict((id(record), split(record) and not in_duet.any())
                       for record, in_duet in zip(records, duets))

    def split_apart(record):
        return apart_split[id(record)]
    return (_moderate(records, own, [c[0] for c in classes], split_apart),
            _moderate(records, own_duet, [c[1] for c in classes],
                      split_apart))


def precision_weights(groups, in_duet, apart, duet):
    """(each process's weight in the mean, the log factor that moves the
    mean of all values to that weighted one): pyperf's weights (its
    values' share) over each process's variance -- ``duet`` where it was
    in a duet, else ``apart`` -- so a mean leans on the processes that
    tell it best (inverse-variance weights); pyperf's where either is not
    positive."""
    plain = numpy.asarray(weights(groups))
    marks = numpy.asarray(in_duet, dtype=bool)
    if duet <= 0 or (apart <= 0 and not marks.all()):
        return tuple(plain), 0.0
    spread = numpy.where(marks, duet, apart if apart > 0 else 1.0)
    combined = plain / spread
    combined = combined / combined.sum()
    means = numpy.array([numpy.mean(g) for g in groups], dtype=float)
    return (tuple(float(w) for w in combined),
            math.log(float(combined @ means) / float(plain @ means)))


def _duets(records, blocks, shifts, in_duets):
    """Per record, a bool array: which of its processes were one of a
    duet's two in this family (``in_duets``: _in_duets's), with a shift
    of its own -- where it has MIN_DUETS of them; fewer are its other
    processes' class (each class spends a degree of freedom on its own
    mean)."""
    found = []
    for record, bl in zip(records, blocks):
        marks = numpy.array([block in shifts and (id(record), block)
                             in in_duets for block in bl], dtype=bool)
        found.append(marks if marks.sum() >= MIN_DUETS
                     else numpy.zeros(len(bl), dtype=bool))
    return found


def _beside(records, blocks):
    """{(id of a record, a block): the values of the other record of that
    block}, for blocks of two."""
    holders = {}
    for record, bl in zip(records, blocks):
        groups = [g for g in record.run_values if len(g)]
        for block, group in zip(bl, groups):
            holders.setdefault(block, []).append((id(record), group))
    found = {}
    for block, held in holders.items():
        if len(held) == 2:
            for (mine, _), (_, theirs) in (held, held[::-1]):
                found[(mine, block)] = theirs
    return found


def paired_scatter(pairs):
    """The floor of a duet's process's variance (half its pair's): the
    variance its log ratio's mean gets from the scatter of the log ratios
    of its values, each beside its partner's (``pairs``: (values,
    partner's values) per process), pooled within processes over the
    values a process has, halved between the two."""
    within = []
    for mine, theirs in pairs:
        count = min(len(mine), len(theirs))
        if count >= 2:
            within.append(numpy.log(numpy.asarray(mine[:count], dtype=float)
                                    / numpy.asarray(theirs[:count],
                                                    dtype=float)))
    return scatter_of(within) / 2.0


def _classes(residuals, in_duet):
    """(the residuals of a record's processes apart, of those in duets):
    where it has both, each about its own mean -- a process in a duet
    tells its mean's difference from its partner's, one apart the mean
    itself, and their means differ by more than their scatter."""
    apart, duet = residuals[~in_duet], residuals[in_duet]
    if not in_duet.any():
        return apart, duet
    return (apart - apart.mean() if len(apart) else apart,
            duet - duet.mean())


def _kept_apart(blocks, duets, shifts, slopes):
    """The share of the processes apart from duets' degrees of freedom
    left once the shifts of their blocks (and the slope) are out; the
    shifts are centred: one fewer."""
    free, pairs = 0.0, set()
    for bl, in_duet in zip(blocks, duets):
        free += max(len(bl) - in_duet.sum() - 1, 0)
        pairs.update(b for b, d in zip(bl, in_duet) if d)
    spent = max(len(shifts) - len(pairs) - 1, 0) + slopes
    return (free - spent) / free if free > 0 else 0.0


def _moderate(records, own, residuals, split):
    """Each record's (variance, df, pooled) of ``own`` (each its (variance
    or None, df), from ``residuals``), moderated per class
    (:func:`_class_of`) by the family's prior; None where it has
    neither."""
    sharing, priors = set(), {}
    for kind, members in _by_class(records).items():
        shared = _sharing([i for i in members if own[i][0]
                           and not split(records[i])], own)
        sharing.update(shared)
        priors[kind] = (
            pooled_prior([residuals[i] for i in shared],
                         [own[i] for i in shared])
            or moderation_prior([own[i][0] for i in shared],
                                [own[i][1] for i in shared]))
    found = []
    for index, (record, (variance, df)) in enumerate(zip(records, own)):
        alone = split(record) or (bool(variance) and index not in sharing)
        found.append(_moderated(variance, df, priors[_class_of(record)],
                                alone))
    return found


def _by_class(records):
    """{class: the indexes of ``records`` in it}: a prior is a class's
    own (:func:`_class_of`)."""
    found = {}
    for index, record in enumerate(records):
        found.setdefault(_class_of(record), []).append(index)
    return found


def _class_of(record):
    """Its concurrency, whose contention varies a benchmark by its own
    amount; or, for one that waits, the family's waiting ones at any
    concurrency, whose threads do not contend."""
    return "waits" if waits(record) else record.concurrency


def waits(record):
    """Whether ``record`` mostly waits (WAITING_UTILISATION)."""
    return (record.cpu_utilisation is not None
            and record.cpu_utilisation < WAITING_UTILISATION)


def probe_logs(record, count):
    """The log of each of ``record``'s ``count`` processes' machine probe
    (nan where it has none)."""
    probes = tuple(record.run_probes or ()) + (None,) * count
    return numpy.array([math.log(p) if isinstance(p, (int, float)) and p > 0
                        else numpy.nan for p in probes[:count]])


def _at_median_state(records, ys):
    """(each record's log process means moved to the family's median
    probe, each record's Spread fields that say how, how many slopes were
    fitted: 1 or 0); see the module's doc."""
    probes = [probe_logs(record, len(y)) if not waits(record)
              else numpy.full(len(y), numpy.nan)
              for record, y in zip(records, ys)]
    states = [{} for _ in records]
    found = common_slope(ys, probes)
    if found is None:
        return ys, states, 0
    slope, slope_se = found
    median = float(numpy.nanmedian(numpy.concatenate(probes)))
    moved = []
    for record, y, p, state in zip(records, ys, probes, states):
        off = numpy.nan_to_num(p - median, nan=0.0)
        factors = numpy.exp(-slope * off)
        moved.append(y + numpy.log(factors))
        # Each process's values scaled by its own factor: the mean of all
        # values as if all were measured at the median state.
        weight = numpy.asarray(weights(record.run_values))
        share = weight * numpy.exp(y)
        state.update(
            adjustment=math.log(float(numpy.dot(share, factors))
                                / float(share.sum())),
            lever=float(numpy.dot(weight, off)),
            slope_se=slope_se,
            slope_key=(record.dims.get(INTERPRETER),
                       record.dims.get("family")))
    return moved, states, 1


def common_slope(ys, probes):
    """(slope, its standard error) of log means ``ys`` on log ``probes``
    (each a record's processes), within each record, by least squares
    (numpy.linalg.lstsq), the slope within [0, MAX_SLOPE]; None with
    fewer than MIN_SLOPE_DF degrees of freedom or probes that do not
    move."""
    centred_y, centred_p = [], []
    for y, p in zip(ys, probes):
        known = numpy.isfinite(p)
        if known.sum() >= 2:
            centred_y.append(y[known] - y[known].mean())
            centred_p.append(p[known] - p[known].mean())
    if not centred_p:
        return None
    x = numpy.concatenate(centred_p)
    free = len(x) - len(centred_p) - 1
    if free < MIN_SLOPE_DF or not numpy.any(x):
        return None
    y = numpy.concatenate(centred_y)
    slope = float(numpy.linalg.lstsq(x[:, None], y, rcond=None)[0][0])
    residual = y - slope * x
    se = math.sqrt(float(residual @ residual) / free / float(x @ x))
    return float(numpy.clip(slope, 0.0, MAX_SLOPE)), se


def _shifts(ys, blocks):
    """{block: its shift} of the blocks with MIN_BLOCK_RECORDS records,
    centred on their mean; alternating until the shifts move by less than
    CONVERGED (or ITERATIONS times)."""
    members = {}
    for index, bl in enumerate(blocks):
        for k, block in enumerate(bl):
            members.setdefault(block, []).append((index, k))
    names = [b for b, m in members.items()
             if len({i for i, _ in m}) >= MIN_BLOCK_RECORDS]
    if not names:
        return {}
    # Flat arrays: each process's log mean, its record, its block's
    # position among the shared ones (len(names): none).
    position = dict((b, n) for n, b in enumerate(names))
    flat = numpy.concatenate(ys)
    rows = numpy.concatenate([numpy.full(len(y), i) for i, y in
                              enumerate(ys)])
    where = numpy.array([position.get(b, len(names)) for bl in blocks
                         for b in bl])
    sizes = numpy.bincount(rows, minlength=len(ys))
    chosen = [numpy.flatnonzero(where == n) for n in range(len(names))]
    shifts = numpy.zeros(len(names) + 1)
    mus = numpy.bincount(rows, flat, len(ys)) / sizes
    for _ in range(ITERATIONS):
        residual = flat - mus[rows]
        moved = numpy.array([trimmed_mean(residual[c]) for c in chosen])
        moved -= moved.mean()
        change = float(numpy.max(numpy.abs(moved - shifts[:-1])))
        shifts[:-1] = moved
        mus = numpy.bincount(rows, flat - shifts[where], len(ys)) / sizes
        if change < CONVERGED:
            break
    return dict(zip(names, (float(v) for v in shifts[:-1])))


def trimmed_mean(values):
    """The mean of ``values`` less TRIM of them at each end, as
    scipy.stats.trim_mean cuts (int(TRIM x n) each side), in numpy: the
    fit calls it thousands of times, where scipy's wrapper costs more than
    the sort."""
    ordered = numpy.sort(values)
    cut = int(TRIM * len(ordered))
    return float(numpy.mean(ordered[cut:len(ordered) - cut]))


def _sharing(candidates, own):
    """The ``candidates`` (indexes into ``own``, each (variance, df)) left
    once those beyond OWN_QUANTILE of the others' pooled variance (an F
    test) are set aside, the worst first, one at a time."""
    from scipy import stats
    kept = list(candidates)
    while len(kept) >= 3:
        variances = numpy.array([own[i][0] for i in kept])
        dfs = numpy.array([own[i][1] for i in kept])
        total = dfs.sum()
        rest = total - dfs
        others = ((variances * dfs).sum() - variances * dfs) / rest
        excess = variances / others / stats.f.ppf(OWN_QUANTILE, dfs, rest)
        worst = int(numpy.argmax(excess))
        if excess[worst] <= 1:
            break
        del kept[worst]
    return kept


def pooled_prior(residuals, own):
    """(pooled variance, its degrees of freedom, True) where the
    benchmarks' ``residuals`` pass Bartlett's test of equal variances
    (scipy.stats.bartlett, p >= SHARED_P): one variance for all, with all
    their degrees of freedom; else None.  ``own``: each one's (variance,
    df)."""
    if len(residuals) < 3:
        return None
    from scipy import stats
    if stats.bartlett(*residuals).pvalue < SHARED_P:
        return None
    total = sum(df for _, df in own)
    return sum(v * df for v, df in own) / total, total, True


def moderation_prior(variances, dfs):
    """limma's prior (s0^2, d0, False) from ``variances`` with ``dfs``
    degrees of freedom (Smyth 2004, section 6.2: moments of the log
    variances); d0 is inf where they spread no more than chance gives;
    None from fewer than three."""
    if len(variances) < 3:
        return None
    from scipy import special
    s2 = numpy.asarray(variances, dtype=float)
    d = numpy.asarray(dfs, dtype=float)
    e = numpy.log(s2) - special.digamma(d / 2) + numpy.log(d / 2)
    centre = float(numpy.mean(e))
    excess = (float(numpy.var(e, ddof=1))
              - float(numpy.mean(special.polygamma(1, d / 2))))
    if excess <= 0:
        return math.exp(centre), math.inf, False
    d0 = 2 * _trigamma_inverse(excess)
    return (math.exp(centre + special.digamma(d0 / 2) - math.log(d0 / 2)),
            d0, False)


def _trigamma_inverse(y):
    """x with polygamma(1, x) = y (trigamma falls from inf to 0)."""
    from scipy import optimize, special
    return optimize.brentq(lambda x: special.polygamma(1, x) - y,
                           1e-8, 1e8)


def moderated(variance, df, prior):
    """(variance, df, pooled) of an estimate with ``df`` degrees of
    freedom under a family's ``prior`` (moderation_prior's)."""
    return _moderated(variance, df, prior, False)


def _moderated(variance, df, prior, alone):
    """(variance, df, pooled) of one benchmark, or None where it has
    neither its own (one process) nor a prior; ``alone``: it keeps its
    own (its processes split, or it does not share the family's)."""
    if alone or prior is None:
        return None if variance is None else (variance, df, False)
    s0, d0, pooled = prior
    if variance is None or pooled or math.isinf(d0):
        return s0, d0, True
    return (d0 * s0 + df * variance) / (d0 + df), d0 + df, True
