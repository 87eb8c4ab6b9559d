"""Command line: ``python -m harness {run,list,report} ...``.

Every user-facing error is a UsageError, printed as one line with exit
code 2 by :func:`main`.
"""
from __future__ import print_function

import argparse
import sys

from harness.errors import UsageError, exit_with_usage_error
from harness.threadspec import DEFAULT_THREADS

COMMANDS = ("run", "list", "report")
USAGE = """usage: python -m harness COMMAND [options]

commands:
  run     run the selected cases under pyperf into one result JSON
  list    print the registered cases and whether they can run here
  report  render tables (RST / Markdown) from result JSON (Python >= 3.9)

python -m harness COMMAND --help shows a command's options."""


class OneLineErrorParser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def _add_selection_options(parser):
    parser.add_argument("--case", action="append", metavar="GLOB",
                        help="run only benchmarks whose name (with or "
                        "without /tN) matches; repeatable")
    parser.add_argument("--threads", default=DEFAULT_THREADS, metavar="SPEC",
                        help="thread counts, e.g. 1,2,4 or 1-8 "
                        "(default: %(default)s)")
    parser.add_argument("--module", action="append", metavar="MODULE",
                        help="case module (dotted name or path to a .py "
                        "file) instead of the built-in cases/; repeatable")


def run_parser():
    parser = OneLineErrorParser(
        prog="python -m harness run",
        description="Run cases under pyperf. Options not listed here are "
        "passed to pyperf (e.g. --fast, --rigorous, -p 5, --affinity 1).")
    _add_selection_options(parser)
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="result JSON (default: results/<python>.json); "
                        "replaced only when the run wrote something")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        default=600.0,
                        help="kill a benchmark that runs longer "
                        "(default: %(default)s)")
    return parser


def cmd_run(argv):
    from harness import run
    args, pyperf_options = run_parser().parse_known_args(argv)
    if not args.timeout > 0:  # also refuses NaN
        raise UsageError("--timeout must be positive")
    return run.run(args, pyperf_options)


def cmd_list(argv):
    from harness import listing
    parser = OneLineErrorParser(prog="python -m harness list",
                                description="List the registered cases.")
    _add_selection_options(parser)
    args = parser.parse_args(argv)
    for line in listing.format_cases(args):
        print(line)
    return 0


def cmd_report(argv):
    if sys.version_info < (3, 9):
        raise UsageError("report needs Python >= 3.9 (this is %d.%d); use "
                         "tox -e report" % sys.version_info[:2])
    from harness.report import cli as report_cli
    return report_cli.main(argv)


def cmd_bench(argv):
    from harness import bench
    return bench.main(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    handlers = {"run": cmd_run, "list": cmd_list, "report": cmd_report,
                "bench": cmd_bench}
    handler = handlers.get(argv[0])
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
