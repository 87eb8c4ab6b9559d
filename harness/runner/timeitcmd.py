"""``gilbench timeit [-s SETUP]... STMT...``: does this statement scale?

The statement becomes the generated family of
:mod:`gilbench.measure.timeitcase` (handed over in the environment), and an
ordinary ``run`` measures it with the threads driver (and the processes driver
with ``--processes``),
the ceiling family alongside at the same counts: one pyperf program per
benchmark, under the journal and ``--timeout``.  Before that, a trial
run in a child of the same interpreter (:mod:`gilbench.measure.timeitprobe`)
turns a statement that does not compile, a set-up that raises, a first
call that raises, or a hang, into one line and exit code 2, before any
result file is touched.  Then the report side answers, in a few lines,
from the result file (Python >= 3.9; older interpreters say where the
file is).

Worker side: Python 2.7-compatible.
"""
from __future__ import print_function

import argparse
import json
import os
import re
import shutil
import sys
import tempfile

from gilbench.errors import PassThroughParser, UsageError
from gilbench.measure import gilguard
from gilbench.model import axes, machine, registry, timeitspec
from gilbench.model import resultformat as fmt
from gilbench.model.design import FIXED
from gilbench.runner import (
    child,
    howlong,
    results,
    run,
    runoptions,
    timeitmany,
)

CASE_MODULE = "gilbench.measure.timeitcase"
_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
# pyperf's sizing and pinning options, declared so that their values are
# never taken for the statement; timeit's --processes is the processes
# driver's counts, pyperf's is -p.
_PYPERF_VALUES = (("-p",), ("-n", "--values"), ("-w", "--warmups"),
                  ("-l", "--loops"), ("--min-time",), ("--affinity",))
_PYPERF_FLAGS = (("--fast",), ("--rigorous",), ("-v", "--verbose"))
_PYPERF_HELP = {"-p": "pyperf's worker processes (its --processes; "
                      "timeit's --processes is the processes driver's "
                      "counts)"}


def parser():
    parser = PassThroughParser(
        prog="gilbench timeit",
        description="Does this statement scale? Runs STMT in 1..N threads "
        "(and processes with --processes) under pyperf, with this "
        "machine's ceiling alongside, and says how it scales. Other "
        "options go to pyperf (as --option=VALUE).")
    parser.add_argument("stmt", nargs="+", metavar="STMT",
                        help="the statement; several are joined by "
                        "newlines, as by python -m timeit")
    parser.add_argument("-s", "--setup", action="append", default=[],
                        metavar="SETUP", help="run before the clock in "
                        "each worker process; repeatable")
    parser.add_argument("--name", default="stmt",
                        help="the case's name in the result (letters, "
                        "digits, _ and -; default: %(default)s)")
    parser.add_argument("--threads", metavar="SPEC",
                        help="thread counts, e.g. 1,2,4 or 1-8 (default: "
                        "1, 2, a quarter, half and all of the usable CPUs, "
                        "and one more)")
    parser.add_argument("--processes", metavar="SPEC",
                        help="also run the statement in worker processes "
                        "at these counts")
    parser.add_argument("--objects", choices=_OBJECTS_CHOICES,
                        help="whose objects the threads use: their own "
                        "(the set-up run once for each thread), the "
                        "set-up's shared by all (as python -m timeit), or "
                        "both, to tell what sharing costs (default: both "
                        "where the GIL is off, else shared)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the plan (benchmarks, counts, "
                        "estimated time) and run nothing")
    parser.add_argument("--quick", action="store_true",
                        help="smaller pyperf settings, unless sized")
    parser.add_argument("--python", action="append", metavar="PATH",
                        help="run on this interpreter instead (it needs "
                        "gilbench importable); repeatable: one answer "
                        "table with a column per interpreter, -o then "
                        "names a directory for the result files")
    runoptions.add_run_options(
        parser, "result JSON (default: a new temporary file, named at "
        "the end)")
    howlong.add_option(parser)
    for names in _PYPERF_VALUES:
        parser.add_argument(*names, dest=_dest(names), metavar="VALUE",
                            help=_PYPERF_HELP.get(names[-1],
                                                  "pyperf's %s" % names[-1]))
    for names in _PYPERF_FLAGS:
        parser.add_argument(*names, dest=_dest(names), action="store_true",
                            help="pyperf's %s" % names[-1])
    return parser


_OBJECTS_CHOICES = (timeitspec.OWN, timeitspec.SHARED, "both")


def default_objects():
    """Both where threads run without the GIL (sharing then costs
    reference-count and lock contention), else the set-up's shared
    objects: with the GIL one answer is enough."""
    return "both" if gilguard.gil_enabled() is False else timeitspec.SHARED


def objects(choice):
    """The objects axis' values for a --objects choice (own first: the
    answers read it, and give sharing's where it differs)."""
    choice = choice or default_objects()
    return ([timeitspec.OWN, timeitspec.SHARED] if choice == "both"
            else [choice])


def _dest(names):
    return "pyperf_" + names[-1].lstrip("-").replace("-", "_")


def pyperf_options(args, extra):
    """The declared pyperf options as pyperf takes them, then the rest."""
    options = []
    for names in _PYPERF_VALUES:
        given = getattr(args, _dest(names))
        if given is not None:
            options += [names[-1], given]
    for names in _PYPERF_FLAGS:
        if getattr(args, _dest(names)):
            options.append(names[-1])
    return options + list(extra)


def default_counts():
    """1, the usable CPUs' points (axes.machine_points), and one
    oversubscribed count: 1, 2, 3 on 2 CPUs."""
    return axes.machine_counts((1,), (1,), machine.planned(), beyond=True)[0]


