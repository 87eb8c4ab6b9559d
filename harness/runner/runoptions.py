"""The options ``run`` and ``timeit`` share: where the result goes, the
per-benchmark limits, the journal, and how much is said while running.

One parser builder and one check, so the two commands cannot drift apart.
"""
from gilbench.errors import UsageError
from gilbench.model.design import ADAPTIVE, DESIGNS, FIXED


def without(argv, valued, flags=()):
    """``argv`` less the ``valued`` options (with their value, the next
    token or after "=") and the ``flags``."""
    kept, skip = [], False
    for token in argv:
        if skip:
            skip = False
        elif token in valued:
            skip = True
        elif token.split("=")[0] not in tuple(valued) + tuple(flags):
            kept.append(token)
    return kept


def default_memory_limit():
    """Half the machine's memory, in MB: a case that exhausts memory fails
    alone instead of taking the machine down."""
    import psutil
    return int(psutil.virtual_memory().total / 2 / 1024 / 1024)


def add_run_options(parser, output_help):
    parser.add_argument("-o", "--output", metavar="FILE", help=output_help)
    parser.add_argument("--design", choices=DESIGNS, default=ADAPTIVE,
                        help="adaptive: a first look at every benchmark, "
                        "then more worker processes where an answer needs "
                        "them, within --budget; fixed: every benchmark "
                        "the same recipe (default: %(default)s)")
    parser.add_argument("--budget", type=float, metavar="SECONDS",
                        help="the adaptive run's time in all (default: "
                        "half the fixed recipe's estimate; run --dry-run "
                        "prints it)")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        default=600.0,
                        help="kill a benchmark that runs longer "
                        "(default: %(default)s)")
    placement = parser.add_mutually_exclusive_group()
    placement.add_argument("--pin-threads", dest="pin_threads",
                           action="store_true", default=None,
                           help="pin thread (or process) i to usable CPU "
                           "i mod ncpus, distinct physical cores first "
                           "(default on Linux)")
    placement.add_argument("--no-pin-threads", dest="pin_threads",
                           action="store_false",
                           help="leave threads and processes where the OS "
                           "puts them (the default elsewhere)")
    parser.add_argument("--fresh-workers", action="store_true",
                        help="start each pyperf worker as a fresh "
                        "interpreter (its own hash seed and address "
                        "layout), not as a fork of its benchmark program; "
                        "slower")
    parser.add_argument("--apart", action="store_true",
                        help="measure the partners of an undecided answer "
                        "in worker processes of their own in the rounds, "
                        "not two at a time in one worker, value by value "
                        "(a duet; docs/reading.rst)")
    parser.add_argument("--why", action="store_true",
                        help="sample where the threads wait (py-spy, "
                        "needed on PATH or in GILBENCH_PY_SPY) during "
                        "extra values of each benchmark's first program, "
                        "before its timed ones: the report names why a "
                        "call does not scale from the samples too")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress on stderr and no per-benchmark "
                        "lines; the summary only")
    parser.add_argument("--resume", action="store_true",
                        help="finish an interrupted run (same output, "
                        "selection and settings) from its journal")
    parser.add_argument("--restart", action="store_true",
                        help="discard an interrupted run's journal and "
                        "start over")
    parser.add_argument("--loops-from", metavar="PREVIOUS.json",
                        help="reuse the loop counts pyperf calibrated in an "
                        "earlier result of this interpreter on this machine "
                        "(skips each benchmark's calibration)")
    parser.add_argument("--memory-limit", type=int, metavar="MB",
                        default=default_memory_limit(),
                        help="address-space limit of each benchmark's "
                        "processes; 0 for none (default: half the "
                        "machine's memory, %(default)s)")


def check_run_options(args):
    """One line for a setting no run can use; then the pinning settled
    where the user left it to the machine, and --why's sampler named for
    the benchmark programs."""
    if not args.timeout > 0:  # also refuses NaN
        raise UsageError("--timeout must be positive")
    if args.budget is not None and not args.budget > 0:
        raise UsageError("--budget must be a positive number of seconds")
    if args.budget is not None and args.design == FIXED:
        raise UsageError("--budget sizes the adaptive design's rounds; "
                         "--design fixed measures every benchmark once")
    if args.memory_limit < 0:
        raise UsageError("--memory-limit must be 0 (none) or positive")
    if args.resume and args.restart:
        raise UsageError("--resume and --restart exclude each other")
    if args.pin_threads is None:
        # Here, not at the top: the worker side's modules only for a run.
        from gilbench.measure import pinning
        args.pin_threads = pinning.pin_by_default()
    if getattr(args, "why", False):
        from gilbench.measure import whysampler
        whysampler.export()
