"""``--time``: how long ``run`` and ``timeit`` measure, on one scale.

``quick``: each axis's quick values and smaller pyperf settings; the
default ``adaptive``: a first look at every benchmark, then rounds where
answers are undecided, within the command's default budget; a number of
SECONDS: adaptive within that budget; ``rigorous``: pyperf's larger
settings, adaptive; ``fixed``: every benchmark the fixed recipe, no
rounds.  The five spellings it folds (``--quick``, pyperf's ``--fast``
and ``--rigorous``, ``--design``, ``--budget``) still work; a command
given one says, in one line at its end, what to write instead.

Worker side: Python 2.7-compatible.
"""
from __future__ import print_function

import sys

from gilbench.errors import UsageError
from gilbench.model.design import ADAPTIVE, FIXED

QUICK, RIGOROUS = "quick", "rigorous"
WORDS = (QUICK, ADAPTIVE, RIGOROUS, FIXED)
HELP = ("how long to measure, on one scale: quick (each axis's quick "
        "values, smaller pyperf settings), adaptive (the default: a first "
        "look, then rounds where answers are undecided, within the "
        "default budget), SECONDS (adaptive within that many seconds), "
        "rigorous (pyperf's larger settings), fixed (every benchmark the "
        "fixed recipe, no rounds); --quick, --fast, --rigorous, --design "
        "and --budget still work")
# The old spellings, and what --time says for each.
_FOLDED = (("--quick", QUICK), ("--fast", QUICK), ("--rigorous", RIGOROUS),
           ("--design", None), ("--budget", "SECONDS"))


def add_option(parser):
    parser.add_argument("--time", metavar="HOW_LONG", help=HELP)


def fold(args, pyperf_options):
    """Apply ``args.time`` to the options it folds (args in place);
    pyperf's options, with --rigorous where it asks for it.  One line on
    a value that is neither a word nor a positive number of seconds."""
    told = args.time
    if told is None:
        return pyperf_options
    if told == QUICK:
        args.quick = True
    elif told == RIGOROUS:
        return list(pyperf_options) + ["--rigorous"]
    elif told in (ADAPTIVE, FIXED):
        args.design = told
    else:
        try:
            seconds = float(told)
        except ValueError:
            seconds = 0.0
        if not seconds > 0:  # also refuses NaN
            raise UsageError("--time %r: one of %s, or a positive number "
                             "of seconds" % (told, ", ".join(WORDS)))
        args.design, args.budget = ADAPTIVE, seconds
    return pyperf_options


def notices(argv):
    """A line for each folded spelling ``argv`` gives: what --time says
    instead."""
    found = []
    for token in argv:
        name, _, value = token.partition("=")
        for old, word in _FOLDED:
            if name == old and old not in [f for f, _ in found]:
                found.append((old, word or _design_word(argv, value)))
    return ["gilbench: %s still works; how long to measure is one option "
            "now: --time %s" % (old, word) for old, word in found]


def _design_word(argv, value):
    if not value and "--design" in argv:
        index = argv.index("--design")
        value = argv[index + 1] if index + 1 < len(argv) else ""
    return value if value in WORDS else "fixed|adaptive"


def say_notices(argv):
    for line in notices(argv):
        print(line, file=sys.stderr)