def counts(axis, text, default):
    """Counts from a SPEC, always with 1 (every speedup's baseline)."""
    if text is None:
        return default
    return sorted(set(axis.parse(text)) | {1})


def _spec(args):
    if not _NAME.match(args.name):
        raise UsageError("--name %r: letters, digits, _ and - only"
                         % args.name)
    stmt = "\n".join(args.stmt)
    if not stmt.strip():
        raise UsageError("the statement is empty")
    return {"name": args.name, "stmt": stmt, "setup": "\n".join(args.setup),
            "threads": counts(axes.threads(), args.threads,
                              default_counts()),
            "processes": counts(axes.processes(), args.processes, [])
            if args.processes is not None else [],
            "objects": objects(args.objects)}


def run_arguments(args, spec, output):
    """What ``run`` takes: the generated family, at the statement's
    counts; it reads its efficiency against the ceiling, so the run
    measures the ceiling's reference points beside it
    (gilbench.model.registry.load)."""
    params = {"threads": ",".join(map(str, spec["threads"]))}
    patterns = ["%s.%s.*" % (fmt.TIMEIT_FAMILY, spec["name"])]
    if spec["processes"]:
        params["processes"] = ",".join(map(str, spec["processes"]))
    return argparse.Namespace(
        module=[CASE_MODULE], case=patterns, params=params,
        quick=args.quick, output=output, timeout=args.timeout,
        pin_threads=args.pin_threads, fresh_workers=args.fresh_workers,
        why=args.why, quiet=args.quiet, resume=args.resume,
        restart=args.restart, memory_limit=args.memory_limit,
        loops_from=args.loops_from, design=args.design,
        budget=default_budget(args), dry_run=args.dry_run)


# timeit's budget, unless told: a first answer should decide; run's own
# default (half the fixed recipe's estimate) is sized for a matrix of
# families, not for one statement's few benchmarks.
BUDGET = 60.0


def default_budget(args):
    """--budget where given; else BUDGET seconds for the adaptive design,
    none for the fixed one or a quick look (run's own)."""
    if args.budget is not None or args.design == FIXED or args.quick:
        return args.budget
    return BUDGET


def _output(args):
    if args.output:
        return args.output
    if args.resume:
        raise UsageError("--resume needs the -o FILE of the interrupted "
                         "run")
    return os.path.join(tempfile.mkdtemp(prefix="gilbench-timeit-"),
                        "timeit.json")


def main(argv):
    code = _main(argv)
    howlong.say_notices(argv)
    return code


def _main(argv):
    args, extra = parser().parse_known_args(argv)
    options = howlong.fold(args, pyperf_options(args, extra))
    runoptions.check_run_options(args)
    spec = _spec(args)
    if args.python:
        return timeitmany.main(argv, args, spec["stmt"])
    # The generated family reads the statement at import (here, and in
    # every benchmark program, which inherits the environment).
    timeitspec.hand_over(spec)
    sys.modules.pop(CASE_MODULE, None)
    if args.output:
        results.check_writable(args.output)
    run_args = run_arguments(args, spec, None)
    registry.load(run_args.module, registry.Selection(
        quick=args.quick, params=run_args.params), run_args.case)
    if args.dry_run:  # the plan only: not even the trial call
        return run.run(run_args, options)
    trial(args)
    run_args.output = _output(args)
    before = _identity(run_args.output)
    code = run.run(run_args, options)
    if _identity(run_args.output) not in (None, before):  # written now
        for line in answers(run_args.output, spec):
            print(line)
    return code


def _identity(path):
    """Tells a result file from the one it replaced (a new file is
    renamed into place), or None where there is none."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_ino, found.st_mtime)


def trial(args):
    """The probe: compile, set up and call once in a child of this
    interpreter, under --timeout and --memory-limit; UsageError naming
    what failed."""
    directory = tempfile.mkdtemp(prefix="gilbench-timeit-probe-")
    try:
        status = os.path.join(directory, "status.json")
        log = os.path.join(directory, "output")
        code = child.call(
            [sys.executable, "-m", "gilbench.measure.timeitprobe", status],
            args.timeout, args.memory_limit, log)
        return _judged(code, _read(status), log, args.timeout)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


_WHAT = {"compile": "compiling the statement", "setup": "the setup",
         "first call": "the statement's first call"}


def _read(path):
    try:
        with open(path) as stream:
            return json.load(stream)
    except (IOError, OSError, ValueError):
        return {}


def _judged(code, found, log, timeout):
    stage = _WHAT.get(found.get("stage"), "starting the trial run")
    if code is None:
        raise UsageError("%s did not finish within %g s (--timeout); "
                         "killed" % (stage, timeout))
    if "error" in found:
        raise UsageError(found["error"])
    if found.get("stage") != "done":
        why = child.failure_reason(code, log) if code else "it stopped"
        raise UsageError("%s crashed the interpreter (%s)" % (stage, why))
    if found.get("reenabled"):
        raise UsageError(
            "the GIL was re-enabled by import of %s during the set-up or "
            "the first call: a free-threaded measurement is impossible "
            "(PYTHON_GIL=1 measures with the GIL on)"
            % (", ".join(found.get("reenabled_by") or ["an unknown "
                                                         "module"])))
    return found


def answers(path, spec):
    """The report side's answers, or where the file is for them."""
    lines = ["Result: %s" % path]
    if sys.version_info < (3, 9):
        return lines + ["Answers: gilbench report %s (Python >= 3.9)"
                        % path]
    try:
        from gilbench.report.tables import timeit_answers
    except ImportError as exc:  # no report extra here: the run still counts
        return lines + ["Answers: gilbench report %s, where the report "
                        "extra is installed (%s)" % (path, exc)]
    return timeit_answers.lines(path, spec["stmt"]) + lines
