"""The pyops family's 2-thread efficiencies beside CPython's
Tools/ftscalingbench, on a free-threaded build of this machine; and
whether three runs of the whole family and three of one case alone agree.

Usage: python bench/ftscaling_compare.py --python PATH [--runs 3]
           [--ft-runs 5] [--case new_object ...] [--runs-dir DIR]
           [--cache DIR] [--reference FILE] [--ft-scale N]

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
runs flagged the case's processes as disagreeing.  ftscalingbench runs
two ways, interleaved: as a script (as CPython runs it) and with its
constants as from a ``.pyc`` (as pyops' cases and an installed library's
code get them; on 3.13t that decides whether loading a constant
contends).  ``--reference`` adds an earlier result file of the same
interpreter (a ``--design fixed -p 10`` run, say) and says which of
ftscalingbench's efficiencies, and whether their median, fall inside its
interval, read against its own ceiling; ``--runs 0`` reads only that.
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
# Runs ftscalingbench as ``__main__`` with its constants as a .pyc gives
# them, immortal on 3.13t (gilbench.model.modules.constants_as_from_bytecode
# does this to case modules).  Run as a script there, its str constant
# that is not a name stays mortal, and every thread that loads it counts
# it atomically: docs/families/pyops.rst.
AS_BYTECODE = """
import marshal, sys, types
path = sys.argv[1]
sys.argv = sys.argv[1:]
with open(path) as stream:
    code = marshal.loads(marshal.dumps(compile(stream.read(), path, "exec")))
main = types.ModuleType("__main__")
main.__file__ = path
sys.modules["__main__"] = main
exec(code, main.__dict__)
"""
LOADINGS = ("script", "bytecode")


def ftscalingbench(python, script, names, runs, loading="script",
                   scale=None):
    """{twin name: [2-thread speedups]} of ``runs`` runs, ftscalingbench
    run as a script or (``loading`` "bytecode") with its constants as
    from a .pyc; ``scale`` its --scale (work per thread)."""
    start = ([python, script] if loading == "script"
             else [python, "-c", AS_BYTECODE, script])
    found = {}
    for _ in range(runs):
        sized = ["--scale", str(scale)] if scale else []
        said = subprocess.run(start + ["-t", "2"] + sized + list(names),
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


def against_reference(path, case, loading, speedups):
    """The reference's efficiency of ``case``, and which of
    ftscalingbench's ``speedups`` (run as ``loading`` says), read against
    the reference's own 2-thread ceiling, fall inside its interval;
    whether their median does (None: nothing to compare)."""
    efficiency, ceiling, split = cells(path, case)
    if (efficiency is None or efficiency.interval is None
            or ceiling is None or not ceiling.value or not speedups):
        print("  reference: no efficiency")
        return None
    low, high = efficiency.interval
    ours = [x / ceiling.value for x in speedups]
    inside = [x for x in ours if low <= x <= high]
    median = statistics.median(ours)
    print("  reference: efficiency %s%s; ftscalingbench as %s (speedup /"
          " %.2fx): %s, inside: %d of %d, median %.2f %s" % (
              efficiency.display, "  (processes disagree)" if split else "",
              loading, ceiling.value, ", ".join("%.2f" % x for x in ours),
              len(inside), len(ours), median,
              "inside" if low <= median <= high else "OUTSIDE"))
    return low <= median <= high


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ft-runs", type=int, default=5)
    parser.add_argument("--case", action="append")
    parser.add_argument("--runs-dir")
    parser.add_argument("--cache", default=os.path.expanduser(
        "~/.cache/gilbench-examples"))
    parser.add_argument("--reference")
    parser.add_argument("--ft-scale", type=int,
                        help="ftscalingbench's --scale (its default: 100)")
    args = parser.parse_args()
    cases = args.case or ["new_object"]
    if cases == ["all"]:
        cases = sorted(TWINS)
    directory = runs_directory(args.runs_dir, "gilbench-ftscaling-")
    script = os.path.join(fetch(args.cache), FTSCALINGBENCH)
    names = [TWINS[case] for case in cases]
    # Interleaved, so that both loadings see the same sitting.
    loaded = {loading: {} for loading in LOADINGS}
    for _ in range(args.ft_runs):
        for loading in LOADINGS:
            for name, found in ftscalingbench(
                    args.python, script, names, 1, loading,
                    args.ft_scale).items():
                loaded[loading].setdefault(name, []).extend(found)
    theirs = loaded["script"]
    medians = {loading: [] for loading in LOADINGS}
    family = [gilbench_run(args.python, os.path.join(
        directory, "pyops%d.json" % i), ["pyops.*"])
        for i in range(args.runs)]
    for case in cases:
        alone = [gilbench_run(args.python, os.path.join(
            directory, "%s%d.json" % (case, i)), ["pyops.%s.*" % case])
            for i in range(args.runs)]
        intervals = []
        print("%s (ftscalingbench %s)" % (case, TWINS[case]))
        for loading in LOADINGS:
            print("  as %-8s %s" % (loading, ", ".join(
                "%.2fx" % x for x in loaded[loading].get(TWINS[case], []))))
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
        if args.reference:
            for loading in LOADINGS:
                medians[loading].append(against_reference(
                    args.reference, case, loading,
                    loaded[loading].get(TWINS[case], [])))
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
    for loading, found in sorted(medians.items()):
        compared = [x for x in found if x is not None]
        if compared:
            print("ftscalingbench as %s: its median inside the reference's "
                  "interval for %d of %d cases" % (
                      loading, sum(compared), len(compared)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
