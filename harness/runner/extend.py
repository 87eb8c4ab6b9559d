"""``gilbench extend FILE [NAME...]``: more worker processes for the
benchmarks of a result file, appended to their runs.

With ``--budget SECONDS`` it goes on with the run's rounds
(gilbench.runner.rounds) on the file: more time for an earlier run,
where an answer still needs it -- a benchmark wider than its target
between its processes, or one an undecided finding reads (the judge:
``--judge PYTHON``, else as a run finds one).  ``gilbench refine`` calls
it so for every file it refines.  With benchmark names instead, each of
them gets ``--processes`` more, once.

The new processes are measured as the file's were: by this interpreter
on this machine (refused otherwise), with the file's case modules,
selection and harness options (its RUN_KEY), each benchmark with its
own loop count and warmups, so pyperf reads the old and new runs as one
benchmark.  The file is replaced whole after every round; a benchmark
whose new processes fail keeps its runs as they were.
"""
from __future__ import print_function

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

from gilbench.errors import OneLineErrorParser, UsageError
from gilbench.model import design as designs
from gilbench.model import registry
from gilbench.model.resultformat import RUN_KEY
from gilbench.runner import (
    blocks,
    earlier_result,
    journal,
    judging,
    results,
    rounds,
)
from gilbench.runner.stores import ResultStore

NEEDED = ("modules", "quick", "timeout", "memory_limit", "pyperf_options")


def parser():
    made = OneLineErrorParser(
        prog="gilbench extend",
        description="Measure more worker processes of the benchmarks of a "
        "result file, the way the file's run measured them, and append "
        "their runs to it: within --budget where an answer still needs "
        "them, or -p K more for each benchmark named.")
    made.add_argument("result", metavar="FILE", help="a gilbench result "
                      "file made by this interpreter on this machine")
    made.add_argument("names", metavar="NAME", nargs="*",
                      help="benchmark names, as the file spells them")
    # -p, as pyperf's worker processes; --processes, its old spelling,
    # means the processes driver's counts to run and timeit.
    made.add_argument("-p", "--processes", type=int, default=2, metavar="K",
                      dest="processes", help="worker processes to add to "
                      "each benchmark named (default: %(default)s)")
    made.add_argument("--budget", type=float, metavar="SECONDS",
                      help="rounds where an answer still needs more, within "
                      "this many seconds (instead of names)")
    made.add_argument("--judge", metavar="PYTHON",
                      help="the Python >= 3.9 with gilbench's report side "
                      "that judges the findings between rounds (default: "
                      "%s, else this one if it can)" % judging.ENVIRONMENT)
    made.add_argument("-q", "--quiet", action="store_true",
                      help="say nothing but failures and the summary")
    return made


def _checked(args):
    if args.processes < 1:
        raise UsageError("-p must be at least 1")
    if args.budget is not None and not args.budget > 0:
        raise UsageError("--budget must be a positive number of seconds")
    if bool(args.names) == (args.budget is not None):
        raise UsageError("name benchmarks (with -p) or give "
                         "--budget, one of the two")
    return args


def main(argv):
    code = _main(argv)
    if any(a.split("=")[0] == "--processes" for a in argv):
        print("gilbench: extend's --processes still works; it is -p now "
              "(--processes is the processes driver's counts to run and "
              "timeit)", file=sys.stderr)
    return code


def _main(argv):
    args = _checked(parser().parse_args(argv))
    suite = earlier_result.load_result(args.result, "extend")
    made = _how_made(suite, args.result)
    names = args.names or _measured_names(suite)
    if args.names:
        _check_measured(suite, args.names, args.result)
    benchmarks = _benchmarks(made, names, strict=bool(args.names))
    work = tempfile.mkdtemp(prefix="extend.", dir=os.path.dirname(
        os.path.abspath(args.result)))
    try:
        with journal.OutputLock(args.result):
            store = ResultStore(benchmarks, _options(made),
                                designs.split_options(
                                    made["pyperf_options"])[1],
                                results.Runs(args.result), work)
            if args.names:
                return _named(store, args)
            return _rounds(store, made, args)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _named(store, args):
    """``-p`` more for each benchmark named, as one round of
    that many blocks (gilbench.runner.blocks)."""
    number = store.rounds_done() + 1
    failed = {}
    for j in range(args.processes):
        block = blocks.named(store.token, "r%d.%d" % (number, j + 1))
        for index in blocks.shuffled(sorted(store.measured())):
            if index in failed:
                continue
            values = len(store.measured()[index][0].values)
            new, why = store.measure(index, 1, values,
                                     "r%d.%d." % (number, j + 1))
            if why is None:
                store.add(index, number, decided_by=False, block=block,
                          look=j == 0)
            else:
                failed[index] = (store.benchmarks[index].name, why)
    failed = sorted(failed.values())
    store.round_done(number)
    for name, reason in failed:
        print("gilbench extend: %s: %s" % (name, reason), file=sys.stderr)
    if not args.quiet:
        print("gilbench extend: %d of %d benchmarks of %s got %d more "
              "worker processes" % (len(store.benchmarks) - len(failed),
                                    len(store.benchmarks), args.result,
                                    args.processes))
    return 1 if failed else 0


def _rounds(store, made, args):
    started = time.time()
    python = args.judge or judging.judge_python()
    design = designs.Design(designs.ADAPTIVE, quick=made["quick"])
    say = None if args.quiet else (
        lambda line: print("gilbench extend: " + line))
    outcome = rounds.spend(store, design, started + args.budget,
                           judging.Judge(python) if python else None, say)
    for line in outcome.lines(args.budget, time.time() - started):
        print("gilbench extend: " + line)
    return 0


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


def _measured_names(suite):
    return [bench.get_name() for bench in suite.get_benchmarks()
            if any(run.values for run in bench.get_runs())]


def _check_measured(suite, names, path):
    """Refuse, in one line, a name the file lacks or has without values."""
    measured = set(_measured_names(suite))
    for name in names:
        if name not in measured:
            raise UsageError("%s has no measured benchmark %r" % (path, name))


def _benchmarks(made, names, strict):
    """The registry's benchmarks of ``names``, loaded as the run did; a
    name its case modules no longer declare is refused (``strict``) or
    left as it is."""
    for name, value in (made.get("settings") or {}).items():
        os.environ[name] = value  # the statement timeit hands over, ...
    selection = registry.Selection(quick=made["quick"],
                                   params=made.get("params") or {})
    loaded = registry.load(made["modules"], selection)
    by_name = dict((bench.name, bench) for bench in loaded)
    unknown = [name for name in names if name not in by_name]
    if unknown and strict:
        raise UsageError("the file's case modules no longer declare %s"
                         % ", ".join(unknown))
    return [by_name[name] for name in names if name in by_name]


def _options(made):
    """How the file's run started each benchmark's program."""
    return argparse.Namespace(
        quick=made["quick"], pin_threads=made.get("pin_threads", False),
        fresh_workers=made.get("fresh_workers", False),
        timeout=made["timeout"], memory_limit=made["memory_limit"],
        calibrated={})
