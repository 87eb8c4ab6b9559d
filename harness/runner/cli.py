"""Command line: ``gilbench {run,timeit,list,report,compare} ...``.

Every user-facing error is a UsageError, printed as one line with exit
code 2 by :func:`main`.
"""
from __future__ import print_function

import errno
import os
import signal
import sys

from gilbench.errors import (
    OneLineErrorParser,
    PassThroughParser,
    UsageError,
    exit_with_usage_error,
)
from gilbench.measure import pypynursery
from gilbench.runner import howlong, runoptions

COMMANDS = ("run", "timeit", "list", "report", "compare", "refine",
            "extend", "judge", "init", "continuous")
USAGE = """usage: gilbench COMMAND [options]

commands:
  run     run the selected cases under pyperf into one result JSON
  timeit  does this statement scale? run it in 1..N threads (and
          processes) beside this machine's ceiling, and say how it scales
  list    print the registered cases and whether they can run here
  report  render tables (RST / Markdown / HTML) from result JSON
          (Python >= 3.9)
  compare changes between two sets of result JSON, and whether they are
          significant (Python >= 3.9)
  refine  more time for earlier runs: their rounds go on where an answer
          still needs more worker processes, within a budget
          (Python >= 3.9)
  extend  measure more worker processes of a result file's benchmarks and
          append them to it (what refine calls)
  judge   which benchmarks the undecided findings of result files need,
          as JSON (what a run's rounds ask; Python >= 3.9)
  init    write a case module for your extension project, and with --tox
          a tox file with an env per interpreter found here (--ci: and a
          GitHub Actions workflow with a pull request check)
  continuous
          two revisions of your project (BASE HEAD) measured in one run,
          in turn, for compare --sides to tell what changed

gilbench COMMAND --help shows a command's options."""


def _add_selection_options(parser):
    parser.add_argument("--case", action="append", metavar="GLOB",
                        help="run only benchmarks whose name (with or "
                        "without its [axes] and /tN) matches; repeatable")
    parser.add_argument("--param", action="append", metavar="AXIS=V1,V2",
                        help="run only these values of an axis (ints also "
                        "take ranges: threads=1-8); repeatable, one axis "
                        "each")
    parser.add_argument("--threads", metavar="SPEC",
                        help="shorthand for --param threads=SPEC, e.g. "
                        "1,2,4 or 1-8")
    parser.add_argument("--processes", metavar="SPEC",
                        help="shorthand for --param processes=SPEC: the "
                        "processes driver's counts, as timeit's (pyperf's "
                        "worker processes are -p N)")
    parser.add_argument("--quick", action="store_true",
                        help="each axis's quick values (and, unless sized, "
                        "smaller pyperf settings)")
    parser.add_argument("--module", action="append", metavar="MODULE",
                        help="case module (dotted name or path to a .py "
                        "file) instead of the built-in cases/; repeatable")


def parse_params(args):
    """{axis: text} from --param and --threads; one line on bad input."""
    params = {}
    items = list(args.param or ())
    for axis in ("threads", "processes"):
        if getattr(args, axis) is not None:
            items.append("%s=%s" % (axis, getattr(args, axis)))
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name or not text.strip():
            raise UsageError("--param %r: expected AXIS=V1,V2" % item)
        if name in params:
            raise UsageError("--param: axis %r is given twice (--threads and "
                             "--processes are --param threads=... and "
                             "processes=...)" % name)
        params[name] = text.strip()
    return params


def run_parser():
    parser = PassThroughParser(
        prog="gilbench run",
        description="Run cases under pyperf. Options not listed here are "
        "passed to pyperf (e.g. --fast, --rigorous, -p 5, --affinity 1).")
    _add_selection_options(parser)
    runoptions.add_run_options(
        parser, "result JSON (default: results/<python>.json); replaced "
        "only when the run wrote something")
    howlong.add_option(parser)
    parser.add_argument("--dry-run", action="store_true",
                        help="print the plan (per family: benchmarks, "
                        "counts, estimated time) and run nothing")
    return parser


