"""``scaling``: the scalability law fitted to the speedups."""
from __future__ import annotations

from gilbench.report.data.records import Cell
from gilbench.report.kinds.base import interval_text, is_number
from gilbench.report.kinds.speedup import Speedup
from gilbench.report.numbers import cells, scalability


class Scaling(Speedup):
    """The scalability-law fit of the speedups over ``over``."""

    @property
    def consumed(self):
        return (self.spec["over"],)

    def anchors(self, records):
        return records

    def points(self, lookup, dims):
        """[(N / baseline, speedup, spread)] and the records behind them."""
        over, baseline = self.spec["over"], self.spec["baseline"]
        counts = sorted(v for v in lookup.values(dims, over) if is_number(v))
        found, records = [], []
        for n in counts:
            measured = self.measure(lookup, {**dims, over: n})
            if isinstance(measured, Cell):
                continue
            speedup, _, this, base = measured
            found.append((n / baseline, speedup,
                          speedup * (this.rsd ** 2 + base.rsd ** 2) ** 0.5))
            records += [this, base]
        return found, records

    def fitted(self, lookup, dims):
        """(Fit, records) or a Cell saying why there is none."""
        if not is_number(self.spec["baseline"]):
            return cells.missing("n/a: %s is not numeric"
                                 % self.spec["over"])
        points, records = self.points(lookup, dims)
        cpus = max((r.cpus_usable for r in records), default=0)
        reason = scalability.not_fitted(points, cpus)
        if reason:
            return cells.missing(reason)
        fit = scalability.fit(points)
        reason = scalability.undetermined(fit)
        if reason:
            return cells.missing(reason)
        return fit, records

    def cell(self, lookup, dims):
        found = self.fitted(lookup, dims)
        if isinstance(found, Cell):
            return found
        fit, records = found
        return Cell(fit_text(fit), None, flags=cells.flags(*records),
                    brief=peak_text(fit))

    answer = cell

    def describe(self, grid):
        return ("The speedups over %s fitted: s (contention), k "
                "(coherence) and the N where the fitted curve peaks, each "
                "with its interval; a fit needs %d counts within the usable "
                "CPUs, and is n/a where s or k stays undetermined. %s." % (
                    self.spec["over"], scalability.MIN_POINTS,
                    scalability.METHOD))


def _bound(number):
    return "inf" if number == float("inf") else cells.significant(number)


def peak_text(fit):
    """Where the fitted curve peaks, alone (the count; "no peak"): what a
    compact matrix shows of a fit."""
    if fit.k <= 0:
        return "no peak"
    if fit.peak <= 1.0:
        return "1"
    return _bound(fit.peak)


def fit_text(fit):
    if fit.k <= 0:
        peak = "no peak (k=0)"
    elif fit.peak <= 1.0:
        peak = "peak at 1 (no count is faster than one)"
    else:
        peak = "peak %s %s" % (_bound(fit.peak), interval_text(
            fit.peak_interval, _bound))
    return "s=%s %s, k=%s %s, %s" % (
        _coefficient(fit.s), interval_text(fit.s_interval, _coefficient),
        _coefficient(fit.k), interval_text(fit.k_interval, _coefficient),
        peak.strip())


def _coefficient(number):
    """s or k: a share, shown to 0.001 (a fit's 4e-21 is 0)."""
    return "0" if abs(number) < 0.0005 else cells.significant(number)
