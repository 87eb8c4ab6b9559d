"""Bad input becomes one line on stderr and exit code 2, never a traceback."""
from __future__ import print_function

import argparse
import sys

EXIT_USAGE = 2


class UsageError(Exception):
    """Input the user can fix: unknown case, bad thread spec, bad file..."""


def exit_with_usage_error(error):
    print("gilbench: error: %s" % (error,), file=sys.stderr)
    sys.exit(EXIT_USAGE)


class OneLineErrorParser(argparse.ArgumentParser):
    """An argparse parser whose errors are UsageErrors: one line, exit 2."""

    def error(self, message):
        raise UsageError(message)


class PassThroughParser(OneLineErrorParser):
    """A parser whose unknown options go on whole to pyperf: it takes no
    abbreviations, so pyperf's ``--loops 4`` is not read as our
    ``--loops-from 4`` (argparse's allow_abbrev, which 2.7 lacks)."""

    def _get_option_tuples(self, option_string):
        if option_string.startswith("--"):
            return []
        return super(PassThroughParser, self)._get_option_tuples(
            option_string)
