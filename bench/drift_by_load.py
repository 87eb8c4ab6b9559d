"""Run-to-run drift of benchmark means, by how much of the machine a
benchmark keeps busy.

Usage: python bench/drift_by_load.py RESULT.json RESULT.json [...]
           [--by-family] [--json FILE]

The files are A/A re-runs: the same selection, the same code, one
interpreter each (several interpreters may be mixed; only files of the
same interpreter are paired).  For every pair and every benchmark
measured, not busy, in both, the log ratio of the two means is compared
with what the worker processes' spread alone allows
(gilbench.report.numbers.intervals.between_processes).  Benchmarks are
grouped by their load: their process tree's CPU utilisation over the
usable CPUs (``cpu_utilisation / cpus_usable``, both runs' mean), in
classes by LOAD_EDGES (with ``--by-family``, per family too).  Per
class: the pairs, the median and rms log change, the drift a re-run
shows beyond the processes' spread (a method-of-moments estimate: the
square root of half the mean excess of the squared change over the two
processes' variances, floored at 0), and how often a re-run's mean falls
inside the other run's 95% interval of its mean as the report draws it
now (honest: about 83%).  A diagnostic for choosing and checking the
report's drift, not a number the report prints.
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys

import numpy

LOAD_EDGES = (0.55, 0.9)  # a load below each edge is in that class


def load_class(share):
    for edge in LOAD_EDGES:
        if share < edge:
            return "<%d%%" % (edge * 100)
    return ">=%d%%" % (LOAD_EDGES[-1] * 100)


def records_by_name(path):
    from gilbench.report.data import loader
    result = loader.load_result(path)
    return result.interpreter, {
        record.name: record for record in result.records
        if record.measured and not record.busy
        and record.cpu_utilisation is not None and len(record.values) > 1}


def load(record):
    return record.cpu_utilisation / max(record.cpus_usable, 1)


def logged(record):
    return tuple(numpy.log(numpy.asarray(group, dtype=float))
                 for group in record.run_values)


def pairs(paths, by_family=False):
    """(interpreter, class, log change, excess variance, how many of the
    two runs' intervals hold the other's mean) for every benchmark of
    every same-interpreter pair of files."""
    from gilbench.report.numbers import intervals
    loaded = [records_by_name(path) for path in paths]
    found = []
    for (name_a, a), (name_b, b) in itertools.combinations(loaded, 2):
        if name_a != name_b:
            continue
        for name in sorted(set(a) & set(b)):
            first, second = a[name], b[name]
            change = float(numpy.log(second.mean / first.mean))
            processes = (intervals.between_processes(logged(first))
                         + intervals.between_processes(logged(second)))
            share = (load(first) + load(second)) / 2.0
            group = load_class(share)
            if by_family:
                group = "%s %s" % (first.dims.get("family"), group)
            held = 0
            for one, other in ((first, second), (second, first)):
                low, high = intervals.bounds(intervals.SHARED.means(one))
                held += low <= other.mean <= high
            found.append((name_a, group, change, change ** 2 - processes,
                          held))
    return found


def summarise(found):
    rows = []
    keys = sorted(set((row[0], row[1]) for row in found))
    for interpreter, group in keys:
        picked = [row for row in found if row[:2] == (interpreter, group)]
        changes = numpy.array([row[2] for row in picked])
        excess = numpy.array([row[3] for row in picked])
        rows.append({
            "interpreter": interpreter, "load": group,
            "benchmarks": len(changes),
            "median_change": float(numpy.median(numpy.abs(changes))),
            "rms_change": float(numpy.sqrt(numpy.mean(changes ** 2))),
            "drift": float(numpy.sqrt(max(0.0, excess.mean() / 2.0))),
            "inside": sum(row[4] for row in picked) / (2.0 * len(picked))})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--by-family", action="store_true",
                        help="a class per family and load")
    parser.add_argument("--json", help="write the figures here too")
    args = parser.parse_args()
    rows = summarise(pairs(args.paths, args.by_family))
    print("%-26s %-16s %5s %8s %8s %7s %7s" % (
        "interpreter", "load", "n", "median", "rms", "drift", "inside"))
    for row in rows:
        print("%-26s %-16s %5d %7.1f%% %7.1f%% %6.1f%% %6.0f%%" % (
            row["interpreter"], row["load"], row["benchmarks"],
            100 * row["median_change"], 100 * row["rms_change"],
            100 * row["drift"], 100 * row["inside"]))
    if args.json:
        with open(args.json, "w") as stream:
            json.dump(rows, stream, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
