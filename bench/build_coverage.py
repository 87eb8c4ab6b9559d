"""Coverage of the cross-build intervals: A/A pairs read as twins.

Usage: python bench/build_coverage.py [--paired DIR_A DIR_B]...
           [--runs DIR]...

Two result files of one interpreter, made by two runs, are read as if
one were the other's twin (gilbench.report.tables.builds.family_cells,
at one thread and at N threads); the true answer is 1.  ``--paired``
pairs the files of the same name in two directories (two main jobs);
``--runs`` pairs every two files of one directory (bench/coverage.py's
runs).  Prints each pair's overall answer, then how many family and
overall intervals hold 1 -- in all, per point, and per family at each
point -- each with the Clopper-Pearson 95% interval of its share
(scipy.stats.binomtest), marked UNDER or OVER where that interval lies
wholly below or above the intervals' own 95%: a check that fails both
ways.  ``--check``: exit 1 when a point's share is UNDER or OVER.
"""
import argparse
import glob
import os
import sys

from fit_build_drift import pairs as runs_pairs

from gilbench.model import builds as declared
from gilbench.report.data import loader
from gilbench.report.tables import builds, pivot


def pairs(args):
    found = []
    for first, second in args.paired:
        for path in sorted(glob.glob(os.path.join(first, "*.json"))):
            other = os.path.join(second, os.path.basename(path))
            if os.path.exists(other):
                found.append((path, other))
    return found + runs_pairs(args.runs)


def holds_one(cell):
    return cell.interval[0] <= 1 <= cell.interval[1]


# What the cells' intervals claim: a 95% interval holds the true answer.
NOMINAL = 0.95


def share(inside, total):
    """``inside`` of ``total`` with the Clopper-Pearson 95% interval of
    its share, and " UNDER" / " OVER" where that interval excludes
    NOMINAL."""
    from scipy import stats
    low, high = stats.binomtest(inside, total).proportion_ci()
    said = "%d of %d (%.0f%%) [%.0f-%.0f%%]" % (
        inside, total, 100.0 * inside / total, 100 * low, 100 * high)
    if high < NOMINAL:
        return said + " UNDER"
    if low > NOMINAL:
        return said + " OVER"
    return said


def tally(counts, keys, cell):
    for key in keys:
        pair = counts.setdefault(key, [0, 0])
        pair[0] += holds_one(cell)
        pair[1] += 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paired", nargs=2, action="append", default=[],
                        metavar=("DIR_A", "DIR_B"))
    parser.add_argument("--runs", action="append", default=[],
                        metavar="DIR")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when a point's share is UNDER or OVER")
    args = parser.parse_args()
    counts = {}
    for first, second in pairs(args):
        results = loader.load_results([first, second])
        families = pivot.family_order(results)
        for point in declared.POINTS:
            per, (overall, _) = builds.family_cells(
                results[0], results[1], point, families)
            for family, (cell, _) in per.items():
                if cell.interval is not None:
                    tally(counts, [("family",), ("family", point),
                                   ("family", point, family)], cell)
            if overall.interval is not None:
                tally(counts, [("overall",), ("overall", point)], overall)
                print("%s vs %s, %s: %s" % (first, second, point,
                                            overall.display))
    failed = False
    for key in sorted(counts, key=lambda k: (k[0], len(k), k[1:])):
        said = share(*counts[key])
        print("%s intervals holding 1: %s" % (" ".join(key), said))
        failed |= len(key) == 2 and ("UNDER" in said or "OVER" in said)
    return 1 if args.check and failed else 0


if __name__ == "__main__":
    sys.exit(main())
