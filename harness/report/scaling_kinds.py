"""Cell kinds that judge scaling over a count axis: efficiency against the
ideal or against this machine's ceiling, and the scalability-law fit."""
from __future__ import annotations

from gilbench.model import resultformat as fmt
from gilbench.model.resultformat import INTERPRETER
from gilbench.report import cells, intervals, scalability
from gilbench.report.cells import spaced
from gilbench.report.kinds import Speedup, interval_text
from gilbench.report.model import Cell

NO_CEILING = ("n/a: no ceiling results for this interpreter (run the "
              "ceiling family)")


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class Efficiency(Speedup):
    """Speedup / (N / baseline), or speedup / the ceiling family's speedup
    at the same N: 1.0 is as good as it gets."""

    def ceiling_pair(self, dims, this):
        """(ceiling at baseline, ceiling at N) records, or a reason."""
        axis = this.count_axis or "threads"
        base = {"family": fmt.CEILING_FAMILY, "case": fmt.CEILING_CASE,
                "variant": axis, "backend": "cython",
                INTERPRETER: dims.get(INTERPRETER)}
        if self.ceiling is None:
            return NO_CEILING
        one, reason = self.ceiling.get({**base, axis: self.spec["baseline"]})
        many, many_reason = self.ceiling.get(
            {**base, axis: dims[self.spec["over"]]})
        if one is None or many is None:
            why = cells.first_reason([reason, many_reason])
            return NO_CEILING if why == cells.NOT_RUN else why
        return one, many

    def efficiency(self, lookup, dims):
        """(efficiency, interval, reference speedup, speedup, records) or
        a Cell saying why there is none."""
        over, baseline = self.spec["over"], self.spec["baseline"]
        if not (_number(dims.get(over)) and _number(baseline)):
            return cells.missing("n/a: %s is not numeric" % over)
        measured = self.measure(lookup, dims)
        if isinstance(measured, Cell):
            return measured
        speedup, interval, this, base = measured
        n = dims[over] / baseline
        if self.spec["against"] == "ideal":
            return (speedup / n, interval and tuple(x / n for x in interval),
                    n, speedup, (this, base))
        pair = self.ceiling_pair(dims, this)
        if isinstance(pair, str):
            return cells.missing(pair)
        one, many = pair
        ceiling = one.mean / many.mean * n
        return (speedup / ceiling, self._interval(base, this, one, many),
                ceiling, speedup, (this, base, one, many))

    def _interval(self, base, this, one, many):
        """Bootstrap of (base/this) / (one/many): the N factors cancel."""
        means = [intervals.SHARED.means(r) for r in (base, this, one, many)]
        if any(m is None for m in means):
            return None
        return intervals.bounds(means[0] / means[1] / (means[2] / means[3]))

    def judged(self, lookup, dims):
        found = self.efficiency(lookup, dims)
        if isinstance(found, Cell):
            return found, None
        value, interval, reference, speedup, records = found
        baseline = records[0] is records[1]
        if baseline:  # 1 by definition: nothing to tell
            interval = None
        significant = None if baseline else intervals.excludes(interval)
        flags = cells.flags(*records, significant=significant)
        return Cell("", value, flags=flags, interval=interval,
                    significant=significant), (reference, speedup)

    def wording(self, found, context):
        reference, speedup = context
        return spaced(self.brief(found, context),
                       "(%.2fx of %s)" % (speedup, _times(reference)))

    def brief(self, found, context):
        return spaced("%.2f" % found.value, interval_text(found.interval))

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
        counts = sorted(v for v in lookup.values(dims, over) if _number(v))
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
        if not _number(self.spec["baseline"]):
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
        return Cell(fit_text(fit), None, flags=cells.flags(*records))

    answer = cell

    def describe(self, grid):
        return ("The speedups over %s fitted: s (contention), k "
                "(coherence) and the N where the fitted curve peaks, each "
                "with its interval; a fit needs %d counts within the usable "
                "CPUs, and is n/a where s or k stays undetermined. %s." % (
                    self.spec["over"], scalability.MIN_POINTS,
                    scalability.METHOD))


def _times(number):
    """``2x`` for a whole number of workers, ``1.90x`` for a speedup."""
    return ("%dx" % number if float(number).is_integer()
            else "%.2fx" % number)


def _bound(number):
    return "inf" if number == float("inf") else cells.significant(number)


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
