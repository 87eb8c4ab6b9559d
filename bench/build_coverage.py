"""Coverage of the cross-build intervals: A/A pairs read as twins.

Usage: python bench/build_coverage.py [--paired DIR_A DIR_B]...
           [--runs DIR]...

Two result files of one interpreter, made by two runs, are read as if
one were the other's twin (gilbench.report.tables.builds.family_cells,
at one thread and at N threads); the true answer is 1.  ``--paired``
pairs the files of the same name in two directories (two main jobs);
``--runs`` pairs every two files of one directory (bench/coverage.py's
runs).  Prints how many family and overall intervals hold 1, and each
pair's overall answer.
"""
import argparse
import glob
import itertools
import os

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
    for folder in args.runs:
        found += itertools.combinations(
            sorted(glob.glob(os.path.join(folder, "*.json"))), 2)
    return found


def holds_one(cell):
    return cell.interval[0] <= 1 <= cell.interval[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paired", nargs=2, action="append", default=[],
                        metavar=("DIR_A", "DIR_B"))
    parser.add_argument("--runs", action="append", default=[],
                        metavar="DIR")
    args = parser.parse_args()
    counts = {"family": [0, 0], "overall": [0, 0]}
    for first, second in pairs(args):
        results = loader.load_results([first, second])
        families = pivot.family_order(results)
        for point in declared.POINTS:
            per, (overall, _) = builds.family_cells(
                results[0], results[1], point, families)
            for cell, _ in per.values():
                if cell.interval is not None:
                    counts["family"][0] += holds_one(cell)
                    counts["family"][1] += 1
            if overall.interval is not None:
                counts["overall"][0] += holds_one(overall)
                counts["overall"][1] += 1
                print("%s vs %s, %s: %s" % (first, second, point,
                                            overall.display))
    for what, (inside, total) in counts.items():
        print("%s intervals holding 1: %d of %d" % (what, inside, total))


if __name__ == "__main__":
    main()
