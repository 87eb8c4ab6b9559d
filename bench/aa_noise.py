"""A/A noise: run the same code twice and count what ``compare`` calls a
significant change -- every one of them is a false positive.

Usage: python bench/aa_noise.py [--family gil] [--runs-dir DIR]
       [-- RUN OPTIONS...]

For each family: two default runs (``gilbench run --case 'FAMILY.*'``)
on this interpreter, minutes apart, then ``compare`` of the pair.  Prints
per family the benchmarks compared, how many compare calls significantly
slower or faster, the false-positive rate, the largest change it called
significant and the largest change of all, and whether ``--fail-above
10`` and ``--fail-efficiency-drop 10`` would have failed CI.  Keeps the
result files in ``--runs-dir`` (a new temporary directory by default)
so they can be compared again.
"""
from __future__ import print_function

import argparse
import os
import subprocess
import sys
import tempfile
import time

FAMILIES = ("gil", "lock", "grwl", "executor", "service", "ceiling")
GATE = 10.0


def run(family, output, extra):
    started = time.time()
    subprocess.check_call(
        [sys.executable, "-m", "gilbench", "run", "--case", family + ".*",
         "-o", output] + list(extra), stdout=subprocess.DEVNULL)
    return time.time() - started


def summary(family, base, changed):
    from gilbench.report import compare, compare_scaling
    comparison = compare.compare([base], [changed])
    tested = [c for c in comparison.changes if c.significant is not None]
    flagged = [c for c in tested if c.significant]
    worst = max(flagged, key=lambda c: abs(c.percent), default=None)
    largest = max((c for c in comparison.changes if c.norm is not None),
                  key=lambda c: abs(c.percent), default=None)
    gate = compare.slowdowns_above(comparison, GATE)
    drops = compare_scaling.drops_above(comparison.scaling, GATE)
    return {
        "family": family, "compared": len(tested), "flagged": len(flagged),
        "rate": len(flagged) / len(tested) if tested else 0.0,
        "worst": "%s %+.1f%%" % (worst.name, worst.percent) if worst
        else "-",
        "largest": "%s %+.1f%%" % (largest.name, largest.percent)
        if largest else "-",
        "fail_above": "fails" if gate else "passes",
        "efficiency_gate": "fails" if drops else "passes",
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", action="append", choices=FAMILIES)
    parser.add_argument("--runs-dir")
    parser.add_argument("run_options", nargs="*")
    args = parser.parse_args()
    directory = args.runs_dir or tempfile.mkdtemp(prefix="gilbench-aa-")
    for family in args.family or ["gil"]:
        paths = [os.path.join(directory, "%s-%s.json" % (family, side))
                 for side in ("a", "b")]
        took = [run(family, path, args.run_options) for path in paths]
        found = summary(family, *paths)
        print("%(family)s: %(flagged)d of %(compared)d benchmarks called "
              "significant (false-positive rate %(rate).0f%%); largest "
              "flagged: %(worst)s; largest change: %(largest)s; "
              "--fail-above 10 %(fail_above)s; --fail-efficiency-drop 10 "
              "%(efficiency_gate)s" % dict(found, rate=found["rate"] * 100))
        print("  runs took %.0f s and %.0f s; files in %s"
              % (took[0], took[1], directory))


if __name__ == "__main__":
    main()
