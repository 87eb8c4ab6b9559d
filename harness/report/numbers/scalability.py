"""The Universal Scalability Law, fitted to measured speedups.

speedup(N) = N / (1 + s (N - 1) + k N (N - 1)): ``s`` is contention (the
serial share: a lock, a GIL), ``k`` coherence (the cost of agreeing on
shared state, which makes a curve fall again); the curve peaks at N =
sqrt((1 - s) / k).  The fit is scipy's ``curve_fit`` (bounded,
unweighted least squares: the baseline's speedup is 1 by definition and
has no spread to weight it by); the parameters' 95% intervals are
Student's t over the fit's standard errors with n - 2 degrees of freedom
(three points leave one: wide, as they should be), and the peak's
interval comes from sampling (s, k) from the fit's covariance (numpy,
seeded).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy

MIN_POINTS = 3
SAMPLES = 2000
METHOD = ("Universal Scalability Law, speedup(N) = N / (1 + s(N-1) + "
          "k N(N-1)), fitted by scipy's curve_fit; 95% intervals: "
          "Student's t over its standard errors")


@dataclass
class Fit:
    s: float
    k: float
    s_interval: tuple | None
    k_interval: tuple | None
    peak: float  # math.inf when k is 0
    peak_interval: tuple | None
    points: int

    def speedup(self, n):
        return usl(n, self.s, self.k)

    def efficiency(self, n):
        return self.speedup(n) / n


def usl(n, s, k):
    n = numpy.asarray(n, dtype=float)
    return n / (1.0 + s * (n - 1.0) + k * n * (n - 1.0))


def peak_of(s, k):
    """Where the curve peaks; 1 when it never rises above one worker.
    ``s`` and ``k`` may be arrays (of draws): then an array of peaks."""
    s, k = numpy.asarray(s, dtype=float), numpy.asarray(k, dtype=float)
    peak = numpy.maximum(1.0, numpy.sqrt(numpy.maximum(1.0 - s, 0.0)
                                         / numpy.where(k > 0, k, 1.0)))
    peak = numpy.where(k > 0, peak, math.inf)
    return float(peak) if peak.ndim == 0 else peak


# A parameter whose interval spans more than this share of its range,
# [0, 1], is not determined by the points: the fit is no answer.
UNDETERMINED = 0.5


def not_fitted(points, cpus):
    """Why ``points`` ([(N, speedup, spread)]) cannot be fitted, or
    None.  Counts beyond the usable CPUs measure oversubscription, not
    the law's contention and coherence: they do not count."""
    counts = sorted({n for n, _, _ in points})
    if len(counts) < MIN_POINTS:
        return "n/a: %d count(s) measured, a fit needs %d" % (
            len(counts), MIN_POINTS)
    within = [n for n in counts if not cpus or n <= cpus]
    if len(within) < MIN_POINTS:
        return ("n/a: a fit needs %d counts within the usable CPUs; this "
                "machine has %d" % (MIN_POINTS, cpus))
    return None


def undetermined(fit):
    """Why a Fit answers nothing (a parameter's interval covers most of
    its range, or it has none), or None."""
    for name, interval in (("s", fit.s_interval), ("k", fit.k_interval)):
        if interval is None or interval[1] - interval[0] > UNDETERMINED:
            return ("n/a: the counts measured leave %s undetermined (its "
                    "interval covers most of [0, 1]); more counts within "
                    "the usable CPUs would tell" % name)
    return None


def fit(points):
    """A Fit of [(N, speedup, spread or None)]; ``not_fitted`` first."""
    from scipy import optimize, stats
    ns = numpy.array([p[0] for p in points], dtype=float)
    speedups = numpy.array([p[1] for p in points], dtype=float)
    (s, k), covariance = optimize.curve_fit(
        usl, ns, speedups, p0=(0.05, 0.001), bounds=([0.0, 0.0], [1.0, 1.0]))
    dof = len(points) - 2
    errors = numpy.sqrt(numpy.diag(covariance))
    intervals = [None, None]
    if dof > 0 and numpy.isfinite(errors).all():
        # Within the parameters' own bounds, [0, 1], like the fit.
        half = stats.t.ppf(0.975, dof) * errors
        intervals = [(max(0.0, p - h), min(1.0, p + h))
                     for p, h in zip((s, k), half)]
    return Fit(float(s), float(k), intervals[0], intervals[1],
               peak_of(s, k), _peak_interval(s, k, covariance, dof),
               len(points))


def _peak_interval(s, k, covariance, dof):
    if dof <= 0 or not numpy.isfinite(covariance).all():
        return None
    generator = numpy.random.default_rng(0)
    draws = generator.multivariate_normal((s, k), covariance, SAMPLES,
                                          check_valid="ignore")
    peaks = peak_of(numpy.clip(draws[:, 0], 0.0, 0.999),
                    numpy.maximum(draws[:, 1], 0.0))
    low, high = numpy.quantile(peaks, [0.025, 0.975], method="inverted_cdf")
    return float(low), float(high)
