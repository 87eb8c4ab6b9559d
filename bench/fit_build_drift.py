"""The run-to-run drift of the cross-build answers, fitted on A/A runs.

Usage: python bench/fit_build_drift.py [--runs DIR]... [--check]

Each ``--runs`` directory (default: every directory under bench/aa/) holds
result files of one interpreter, made by runs of the same commit; every
two of them are read as if one were the other's twin
(gilbench.report.tables.builds), where the true answer is 1.  Per point
(one thread, N threads) and family, each pair's family answer is a log
ratio L, whose variance within its two runs W the report's own draws give
(its benchmarks' means without their blocks' shifts: the central 95% of
the draws over 2 x 1.96, squared, which Student's t at few degrees of
freedom does not inflate as a variance would).  What the pairs moved
beyond that is the drift of each run's family, tau^2 = 2 drift^2 between
two runs: Paule and Mandel's estimator of a random effect's variance
(1982; the meta-analyses' between-study variance), the tau^2 at which
sum L^2 / (W + tau^2) equals the number of pairs (scipy.optimize.brentq;
the true L is 0), and none where the W alone hold them.  A pair whose W
is wide says little of the drift, where a plain mean of L^2 - W would
let it hide the others' moves.

One drift per point, pooled over the families' pairs (36 a point from
the files kept here): fitted per family, six pairs each, the drift left
the lock family's N-thread intervals holding 1 in 10 of 13 main-job pairs
outside the sample (docs/free-threaded.rst).  Prints each family's own
fit for the record, then the pooled one as
gilbench.report.tables.builds.DRIFT holds it.  ``--check``: exit 1 where
DRIFT is not this fit (rounded to ROUNDED): the constants in the report
are this script's output on the files kept here, not chosen by hand.

bench/aa/3.11 and bench/aa/3.13t: three default runs each (the main
job's adaptive design, its judge and duets), 2026-11-30 01:00-02:30 UTC,
this project's 2-core VM, one run of each an hour from the other two.
"""
import argparse
import glob
import itertools
import math
import os
import sys

import numpy
from scipy import stats

from gilbench.model import builds as declared
from gilbench.report.data import loader
from gilbench.report.tables import builds, pivot

HERE = os.path.dirname(os.path.abspath(__file__))
KEPT = os.path.join(HERE, "aa")
# What DRIFT keeps of a fitted standard deviation.
ROUNDED = 0.005
# The normal's 97.5% point (scipy.stats.norm): a 95% width is 2 Z sd.
Z = float(stats.norm.ppf(0.975))


def pairs(folders):
    found = []
    for folder in folders:
        files = sorted(glob.glob(os.path.join(folder, "*.json"))
                       + glob.glob(os.path.join(folder, "*.json.gz")))
        found += itertools.combinations(files, 2)
    return found


def moved(first, second):
    """{(point, family): (L, W)} of one A/A pair."""
    results = loader.load_results([first, second])
    families = pivot.family_order(results)
    found = {}
    for point in declared.POINTS:
        count = builds.threads_at(results[0], results[1], point)
        for family in families:
            matched = builds.matched(results[0], results[1], family, count)
            if not matched:
                continue
            value, logged = builds.within_run(matched, point)
            if logged is None:
                continue
            low, high = numpy.quantile(logged, [0.025, 0.975])
            found[(point, family)] = (math.log(value),
                                      ((high - low) / (2 * Z)) ** 2)
    return found


def fit(folders):
    """({point: drift sd}, pooled over families; {(point, family): (rms
    L, rms W, pairs, the family's own drift sd)}) from the A/A pairs of
    ``folders``."""
    seen = {}
    for first, second in pairs(folders):
        for key, value in moved(first, second).items():
            seen.setdefault(key, []).append(value)
    drift, families = {}, {}
    for (point, family), values in sorted(seen.items()):
        families[(point, family)] = (
            math.sqrt(numpy.mean([value ** 2 for value, _ in values])),
            math.sqrt(numpy.mean([w for _, w in values])), len(values),
            sd_of(paule_mandel(values)))
    for point in sorted(set(point for point, _ in seen)):
        drift[point] = sd_of(paule_mandel(
            [value for (at, _), values in seen.items() if at == point
             for value in values]))
    return drift, families


def sd_of(tau2):
    """A run's drift sd from the variance of two runs' difference,
    rounded to ROUNDED."""
    return round(math.sqrt(tau2 / 2) / ROUNDED) * ROUNDED


def paule_mandel(values):
    """tau^2 with sum L^2 / (W + tau^2) = len(values) (``values``: (L, W)
    pairs), 0 where it is below that at tau^2 = 0."""
    from scipy import optimize
    logs = numpy.array([value for value, _ in values])
    within = numpy.array([w for _, w in values])

    def excess(tau2):
        return float(numpy.sum(logs ** 2 / (within + tau2))) - len(values)
    if excess(0.0) <= 0:
        return 0.0
    return optimize.brentq(excess, 0.0, float(numpy.max(logs ** 2)) * 10)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", action="append", default=[],
                        metavar="DIR")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 where builds.DRIFT is not this fit")
    args = parser.parse_args()
    folders = args.runs or sorted(
        path for path in glob.glob(os.path.join(KEPT, "*"))
        if os.path.isdir(path))
    drift, families = fit(folders)
    for (point, family), (squared, within, count, own) in sorted(
            families.items()):
        print("%-7s %-10s %d pairs: rms L %.3f, rms W %.3f, its own drift "
              "%.3f" % (point, family, count, squared, within, own))
    print("DRIFT = %r" % (drift,))
    if args.check and drift != dict(
            (point, round(sd / ROUNDED) * ROUNDED)
            for point, sd in builds.DRIFT.items()):
        print("builds.DRIFT is not this fit: %r" % (builds.DRIFT,),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
