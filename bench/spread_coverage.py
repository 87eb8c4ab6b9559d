"""Would worker processes measured minutes apart give honest intervals?

Usage: python bench/spread_coverage.py RUN.json RUN.json RUN.json [...]

The files are A/A re-runs of one selection on one interpreter (such as
``bench/coverage.py --runs-dir``'s).  For every ordered triple (A, B, C)
it makes a file that is A with each benchmark's second measured worker
process taken from B, as if a run had measured each benchmark's
processes in two passes minutes apart, and counts how often C's point
falls inside that file's intervals, beside how often it falls inside
A's own (bench/coverage.py's count).  An honest 95% interval holds
about 83%.  Nothing is measured; the made files stay in a temporary
directory.
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile

from coverage import derived_cells, inside


def measured(bench):
    return [index for index, run in enumerate(bench["runs"])
            if run.get("values")]


def second_process_from(first, other, output):
    """Write ``first`` with each benchmark's second measured run taken
    from ``other``'s benchmark of the same name."""
    with open(first) as stream:
        data = json.load(stream)
    with open(other) as stream:
        theirs = dict((bench["metadata"]["name"], bench)
                      for bench in json.load(stream)["benchmarks"])
    for bench in data["benchmarks"]:
        donor = theirs.get(bench["metadata"]["name"])
        mine = measured(bench)
        if donor is not None and len(mine) > 1 and len(measured(donor)) > 1:
            bench["runs"][mine[1]] = donor["runs"][measured(donor)[1]]
    with open(output, "w") as stream:
        json.dump(data, stream)


def held(intervals_of, points_of):
    shared = [key for key in intervals_of if key in points_of]
    return len(shared), sum(1 for key in shared if inside(
        points_of[key].value, intervals_of[key].interval))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    if len(args.paths) < 3:
        parser.error("three runs or more")
    cells = [derived_cells(path)[0] for path in args.paths]
    work = tempfile.mkdtemp(prefix="gilbench-spread-")
    counts = {"as measured": [0, 0], "processes spread": [0, 0]}
    for a, b, c in itertools.permutations(range(len(args.paths)), 3):
        made = os.path.join(work, "run%d-with-%d.json" % (a, b))
        second_process_from(args.paths[a], args.paths[b], made)
        for label, source in (("as measured", cells[a]),
                              ("processes spread", derived_cells(made)[0])):
            total, inside_count = held(source, cells[c])
            counts[label][0] += total
            counts[label][1] += inside_count
    for label, (total, inside_count) in counts.items():
        print("%-17s %d of %d re-run points inside (%.1f%%)" % (
            label, inside_count, total, 100.0 * inside_count / total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
