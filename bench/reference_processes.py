"""How many worker processes a run needs to decide what a reference run
decides: the reference's own first k processes of every benchmark, for
several k, judged against the whole reference.

Usage: python bench/reference_processes.py REFERENCE.json
           [--processes 2,3,4,5,6,8]

REFERENCE is a run with many processes (``bench/design_time.py
--reference`` makes one: ``--design fixed -p 10``).  For each k a copy of
it keeps each benchmark's calibration and its first k worker processes
(in the order they were measured), and its findings are read as the
report reads them: of the reference's decided answers (above, below or
the same; bench/against_reference.py), how
many the copy decides the same way, and how many it contradicts.  The
copy's values are the reference's, so what changes with k is only what k
processes let an interval claim.  Run it with a Python that has
gilbench's report side.
"""
from __future__ import print_function

import argparse
import json
import os
import tempfile

from against_reference import against_reference


def first_processes(source, count, target):
    """``source`` with each benchmark's first ``count`` worker processes
    (runs holding values) and every run without values, to ``target``."""
    with open(source) as stream:
        data = json.load(stream)
    for bench in data["benchmarks"]:
        workers = [run for run in bench["runs"] if run.get("values")]
        bench["runs"] = ([run for run in bench["runs"]
                          if not run.get("values")] + workers[:count])
    with open(target, "w") as stream:
        json.dump(data, stream)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference")
    parser.add_argument("--processes", default="2,3,4,5,6,8")
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="gilbench-reference-")
    for count in [int(k) for k in args.processes.split(",")]:
        path = os.path.join(directory, "first%d.json" % count)
        first_processes(args.reference, count, path)
        decided, same, contradicted = against_reference(args.reference,
                                                        path)
        print("first %d processes: %d of the reference's %d decided "
              "answers decided the same way (%.0f%%), %d contradicted"
              % (count, same, decided, 100.0 * same / max(decided, 1),
                 contradicted))


if __name__ == "__main__":
    main()