def cmd_run(argv):
    from gilbench.runner import run
    args, pyperf_options = run_parser().parse_known_args(argv)
    pyperf_options = howlong.fold(args, pyperf_options)
    runoptions.check_run_options(args)
    args.params = parse_params(args)
    code = run.run(args, pyperf_options)
    howlong.say_notices(argv)
    return code


def cmd_timeit(argv):
    from gilbench.runner import timeitcmd
    return timeitcmd.main(argv)


def list_parser():
    """The parser of ``gilbench list`` (public: the docs render it)."""
    parser = OneLineErrorParser(prog="gilbench list",
                                description="List the registered cases.")
    _add_selection_options(parser)
    parser.add_argument("--json", action="store_true",
                        help="the registry as JSON (stable; for tools)")
    return parser


def cmd_list(argv):
    from gilbench.runner import listcmd
    args = list_parser().parse_args(argv)
    args.params = parse_params(args)
    for line in listcmd.format_cases(args):
        print(line)
    return 0


# What the ``report`` extra installs (requirements-report.txt).
REPORT_EXTRA = ("jinja2", "docutils", "matplotlib")


def _report_side(command, run):
    """Run a report-side command; an interpreter or an install that cannot
    is a usage error naming the fix, not a traceback."""
    if sys.version_info < (3, 9):
        raise UsageError("%s needs Python >= 3.9 (this is %d.%d); use "
                         "tox -e report" % ((command,) + sys.version_info[:2]))
    try:
        return run()
    except ImportError as exc:
        missing = (getattr(exc, "name", None) or "").split(".")[0]
        if missing not in REPORT_EXTRA:
            raise
        raise UsageError("%s needs %s, which is not installed: pip install "
                         "'gilbench[report]'" % (command, missing))


def cmd_report(argv):
    def run():
        from gilbench.report.commands import report as report_cli
        return report_cli.main(argv)
    return _report_side("report", run)


def cmd_compare(argv):
    def run():
        from gilbench.report.commands import compare
        return compare.main(argv)
    return _report_side("compare", run)


def cmd_refine(argv):
    def run():
        from gilbench.report.commands import refine
        return refine.main(argv)
    return _report_side("refine", run)


def cmd_judge(argv):
    def run():
        from gilbench.report.commands import judge
        return judge.main(argv)
    return _report_side("judge", run)


def cmd_extend(argv):
    from gilbench.runner import extend
    return extend.main(argv)


def cmd_init(argv):
    from gilbench.runner import scaffold
    return scaffold.main(argv)


def cmd_continuous(argv):
    from gilbench.runner import continuous
    try:
        return continuous.main(argv, cmd_run)
    except continuous.BuildFailed as exc:
        print("gilbench: %s" % exc, file=sys.stderr)
        return 1


def cmd_bench(argv):
    from gilbench.model import revisions
    revisions.enter()  # before the case module, which may import it
    from gilbench.measure import program
    return program.main(argv)


# The commands that measure in forks of this process (PyPy's nursery).
MEASURING = ("run", "timeit", "extend", "continuous")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    handlers = {"run": cmd_run, "timeit": cmd_timeit, "list": cmd_list,
                "report": cmd_report, "compare": cmd_compare,
                "refine": cmd_refine, "extend": cmd_extend,
                "judge": cmd_judge, "init": cmd_init,
                "continuous": cmd_continuous,
                "bench": cmd_bench}
    handler = handlers.get(argv[0])
    if argv[0] in MEASURING:
        pypynursery.restart_capped(argv)
    try:
        if handler is None:
            raise UsageError("unknown command %r (one of: %s)"
                             % (argv[0], ", ".join(COMMANDS)))
        return handler(argv[1:])
    except UsageError as exc:
        exit_with_usage_error(exc)
    except KeyboardInterrupt:
        print("gilbench: interrupted", file=sys.stderr)
        return 130
    except IOError as exc:  # BrokenPipeError on 3.x
        if exc.errno != errno.EPIPE:
            raise
        return _reader_went_away()


def _reader_went_away():
    """stdout's reader closed it (``gilbench list | head``): stop quietly,
    with the status a process killed by SIGPIPE has, as ``yes | head`` does.
    stdout goes to /dev/null so the interpreter's final flush cannot fail
    again at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 128 + signal.SIGPIPE
