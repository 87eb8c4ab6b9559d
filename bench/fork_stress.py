"""Fork stress: run one selection several times in a row on one
interpreter and count the benchmarks that failed.  The target is 0: a
benchmark failing only now and then is state a fork inherits (the main
job's random failure was pyperf's watchdog refusing a forked worker).

Usage: python bench/fork_stress.py [--python PATH] [--times 5]
           [--case 'executor.*' ...] [-- run options]

Without --case it runs the executor family's cold and teardown phases
(``--case 'executor.*' --param phase=cold,teardown``).

Each run writes a fresh file; the failures are read from its
``gilbench_missing`` metadata (reasons starting ``failed:``), and each
distinct reason is printed once with how often it came.
"""
from __future__ import print_function

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time

DEFAULT_SELECTION = ["--case", "executor.*", "--param",
                     "phase=cold,teardown"]


def failures(path):
    """The ``failed:`` reasons a result file lists."""
    with open(path) as stream:
        suite = json.load(stream)
    missing = suite.get("metadata", {}).get("gilbench_missing", "[]")
    return [entry["reason"] for entry in json.loads(missing)
            if entry["reason"].startswith("failed")]


def one_run(python, selection, output):
    cmd = [python, "-m", "gilbench", "run", "-o", output]
    started = time.time()
    with open(os.devnull, "w") as quiet:
        code = subprocess.call(cmd + selection, stdout=quiet, stderr=quiet)
    return code, time.time() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--times", type=int, default=5)
    parser.add_argument("--case", action="append")
    args, extra = parser.parse_known_args()
    extra = [a for a in extra if a != "--"]
    selection = extra
    for case in args.case or ():
        selection += ["--case", case]
    if not args.case:
        selection += DEFAULT_SELECTION
    reasons = collections.Counter()
    directory = tempfile.mkdtemp(prefix="gilbench-fork-stress-")
    for index in range(args.times):
        output = os.path.join(directory, "run%d.json" % index)
        code, wall = one_run(args.python, selection, output)
        failed = failures(output) if os.path.exists(output) else [
            "no result file (exit %d)" % code]
        reasons.update(failed)
        print("run %d: exit %d, %.1f s, %d failed"
              % (index + 1, code, wall, len(failed)))
    print("%d runs of %s on %s: %d failed benchmarks"
          % (args.times, " ".join(selection), args.python,
             sum(reasons.values())))
    for reason, count in reasons.most_common():
        print("  %dx %s" % (count, reason))
    return 1 if reasons else 0


if __name__ == "__main__":
    sys.exit(main())
