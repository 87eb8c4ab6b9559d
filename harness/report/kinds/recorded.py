"""``recorded``: a number the case recorded per run."""
from __future__ import annotations

import weakref

import numpy

from gilbench.model.resultformat import INTERPRETER
from gilbench.report.data.records import Cell
from gilbench.report.kinds.base import Kind, interval_text
from gilbench.report.numbers import cells, intervals, variance
from gilbench.report.numbers.cells import spaced


def bounds_of(spec, record):
    """The (low, high) a bounded recorded cell declares, for ``record``
    ("1/threads": one over its threads), or None."""
    declared = spec.get("bounds")
    if not declared:
        return None
    found = []
    for bound in declared:
        if isinstance(bound, str) and bound.startswith("1/"):
            count = record.dims.get(bound[2:])
            if not isinstance(count, (int, float)) or count <= 0:
                return None
            bound = 1.0 / count
        found.append(float(bound))
    return tuple(found)


def recorded_draws(spec, record, lookup=None):
    """The drawn means of ``spec``'s key over ``record``'s runs: a
    bounded index's within its bounds (intervals.bounded, its spread
    moderated by its peers' in ``lookup``: logit_spread), else as any
    mean (intervals.Resampler.means); None with too few runs."""
    runs = record.recorded_runs.get(spec["key"], ())
    found = bounds_of(spec, record)
    if found is not None:
        return intervals.bounded(record, runs, *found, spread=logit_spread(
            spec, record, lookup))
    return intervals.SHARED.means(record, runs)


def logits(spec, record):
    """The logits of where ``record``'s runs of ``spec``'s bounded key lie
    between its bounds (intervals.logits), or None."""
    found = bounds_of(spec, record)
    runs = record.recorded_runs.get(spec["key"], ())
    if found is None or len(runs) < intervals.MIN_VALUES:
        return None
    return intervals.logits(runs, *found)


def logit_spread(spec, record, lookup):
    """(variance, degrees of freedom) of one run's logit of ``record``'s
    bounded index, moderated as the means' variances are (variance.
    moderation_prior: Smyth 2004) by its peers in ``lookup``: the same
    family's records of the key at the same concurrency on the same
    interpreter.  Two runs give a variance one degree of freedom; a
    family's eight fairness cells give their prior several.  None (the
    record's own alone) without three peers that vary."""
    if lookup is None:
        return None
    mine = logits(spec, record)
    if mine is None:
        return None
    peers = (record.dims.get("family"), record.dims.get(INTERPRETER),
             record.concurrency, spec["key"], tuple(spec["bounds"]))
    kept = _PRIORS.setdefault(lookup, {})
    prior = kept.get(peers)
    if prior is None:
        variances, dfs = [], []
        for other in lookup.records:
            if (other.dims.get("family"), other.dims.get(INTERPRETER),
                    other.concurrency) != peers[:3]:
                continue
            found = logits(spec, other)
            spread = 0.0 if found is None else float(numpy.var(found, ddof=1))
            if spread > 0:
                variances.append(spread)
                dfs.append(len(found) - 1)
        prior = kept[peers] = (variance.moderation_prior(variances, dfs)
                               or ())
    if not prior:
        return None
    own = float(numpy.var(mine, ddof=1))
    return variance.moderated(own, len(mine) - 1, prior)[:2]


# logit_spread's priors, by lookup (held weakly) and peers: a page asks for
# each of a family's cells, and best-ofs again.
_PRIORS = weakref.WeakKeyDictionary()


class Recorded(Kind):
    """A per-run number the case recorded, averaged over the runs."""

    def cell(self, lookup, dims):
        record, reason = lookup.get(dims)
        if record is None:
            return cells.missing(reason)
        key, unit = self.spec["key"], self.spec["unit"]
        number = record.recorded.get(key)
        if number is None:
            return cells.missing("n/a: not recorded")
        means = recorded_draws(self.spec, record, lookup)
        interval = None if means is None else intervals.bounds(means)
        text = spaced(cells.si(number) + (" " + unit if unit else ""),
                       interval_text(interval, cells.si))
        return Cell(text, number, None, cells.flags(record),
                    interval=interval, brief=cells.si(number))

    def describe(self, grid):
        if self.spec.get("bounds"):
            return ("%s, as the case recorded it per run (mean over runs), "
                    "an index between %s and %s; [low-high]: its 95%% "
                    "interval, Student's t over the runs on the logit of "
                    "where it lies between them, so within them."
                    % (self.spec["key"], self.spec["bounds"][0],
                       self.spec["bounds"][1]))
        return ("%s, as the case recorded it per run (mean over runs). %s"
                % (self.spec["key"],
                   intervals.NOTE.replace("pyperf values", "runs")))

    y_format = "si"

    def y_label(self):
        key, unit = self.spec["key"], self.spec["unit"]
        return "%s (%s)" % (key, unit) if unit else key
