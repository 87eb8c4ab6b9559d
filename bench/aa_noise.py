"""A/A noise: run the same code twice and count what ``compare`` calls a
significant change -- every one of them is a false positive.

Usage: python bench/aa_noise.py [--family gil] [--runs N]
       [--runs-dir DIR] [-- RUN OPTIONS...]

For each family: N default runs (``gilbench run --case 'FAMILY.*'``, 2
by default) on this interpreter, one after another, then ``compare`` of
every pair of them (any two runs of the same code are an A/A pair).
Prints per pair the benchmarks compared, how many compare calls
significantly slower or faster, the false-positive rate, the largest
change it called significant and the largest change of all, and whether
``--fail-above 10`` and ``--fail-efficiency-drop 10`` would have failed
CI.  ``--inject PCT`` also compares each pair with its second run's
values made PCT percent slower (every benchmark, every process) and
prints how many of them compare catches: the test's power on this
machine's noise.  Keeps the result files in ``--runs-dir`` (a new temporary
directory by default; a run already there is reused) so they can be
compared again.
"""
from __future__ import print_function

import argparse
import itertools
import json
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


def series_parser(doc, runs):
    """The options every series of runs takes (``--runs``, default
    ``runs``; ``--runs-dir``, ``--python``, ``--json``; the run's own
    options after ``--``), described by ``doc``'s first line."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--runs-dir")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--json", help="write the figures here too")
    parser.add_argument("run_options", nargs="*")
    return parser


def runs_directory(given, prefix):
    """Where a series of runs keeps its files: ``given`` (made if need
    be; runs already there are reused), else a new temporary directory."""
    directory = given or tempfile.mkdtemp(prefix=prefix)
    if not os.path.isdir(directory):
        os.makedirs(directory)
    return directory


def summary(family, base, changed):
    from gilbench.report.commands import compare, compare_scaling
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
        "slower": sum(1 for c in flagged if c.slower),
        "rate": len(flagged) / len(tested) if tested else 0.0,
        "worst": "%s %+.1f%%" % (worst.name, worst.percent) if worst
        else "-",
        "largest": "%s %+.1f%%" % (largest.name, largest.percent)
        if largest else "-",
        "fail_above": "fails" if gate else "passes",
        "efficiency_gate": "fails" if drops else "passes",
    }


def slowed(path, percent):
    """A copy of the result file with every value ``percent`` slower."""
    with open(path) as source:
        suite = json.load(source)
    for benchmark in suite["benchmarks"]:
        for run_ in benchmark["runs"]:
            run_["values"] = [v * (1 + percent / 100.0)
                              for v in run_.get("values", ())]
    copy = path[:-len(".json")] + "-slowed.json"
    with open(copy, "w") as target:
        json.dump(suite, target)
    return copy


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", action="append", choices=FAMILIES)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--runs-dir")
    parser.add_argument("--inject", type=float, metavar="PCT")
    parser.add_argument("run_options", nargs="*")
    args = parser.parse_args()
    if args.runs < 2:
        parser.error("--runs must be 2 or more")
    directory = runs_directory(args.runs_dir, "gilbench-aa-")
    for family in args.family or ["gil"]:
        paths, took = [], []
        for index in range(args.runs):
            path = os.path.join(directory, "%s-%d.json" % (family, index))
            if not os.path.exists(path):
                took.append(run(family, path, args.run_options))
            paths.append(path)
        flagged = compared = 0
        for base, changed in itertools.combinations(paths, 2):
            found = summary(family, base, changed)
            flagged += found["flagged"]
            compared += found["compared"]
            print("%s %s -> %s: %d of %d benchmarks called significant "
                  "(false-positive rate %.0f%%); largest flagged: %s; "
                  "largest change: %s; --fail-above 10 %s; "
                  "--fail-efficiency-drop 10 %s" % (
                      family, os.path.basename(base),
                      os.path.basename(changed), found["flagged"],
                      found["compared"], found["rate"] * 100, found["worst"],
                      found["largest"], found["fail_above"],
                      found["efficiency_gate"]))
            if args.inject:
                caught = summary(family, base, slowed(changed, args.inject))
                print("  with +%g%% injected: %d of %d called significantly "
                      "slower; --fail-above 10 %s" % (
                          args.inject, caught["slower"], caught["compared"],
                          caught["fail_above"]))
        print("%s: %d of %d comparisons significant over all pairs "
              "(false-positive rate %.1f%%); runs took %s s; files in %s"
              % (family, flagged, compared,
                 100.0 * flagged / compared if compared else 0.0,
                 " and ".join("%.0f" % t for t in took) or "no new",
                 directory))


if __name__ == "__main__":
    main()
