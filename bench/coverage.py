"""Interval coverage: do the report's 95% intervals hold on a re-run?

Usage: python bench/coverage.py [--runs 3] [--runs-dir DIR]
           [--python PATH] [--json FILE] [-- RUN OPTIONS...]

N runs of the same selection (``gilbench run RUN OPTIONS``; every family
by default) one after another on one interpreter, each rendered alone.
For every ordered pair of runs (A, B) and every cell that has an
interval in A (each benchmark's mean; a ratio, speedup, efficiency,
crossover, ... of a declared table): does B's point lie inside A's
interval?  Overall, and per family for the means and the derived cells.  An
honest 95% interval holds an independent re-run's estimate about 83% of
the time (the difference of two equal-variance estimates has sqrt(2)
times the spread).  Also counted: findings significant in both runs of
a pair but on opposite sides of their reference (or naming another
winner), and findings left undecided (not significant) per run.  The
result files stay in ``--runs-dir`` (a new temporary directory by
default; a run already there is reused).
"""
from __future__ import print_function

import argparse
import itertools
import json
import os
import subprocess
import sys
import time

from aa_noise import runs_directory


def run(python, output, options):
    started = time.time()
    with open(os.devnull, "w") as quiet:
        subprocess.check_call([python, "-m", "gilbench", "run", "-o", output]
                              + list(options), stdout=quiet, stderr=quiet)
    return time.time() - started


class Point(object):
    """A benchmark's mean with its interval, as a derived Cell has."""

    def __init__(self, value, interval):
        self.value, self.interval = value, interval


def derived_cells(path):
    """{(family, where, row, column): Cell} of every cell with an interval
    -- each benchmark's mean (where "mean") and every derived cell of a
    declared table -- and {question: Cell} of the findings, in the report
    of ``path`` alone."""
    from gilbench.report.data import loader
    from gilbench.report.numbers import intervals
    from gilbench.report.tables import pivot, questions
    results = loader.load_results([path])
    found = {}
    for record in results[0].records:
        drawn = record.measured and intervals.alone(record)
        if drawn is not None and drawn is not False:
            found[(record.dims.get("family"), "mean", record.name, "")] = (
                Point(record.mean, intervals.bounds(drawn)))
    for table in pivot.all_tables(results):
        if table.declaration is None:
            continue
        header = [cell.text for cell in table.header]
        for row in table.rows:
            for column, cell in zip(header[1:], row[1:]):
                if cell.interval is not None and cell.value is not None:
                    found[(table.family, table.title, row[0].text,
                           column)] = cell
    asked = {}
    table = questions.findings_table(results, pivot.family_order(results))
    for finding in table.rows:
        asked[finding.question] = finding.answers[0]
    return found, asked


def inside(point, interval):
    return interval[0] <= point <= interval[1]


def side(cell):
    """Which side of its decision a significant answer took: its winner's
    wording for a best-of, else above or below 1."""
    if cell.value is None:
        return cell.text.split(" ")[0]
    return "above" if cell.value > 1 else "below"


def compare_pair(first, second, tally):
    """(cells in both, cells whose B point is inside A's interval,
    contradicting findings); adds each cell's outcome to ``tally``
    {(family, "means" or "derived"): [inside, cells]}."""
    cells_a, answers_a = first
    cells_b, answers_b = second
    shared = [key for key in cells_a if key in cells_b]
    held = 0
    for key in shared:
        hit = inside(cells_b[key].value, cells_a[key].interval)
        held += hit
        counts = tally.setdefault(
            (key[0], "means" if key[1] == "mean" else "derived"), [0, 0])
        counts[0] += hit
        counts[1] += 1
    contradictions = []
    for question, answer in answers_a.items():
        other = answers_b.get(question)
        if (other is not None and answer.significant and other.significant
                and side(answer) != side(other)):
            contradictions.append("%s: %s vs %s" % (
                question, answer.text, other.text))
    return len(shared), held, contradictions


def undecided(answers):
    return sorted(q for q, cell in answers.items()
                  if cell.significant is False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--runs-dir")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--json", help="write the figures here too")
    parser.add_argument("run_options", nargs="*")
    args = parser.parse_args()
    if args.runs < 2:
        parser.error("--runs must be 2 or more")
    directory = runs_directory(args.runs_dir, "gilbench-cover-")
    paths = []
    for index in range(args.runs):
        path = os.path.join(directory, "run%d.json" % index)
        if not os.path.exists(path):
            print("run %d: %.0f s" % (index, run(args.python, path,
                                                  args.run_options)))
        paths.append(path)
    derived = [derived_cells(path) for path in paths]
    figures = {"pairs": [], "undecided": {}}
    tally = {}
    for (a, first), (b, second) in itertools.permutations(
            zip(paths, derived), 2):
        shared, held, contradictions = compare_pair(first, second, tally)
        share = float(held) / shared if shared else 0.0
        figures["pairs"].append({"interval_of": a, "point_of": b,
                                 "cells": shared, "inside": held,
                                 "contradictions": contradictions})
        print("%s's intervals hold %s's points: %d of %d cells (%.0f%%); "
              "%d contradicting significant findings" % (
                  os.path.basename(a), os.path.basename(b), held, shared,
                  100 * share, len(contradictions)))
        for line in contradictions:
            print("  contradicts: " + line)
    for path, (_, answers) in zip(paths, derived):
        left = undecided(answers)
        figures["undecided"][path] = left
        print("%s: %d of %d findings undecided" % (
            os.path.basename(path), len(left), len(answers)))
    figures["families"] = {}
    for (family, kind), (hit, cells) in sorted(tally.items()):
        figures["families"].setdefault(family, {})[kind] = [hit, cells]
        print("%-10s %-8s %5d of %5d inside (%.0f%%)" % (
            family, kind, hit, cells, 100.0 * hit / cells))
    for kind in ("derived", "means"):
        hit = sum(c[0] for (_, k), c in tally.items() if k == kind)
        cells = sum(c[1] for (_, k), c in tally.items() if k == kind)
        figures["coverage" if kind == "derived" else "means_coverage"] = (
            float(hit) / cells if cells else None)
        print("overall, %s: %d of %d re-run points inside (%.0f%%)" % (
            kind, hit, cells, 100.0 * hit / cells if cells else 0))
    if args.json:
        with open(args.json, "w") as stream:
            json.dump(figures, stream, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
