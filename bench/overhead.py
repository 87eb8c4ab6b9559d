"""The harness's own overhead: where a default run's wall time goes, and
what a change of run options saves, paired.

Usage: python bench/overhead.py [--family gil ...] [--pairs 2]
       [--before-python PY] [--after-python PY]
       [--after-option ...] [--loops-from-before]

Runs ``gilbench run --case 'FAMILY.*'`` (the default selection and
sizing; ``--family`` repeatable, ``all`` for every family) alternating
*before* and *after*, ``--pairs`` times.  The sides differ in their
interpreter (``--before-python``/``--after-python``: e.g. two virtual
environments holding two versions of gilbench, for a code change; default
this one) and in extra options (``--after-option`` values;
``--loops-from-before`` adds ``--loops-from`` the previous before-run's
file).  For
each run it prints the wall time and its shares -- measured values,
warmups and calibration, everything else (process starts, imports,
set-up) -- from the result file (gilbench.runner.timing); then the median of
each side, the after/before ratio of the medians, and whether both sides
kept the same number of values per benchmark.
"""
from __future__ import print_function

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from gilbench.runner import timing


def run(python, families, output, extra):
    selection = [] if "all" in families else [
        option for family in families
        for option in ("--case", family + ".*")]
    started = time.time()
    subprocess.check_call(
        [python, "-m", "gilbench", "run", "-q", "-o", output] + selection
        + list(extra), stdout=subprocess.DEVNULL)
    wall = time.time() - started
    values, warmups = timing.measured_seconds(output)
    return {"wall": wall, "values": values, "warmups": warmups,
            "outside": max(0.0, wall - values - warmups)}


def values_per_benchmark(path):
    import pyperf
    return sorted((bench.get_name(), bench.get_nvalue())
                  for bench in pyperf.BenchmarkSuite.load(path)
                  .get_benchmarks())


def line(side, index, found):
    wall = found["wall"]
    return ("%-6s %d: %6.1f s; values %4.0f%%, warmups+calibration %4.0f%%, "
            "outside %4.0f%%" % (side, index, wall,
                                 100 * found["values"] / wall,
                                 100 * found["warmups"] / wall,
                                 100 * found["outside"] / wall))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", action="append")
    parser.add_argument("--before-python", default=sys.executable)
    parser.add_argument("--after-python", default=sys.executable)
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--after-option", action="append", default=[])
    parser.add_argument("--loops-from-before", action="store_true")
    args = parser.parse_args()
    families = args.family or ["gil"]
    directory = tempfile.mkdtemp(prefix="gilbench-overhead-")
    found = {"before": [], "after": []}
    same_values = True
    for index in range(args.pairs):
        before = os.path.join(directory, "before-%d.json" % index)
        after = os.path.join(directory, "after-%d.json" % index)
        found["before"].append(run(args.before_python, families, before,
                                   []))
        print(line("before", index, found["before"][-1]))
        extra = list(args.after_option)
        if args.loops_from_before:
            extra += ["--loops-from", before]
        found["after"].append(run(args.after_python, families, after,
                                  extra))
        print(line("after", index, found["after"][-1]))
        same_values &= (values_per_benchmark(before)
                        == values_per_benchmark(after))
    medians = dict((side, dict((key, statistics.median(r[key] for r in runs))
                               for key in runs[0]))
                   for side, runs in found.items())
    for side in ("before", "after"):
        m = medians[side]
        print("median %s: %.1f s, outside values and warmups %.0f%%, "
              "outside values %.0f%%" % (
                  side, m["wall"], 100 * m["outside"] / m["wall"],
                  100 * (m["wall"] - m["values"]) / m["wall"]))
    print("after/before wall: %.2f; same values per benchmark: %s; files "
          "in %s" % (medians["after"]["wall"] / medians["before"]["wall"],
                     "yes" if same_values else "NO", directory))


if __name__ == "__main__":
    main()
