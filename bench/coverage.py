"""Interval coverage: do the report's 95% intervals hold on a re-run?

Usage: python bench/coverage.py [--runs 3] [--runs-dir DIR]
           [--python PATH] [--json FILE] [-- RUN OPTIONS...]

N runs of the same selection (``gilbench run RUN OPTIONS``; every family
by default) one after another on one interpreter, each rendered alone.
For every ordered pair of runs (A, B) and every derived cell that has an
interval in A (a ratio, speedup, efficiency, crossover, ... of a declared
table, and every finding): does B's point lie inside A's interval?  An
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


def derived_cells(path):
    """{(where, row, column): Cell} of every cell with an interval, and
    {question: Cell} of the findings, in the report of ``path`` alone."""
    from gilbench.report.data import loader
    from gilbench.report.tables import pivot, questions
    results = loader.load_results([path])
    found = {}
    for table in pivot.all_tables(results):
        if table.declaration is None:
            continue
        header = [cell.text for cell in table.header]
        for row in table.rows:
            for column, cell in zip(header[1:], row[1:]):
                if cell.interval is not None and cell.value is not None:
                    found[(table.title, row[0].text, column)] = cell
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


def compare_pair(first, second):
    cells_a, answers_a = first
    cells_b, answers_b = second
    shared = [key for key in cells_a if key in cells_b]
    held = sum(1 for key in shared
               if inside(cells_b[key].value, cells_a[key].interval))
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
    for (a, first), (b, second) in itertools.permutations(
            zip(paths, derived), 2):
        shared, held, contradictions = compare_pair(first, second)
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
    shared = sum(p["cells"] for p in figures["pairs"])
    held = sum(p["inside"] for p in figures["pairs"])
    figures["coverage"] = float(held) / shared if shared else None
    print("overall: %d of %d re-run points inside (%.0f%%)" % (
        held, shared, 100 * figures["coverage"] if shared else 0))
    if args.json:
        with open(args.json, "w") as stream:
            json.dump(figures, stream, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
