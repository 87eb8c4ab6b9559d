"""``gilbench extend FILE NAME...``: more worker processes for some
benchmarks of a result file, appended to their runs.

The new processes are measured as the file's were: by this interpreter
on this machine (refused otherwise), with the file's case modules,
selection and harness options (its RUN_KEY), each benchmark with its
own loop count and its processes' number of values and warmups, so
pyperf reads the old and new runs as one benchmark.  ``gilbench refine``
calls it for the benchmarks an undecided finding reads; a user may too.
The file is replaced whole once every new process has finished; a
benchmark whose new processes fail keeps its runs as they were.
"""
from __future__ import print_function

import argparse
import json
import os
import shutil
import sys
import tempfile

from gilbench.errors import OneLineErrorParser, UsageError
from gilbench.model import registry
from gilbench.model.resultformat import RUN_KEY
from gilbench.runner import child, earlier_result, journal, results

NEEDED = ("modules", "quick", "timeout", "memory_limit", "pyperf_options")


def parser():
    made = OneLineErrorParser(
        prog="gilbench extend",
        description="Measure more worker processes of some benchmarks of a "
        "result file, the way the file's run measured them, and append "
        "their runs to it.")
    made.add_argument("result", metavar="FILE", help="a gilbench result "
                      "file made by this interpreter on this machine")
    made.add_argument("names", metavar="NAME", nargs="+",
                      help="benchmark names, as the file spells them")
    made.add_argument("--processes", type=int, default=2, metavar="K",
                      help="worker processes to add to each (default: "
                      "%(default)s)")
    made.add_argument("-q", "--quiet", action="store_true",
                      help="say nothing but failures")
    return made


def main(argv):
    args = parser().parse_args(argv)
    if args.processes < 1:
        raise UsageError("--processes must be at least 1")
    suite = earlier_result.load_result(args.result, "extend")
    made = _how_made(suite, args.result)
    measured = _measured_runs(suite, args.names, args.result)
    benchmarks = _benchmarks(made, args.names)
    work = tempfile.mkdtemp(prefix="extend.", dir=os.path.dirname(
        os.path.abspath(args.result)))
    try:
        with journal.OutputLock(args.result):
            added, failed = _measure(benchmarks, measured, made, args,
                                     _WorkFiles(work))
            if added:
                results.appended(args.result, added)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for name, reason in failed:
        print("gilbench extend: %s: %s" % (name, reason), file=sys.stderr)
    if not args.quiet:
        print("gilbench extend: %d of %d benchmarks of %s got %d more "
              "worker processes" % (len(added), len(args.names),
                                    args.result, args.processes))
    return 1 if failed else 0


def _how_made(suite, path):
    """The file's RUN_KEY, checked: made here, by this interpreter."""
    first = suite.get_benchmarks()[0].get_runs()[0].get_metadata()
    why = earlier_result.mismatch(first, earlier_result.here())
    if why:
        raise UsageError("%s was made elsewhere (%s): extend it with the "
                         "interpreter and machine that made it" % (path, why))
    try:
        made = json.loads(first[RUN_KEY])
    except (KeyError, ValueError, TypeError):
        made = None
    if not isinstance(made, dict) or any(k not in made for k in NEEDED):
        raise UsageError("%s does not say how it was run (made by an older "
                         "gilbench): run it again to extend it" % path)
    return made


def _measured_runs(suite, names, path):
    """{name: its runs with values}; a name the file lacks, or has
    without values, is refused."""
    found = dict((bench.get_name(), bench) for bench in
                 suite.get_benchmarks())
    runs = {}
    for name in names:
        bench = found.get(name)
        measured = [run for run in bench.get_runs() if run.values] \
            if bench is not None else []
        if not measured:
            raise UsageError("%s has no measured benchmark %r" % (path, name))
        runs[name] = measured
    return runs


def _benchmarks(made, names):
    """The registry's benchmarks of ``names``, loaded as the run did."""
    for name, value in (made.get("settings") or {}).items():
        os.environ[name] = value  # the statement timeit hands over, ...
    selection = registry.Selection(quick=made["quick"],
                                   params=made.get("params") or {})
    loaded = registry.load(made["modules"], selection)
    by_name = dict((bench.name, bench) for bench in loaded)
    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise UsageError("the file's case modules no longer declare %s"
                         % ", ".join(unknown))
    return [by_name[name] for name in names]


def sizing(runs, processes):
    """pyperf options repeating ``runs``' loops, values and warmups per
    process, for ``processes`` more of them."""
    first = runs[0]
    return ["-p", str(processes), "-n", str(len(first.values)),
            "-w", str(len(first.warmups or ())),
            "--loops", str(first.get_metadata()["loops"])]


def _measure(benchmarks, measured, made, args, book):
    """({name: pyperf file of its new runs}, [(name, reason)])."""
    options = argparse.Namespace(
        quick=made["quick"], pin_threads=made.get("pin_threads", False),
        fresh_workers=made.get("fresh_workers", False),
        timeout=made["timeout"], memory_limit=made["memory_limit"],
        calibrated={})
    kept = child.without_sizing(made["pyperf_options"])
    added, failed = {}, []
    for index, bench in enumerate(benchmarks):
        pyperf_options = sizing(measured[bench.name], args.processes) + kept
        reason = child.run_one(bench, options, pyperf_options, book, index,
                               echo=False)
        if reason is None:
            added[bench.name] = book.work_file(index, "pyperf.json")
        else:
            failed.append((bench.name, reason))
    return added, failed


class _WorkFiles(object):
    """Where run_one writes one benchmark's files (a journal's
    work_file, without the journal)."""

    def __init__(self, path):
        self.path = path

    def work_file(self, index, suffix):
        return os.path.join(self.path, "%04d.%s" % (index, suffix))
