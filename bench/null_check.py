"""The null check: identical benchmarks are rarely told apart.

Usage: python bench/null_check.py [--runs 40] [--runs-dir DIR]
           [--python PATH] [--json FILE] [-- RUN OPTIONS...]

Runs ``gilbench run --module bench/null_cases.py`` (two identical copies
of one workload, at 1 and 2 threads, and findings dividing one by the
other) ``--runs`` times, each a default run on its own, and counts each
finding's verdicts over the runs: "different" (above or below 1), "the
same" (within the margin), undecided.  A 95% interval calls identical
copies different in about 5% of runs; issue #64 asks for at most 2 of
40.  Run it with a Python that has gilbench's report side; ``--python``
is the interpreter measured.  Exit status 1 when any finding is called
different in more than 5% of the runs plus one.
"""
from __future__ import print_function

import json
import os
import subprocess
import sys

from aa_noise import runs_directory, series_parser

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "null_cases.py")


def run(python, output, options):
    if not os.path.exists(output):
        subprocess.check_call([python, "-m", "gilbench", "run", "--module",
                               CASES, "-o", output, "-q"] + list(options),
                              stdout=subprocess.DEVNULL)


def verdicts(path):
    """{question: "different", "same" or "undecided"} of one run."""
    from gilbench.report.data import loader
    from gilbench.report.tables import pivot, questions
    results = loader.load_results([path])
    table = questions.findings_table(results, pivot.family_order(results))
    found = {}
    for row in table.rows:
        cell = row.answers[0]
        if cell.missing:
            continue
        found[row.question] = ("same" if cell.same is not None
                               else "different" if cell.significant
                               else "undecided")
    return found


def main():
    parser = series_parser(__doc__, runs=40)
    args = parser.parse_args()
    directory = runs_directory(args.runs_dir, "gilbench-null-")
    counts = {}
    for index in range(args.runs):
        path = os.path.join(directory, "run%02d.json" % index)
        run(args.python, path, args.run_options)
        for question, said in verdicts(path).items():
            tally = counts.setdefault(question, {"different": 0, "same": 0,
                                                 "undecided": 0})
            tally[said] += 1
    failed = False
    for question, tally in sorted(counts.items()):
        total = sum(tally.values())
        print("%s: different %d, the same %d, undecided %d, of %d runs" % (
            question, tally["different"], tally["same"],
            tally["undecided"], total))
        failed |= tally["different"] > 0.05 * total + 1
    if args.json:
        with open(args.json, "w") as stream:
            json.dump(counts, stream, indent=1, sort_keys=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
