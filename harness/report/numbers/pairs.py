"""A ratio of two benchmarks measured together: the spread of their
duets' log ratios.

A duet (gilbench.measure.duet) is one worker process holding two
benchmarks, their values alternating, each run naming the other.  What
the machine did while it ran is in both, so the log of its ratio, d_k =
log mean(A's values) - log mean(B's values), varies by the pair's own
noise only, far less than whole processes apart vary on a shared host
(docs/reading.rst, "Duets", gives the figures).  Where two benchmarks of one
file were measured in MIN_PAIRED duets or more, their ratio is read from
those duets alone (a paired design: Bulej et al., "Duet Benchmarking",
2020):

- the estimate is exp(mean d_k);
- its variance is the d_k's sample variance over their number, with
  (duets - 1) degrees of freedom, never below what the scatter of their
  values' log ratios within each duet gives (two duets agree by chance),
  and then with the values' degrees of freedom;
- from two or three duets that is rough, so it is moderated as limma
  does (Smyth 2004; gilbench.report.numbers.variance's
  moderation_prior) by the family's other pairs of its shape, the
  concurrencies of its two sides: a pair at 2 threads contending for the
  GIL varies by a factor where two 1-thread calls vary by percents, and
  a case at 1 thread against itself at 2 (a speedup) by more than two
  cases both at 2 (a ratio), which share how the threads interleave;
  where that leaves it fewer than MIN_DF degrees of freedom, the ratio
  is its two means' as below;
- the interval draws it from Student's t with the moderated degrees of
  freedom (gilbench.report.numbers.intervals, Resampler.ratio), widened
  for the pair's decision looks as a mean's draws are.

Processes measured apart do not enter a paired ratio: their level moves
with the machine's phases, which is what the pairs cancel.  Everything
else -- a mean read alone, a best-of, a pair with fewer duets -- draws
each benchmark's mean as gilbench.report.numbers.variance fits it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy

from gilbench.model.resultformat import INTERPRETER
from gilbench.report.numbers import variance

# A pair's ratio is read from its duets from this many: two give one
# degree of freedom, which the family's other pairs add to.
MIN_PAIRED = 2
# ... where that leaves it this many degrees of freedom or more: at one
# (two duets, fewer than three pairs of its shape to lend it
# theirs) Student's t's 97.5% point is 12.7, and its two means, each
# moderated by its family's processes apart, tell the ratio better.
MIN_DF = 2


@dataclass(frozen=True)
class PairSpread:
    """What a paired ratio draws from: ``log_ratio`` (the mean of its
    duets' log ratios, first over second, as ``first`` names them), the
    ``variance`` of one duet's log ratio, moderated, with ``df`` degrees
    of freedom (inf: as good as known), over ``duets``; ``pooled``:
    moderated by the family's prior."""
    first: tuple
    log_ratio: float
    variance: float
    df: float
    duets: int
    pooled: bool = False

    @property
    def mean_variance(self):
        return self.variance / self.duets


_FITTED = {}  # frozenset of two identities: PairSpread


def spread(top, bottom):
    """(PairSpread, sign: 1 where it reads ``top`` over ``bottom``, -1
    the other way) of two records of one loaded file measured together in
    MIN_PAIRED duets or more; None otherwise."""
    one, other = variance.identity(top), variance.identity(bottom)
    found = _FITTED.get(frozenset((one, other)))
    if found is None or one == other:
        return None
    return found, (1 if found.first == one else -1)


def keep(found):
    """Keep ``found`` (what :func:`fit` returned, maybe in a forked
    child) for :func:`spread`."""
    _FITTED.update(found)


def fit(records):
    """The PairSpread of every pair of one result file's measured
    ``records`` with MIN_PAIRED duets together, kept for :func:`spread`;
    returns what it kept."""
    families = {}
    for record in records:
        if record.measured and any(p is not None
                                   for p in record.run_partners or ()):
            key = (record.dims.get(INTERPRETER), record.dims.get("family"))
            families.setdefault(key, []).append(record)
    found = {}
    for members in families.values():
        found.update(_fit_family(members))
    keep(found)
    return found


def duets_of(records):
    """{(first's name, second's name): [(first's values, second's values)
    per duet]} of ``records`` (one family's): each duet's two processes
    found by their shared block and naming each other."""
    by_name = dict((record.name, record) for record in records)
    held = {}  # (name, block): (its values, its partner's name)
    for record in records:
        for values, block, partner in zip(record.run_values,
                                          record.run_blocks or (),
                                          record.run_partners or ()):
            if partner is not None and block is not None and len(values):
                held[(record.name, block)] = (values, partner)
    found = {}
    for (name, block), (values, partner) in held.items():
        theirs = held.get((partner, block))
        if theirs is None or theirs[1] != name or not name < partner:
            continue  # not a duet of both, or found from its other side
        if partner in by_name:
            found.setdefault((name, partner), []).append((values,
                                                          theirs[0]))
    return found


def _own(duets):
    """(log ratios' mean, their variance, df) of a pair's ``duets``: the
    variance between its duets, with (duets - 1) df, or where the scatter
    of the values within them gives more, that, with the values' df
    (variance.floored)."""
    logs = numpy.array([math.log(numpy.mean(a) / numpy.mean(b))
                        for a, b in duets])
    own = float(numpy.var(logs, ddof=1))
    within = [numpy.log(numpy.asarray(a[:n], dtype=float)
                        / numpy.asarray(b[:n], dtype=float))
              for a, b in duets for n in [min(len(a), len(b))] if n >= 2]
    return (float(logs.mean()),) + variance.floored(
        own, len(logs) - 1, variance.scatter_of(within),
        variance.values_df(within))


def _prior(own, members):
    """The family's prior (variance.moderation_prior) from ``members``'
    own (centre, variance, df); None from fewer than three."""
    return variance.moderation_prior([own[p][1] for p in members],
                                     [own[p][2] for p in members])


def _fit_family(records):
    by_name = dict((record.name, record) for record in records)
    pairs = dict((pair, duets) for pair, duets in duets_of(records).items()
                 if len(duets) >= MIN_PAIRED
                 and all(v > 0 for a, b in duets for v in a + b))
    own = dict((pair, _own(duets)) for pair, duets in pairs.items())
    by_shape = {}
    for pair in pairs:
        key = tuple(sorted(by_name[name].concurrency for name in pair))
        by_shape.setdefault(key, []).append(pair)
    found = {}
    for members in by_shape.values():
        prior = _prior(own, members)
        for pair in members:
            centre, variance_, df = own[pair]
            moderated, moderated_df, pooled = (
                variance.moderated(variance_, df, prior) if prior
                else (variance_, df, False))
            if moderated_df < MIN_DF:
                continue  # its two means, moderated, tell it better
            first, second = (variance.identity(by_name[name])
                             for name in pair)
            found[frozenset((first, second))] = PairSpread(
                first, centre, moderated, moderated_df, len(pairs[pair]),
                pooled)
    return found
