"""What the first looks found about the variance at each level, per family.

Usage: python bench/variance_levels.py RESULT.json [RESULT.json ...]

For every benchmark of adaptive runs, from its first look's worker
processes only (round 0): Kalibera and Jones's components on the log
scale (T1, the spread of values within a process, and T2, that of the
processes' means beyond it, each as a coefficient of variation), its
costs, and what the design asks of it next (gilbench.model.design: more
processes when its processes disagree beyond TARGET; the optimal values
per process, ceil(sqrt((c_process / c_value) x T1^2 / T2^2))).  Prints
per family: the benchmarks, how many needed more processes after the
first look, the medians of T1 and T2, how many had T2 above T1 (the
process level dominates: more processes, not more values), the median
optimal values per process, and why the benchmarks stopped (all looks).
Run it with the tests' env (it imports gilbench).
"""
from __future__ import print_function

import collections
import math
import statistics
import sys

import pyperf

from gilbench.model import design
from gilbench.model.resultformat import ROUND_KEY, STOPPED_KEY


def first_look(bench):
    """The runs of ``bench``'s first look (round 0) that have values."""
    return [run for run in bench.get_runs() if run.values
            and not run.get_metadata().get(ROUND_KEY, 0)]


def levels(bench):
    """(T1, T2 as coefficients of variation, optimal values per process,
    needs more processes) of ``bench``'s first look, or None."""
    runs = first_look(bench)
    if len(runs) < 2:
        return None
    groups = [list(run.values) for run in runs]
    t1, t2 = design.components(groups)
    if t1 is None or t2 is None:
        return None
    values = design.optimal_values(t1, t2, design.costs(runs))
    return (math.sqrt(t1), math.sqrt(t2), values,
            not design.narrow(groups))


def summary(paths):
    """{family: {"levels": [...], "stopped": Counter}} over ``paths``."""
    found = collections.defaultdict(lambda: {
        "levels": [], "stopped": collections.Counter()})
    for path in paths:
        for bench in pyperf.BenchmarkSuite.load(path).get_benchmarks():
            meta = bench.get_runs()[-1].get_metadata()
            family = found[meta.get("family", "?")]
            family["stopped"][meta.get(STOPPED_KEY, "?")] += 1
            measured = levels(bench)
            if measured is not None:
                family["levels"].append(measured)
    return found


def main():
    paths = sys.argv[1:]
    if not paths:
        sys.stderr.write("usage: variance_levels.py RESULT.json ...\n")
        return 2
    print("%-9s %5s %6s %7s %7s %9s %7s  %s" % (
        "family", "bench", "wider", "T1 %", "T2 %", "T2 > T1", "values",
        "stopped"))
    for family, found in sorted(summary(paths).items()):
        measured = found["levels"]
        if not measured:
            continue
        t1s, t2s, values, wider = zip(*measured)
        print("%-9s %5d %5.0f%% %7.2f %7.2f %8.0f%% %7.0f  %s" % (
            family, len(measured), 100.0 * sum(wider) / len(measured),
            100 * statistics.median(t1s), 100 * statistics.median(t2s),
            100.0 * sum(t2 > t1 for t1, t2, _, _ in measured)
            / len(measured), statistics.median(values),
            ", ".join("%s %d" % item
                      for item in found["stopped"].most_common())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
