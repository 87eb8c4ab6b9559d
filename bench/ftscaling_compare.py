"""The pyops family's 2-thread efficiencies beside CPython's
Tools/ftscalingbench, on a free-threaded build of this machine; and
whether three runs of the whole family and three of one case alone agree.

Usage: python bench/ftscaling_compare.py --python PATH [--runs 3]
           [--ft-runs 5] [--case new_object ...] [--runs-dir DIR]
           [--cache DIR]

For each pyops case named (``new_object`` by default; ``--case all`` for
every case with an ftscalingbench twin): ``--runs`` default runs of the
whole pyops family with the ceiling, ``--runs`` runs of that case alone
(with the ceiling), and ``--ft-runs`` runs of ftscalingbench's twin
benchmark with 2 threads (``-t 2``; its speedup is one thread's time x 2
over two threads' time, the same work per thread).  Prints each run's
efficiency against this machine's ceiling at 2 threads (the table pyops
declares) with its 95% interval (the report's) and the run's ceiling,
whether all the intervals of a case overlap, whether ftscalingbench's
speedups divided by the runs' median ceiling fall inside them, and which
runs flagged the case's processes as disagreeing.
ftscalingbench.py comes from Debian unstable's ``python3.14-examples``
(bench/debian_examples.py); it is never copied into the project.  Run it
with a Python that has gilbench's report side; ``--python`` is the
free-threaded interpreter measured.
"""
from __future__ import print_function

import argparse
import os
import re
import statistics
import subprocess
import sys

from aa_noise import runs_directory
from debian_examples import fetch

FTSCALINGBENCH = "ftscalingbench/ftscalingbench.py"
# pyops case: its ftscalingbench twin.
TWINS = {
    "list_method": "object_cfunction", "c_function": "cmodule_function",
    "float_math": "mult_constant", "generator": "generator",
    "py_method": "pymethod", "py_function": "pyfunction",
    "module_function": "module_function", "str_constant": "load_string_const",
    "tuple_constant": "load_tuple_const", "new_object": "create_pyobject",
    "new_closure": "create_closure", "new_dict": "create_dict",
    "thread_local": "thread_local_read"}
SPEEDUP = re.compile(r"^(\w+)\s+([\d.]+)x (faster|slower)")


def ftscalingbench(python, script, names, runs):
    """{twin name: [2-thread speedups]} of ``runs`` runs."""
    found = {}
    for _ in range(runs):
        said = subprocess.run([python, script, "-t", "2"] + list(names),
                              capture_output=True, text=True, check=True)
        for line in said.stdout.splitlines():
            match = SPEEDUP.match(line.strip())
            if match:
                factor = float(match.group(2))
                found.setdefault(match.group(1), []).append(
                    factor if match.group(3) == "faster" else 1 / factor)
    return found


def gilbench_run(python, output, cases):
    if not os.path.exists(output):
        command = [python, "-m", "gilbench", "run", "-q", "-o", output,
                   "--threads", "1,2", "--case", "ceiling.*"]
        for case in cases:
            command += ["--case", case]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return output


def cells(path, case):
    """(efficiency cell against the ceiling, the ceiling's 2-thread
    speedup cell, processes split) of pyops ``case`` at 2 threads, private
    objects (the table pyops declares: rows are cases, one table per
    thread count)."""
    from gilbench.report.data import loader
    from gilbench.report.tables import pivot
    results = loader.load_results([path])
    efficiency = ceiling = None
    for table in pivot.all_tables(results):
        if table.declaration is None:
            continue
        kind = table.declaration["cell"]["kind"]
        if (table.family == "pyops" and kind == "efficiency"
                and table.per.get("threads") == 2
                and table.per.get("variant", "private") == "private"):
            for row in table.rows:
                if row[0].text == case:
                    efficiency = row[1]
        elif (table.family == "ceiling" and kind == "speedup"
              and table.row_dim == "threads"
              and table.per.get("method", "threads") == "threads"):
            for row in table.rows:
                if row[0].text == "2":
                    ceiling = row[1]
    split = any(r.split for r in results[0].records
                if r.dims.get("case") == case and r.measured)
    return efficiency, ceiling, split


def overlap(intervals):
    return max(low for low, _ in intervals) <= min(high for _, high in
                                                    intervals)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ft-runs", type=int, default=5)
    parser.add_argument("--case", action="append")
    parser.add_argument("--runs-dir")
    parser.add_argument("--cache", default=os.path.expanduser(
        "~/.cache/gilbench-examples"))
    args = parser.parse_args()
    cases = args.case or ["new_object"]
    if cases == ["all"]:
        cases = sorted(TWINS)
    directory = runs_directory(args.runs_dir, "gilbench-ftscaling-")
    script = os.path.join(fetch(args.cache), FTSCALINGBENCH)
    theirs = ftscalingbench(args.python, script,
                            [TWINS[case] for case in cases], args.ft_runs)
    family = [gilbench_run(args.python, os.path.join(
        directory, "pyops%d.json" % i), ["pyops.*"])
        for i in range(args.runs)]
    for case in cases:
        alone = [gilbench_run(args.python, os.path.join(
            directory, "%s%d.json" % (case, i)), ["pyops.%s.*" % case])
            for i in range(args.runs)]
        intervals = []
        print("%s (ftscalingbench %s: %s)" % (case, TWINS[case], ", ".join(
            "%.2fx" % x for x in theirs.get(TWINS[case], []))))
        ceilings = []
        for path in family + alone:
            efficiency, ceiling, split = cells(path, case)
            if efficiency is None or efficiency.interval is None:
                print("  %-16s no efficiency" % os.path.basename(path))
                continue
            intervals.append(efficiency.interval)
            if ceiling is not None and ceiling.value:
                ceilings.append(ceiling.value)
            print("  %-16s efficiency %s  ceiling %s%s" % (
                os.path.basename(path), efficiency.display,
                ceiling.display if ceiling else "-",
                "  (processes disagree)" if split else ""))
        if intervals and ceilings:
            # ftscalingbench's speedup read against this machine's ceiling
            # (the median of the runs' 2-thread ceilings), as gilbench's.
            scale = statistics.median(ceilings)
            ours = [x / scale for x in theirs.get(TWINS[case], [])]
            inside = [x for x in ours
                      if all(low <= x <= high for low, high in intervals)]
            print("  intervals overlap: %s; ftscalingbench's efficiencies "
                  "(speedup / %.2fx): %s, inside every interval: %d of %d"
                  % ("yes" if overlap(intervals) else "NO", scale,
                     ", ".join("%.2f" % x for x in ours), len(inside),
                     len(ours)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
