"""How much each benchmark is measured: the run's design.

One object owns sizing, and the run, ``gilbench extend`` (and so
``refine``), the busy re-measure and the plan all ask it:

``fixed``
    the recipe every benchmark got before the design sized itself: the
    user's pyperf sizing options, else the quick profile, else the case's
    own ``sizing``, else 2 worker processes x (1 warmup + 3 values of at
    least 40 ms); a benchmark measured while the machine was busy is
    measured once more.  Kept to compare against.
``adaptive`` (the default)
    a *first look* -- 2 worker processes x 2 values of at least 10 ms (and
    a warmup on PyPy), loops calibrated to the minimum time rather than
    doubled past it -- then *rounds* (``gilbench.runner.rounds``) that
    give more worker processes to the benchmarks that still need them,
    within a time budget: a benchmark whose mean is wider than
    :data:`TARGET` between its processes, and one that an undecided
    finding reads.  How many processes and values a round adds follows
    Kalibera and Jones ("Rigorous Benchmarking in Reasonable Time", ISMM
    2013, with their corrected estimator): the variance of the values
    within a process and of the processes' means beyond it, each level's
    cost, the optimal values per process
    r = ceil(sqrt((c_process / c_value) * T1^2 / T2^2)), and as many
    processes as bring the mean's spread to the target.

Both designs measure in *blocks* (gilbench.runner.blocks): each of a
measurement's worker processes is a block of its own, one process of
every benchmark, partners side by side, so what the machine did
meanwhile cancels in a ratio (gilbench.report.numbers.variance).

Stopping on an interval's *width* needs no correction; stopping an
answer once it is *significant* does (about 20% false decisions instead
of 5% over ten looks).  So every benchmark counts its *decision looks*:
the looks at which an undecided finding kept it going.  The report widens
such a benchmark's interval as Bonferroni over those looks asks
(gilbench.report.numbers.intervals).

The variances are of log values (times vary by factors), from the
standard library's ``statistics`` (pyperf's own; its backport on 2.7).
Worker side: Python 2.7-compatible, no numpy.
"""
from __future__ import division

import argparse
import math
import statistics

from gilbench.errors import UsageError
from gilbench.model import resultformat

FIXED, ADAPTIVE = "fixed", "adaptive"
DESIGNS = (ADAPTIVE, FIXED)

# The fixed recipe's defaults: pyperf's own (20 processes, 0.1 s values)
# take minutes per benchmark; one warmup of >= 40 ms is far past PyPy's
# JIT tracing threshold for these call loops.
DEFAULT_PROCESSES = 2
DEFAULT_VALUES = 3
DEFAULT_WARMUPS = 1
DEFAULT_MIN_TIME = 0.04
# --quick, unless sized: one value fewer, values of >= 20 ms.
QUICK_PYPERF = ["-p", "2", "-n", "2", "-w", "1", "--min-time", "0.02"]

# The adaptive first look: two processes (the fewest that show the
# spread between processes) of two values each (the fewest that show the
# spread within one) of at least 10 ms (first looks take most of the
# budget; what they leave buys the rounds), with no warmup where the
# first value is like the others (a CPython fork has imported and set the
# case up already), one where a JIT compiles the loop first (PyPy), and
# one where the work runs in several threads or processes, whose first
# values wait for the scheduler to spread them (a second one's time buys
# more as duet values).  docs/reading.rst gives the figures.
FIRST_PROCESSES = 2
FIRST_VALUES = 2
FIRST_WARMUPS = {"PyPy": 1}
CONCURRENT_WARMUPS = 1
FIRST_MIN_TIME = 0.01
# Processes that agree beyond their values' scatter are believed from
# this many on: fewer agree by chance as often as not.
AGREEING_PROCESSES = 4
# A benchmark never gets more worker processes than this, nor a round
# more values per process.
MOST_PROCESSES = 16
MOST_VALUES = 8
# The spread between processes (a relative standard deviation of the
# mean) a benchmark is measured down to while no finding waits on it: a
# quarter of the smallest difference that matters (findings.MARGIN), at
# which its share of a two-mean ratio's 95% interval is within +-7%.
TARGET = 0.025
# Degrees of freedom at which pyperf's t table gives the normal's quantile.
NORMAL_DF = 200
# The default budget: the fixed recipe's estimated time times this (so
# --quick, --rigorous and --fast, which size that recipe, size it too);
# a run's rounds end this many seconds before it, for the run's own end
# (the result file written from the journal), or this share of a small
# budget (a few benchmarks' file is written in milliseconds).
BUDGET_SHARE = 0.5
END_RESERVE = 2.0
END_SHARE = 0.05

# Why a benchmark's measurement stopped (gilbench_stopped).
NARROW = "narrow"      # its processes agree within TARGET
DECIDED = "decided"    # undecided findings kept it going; now decided
BUDGET = "budget"      # it still needed more when the budget was spent
BUSY = "busy"          # the rounds stopped on a busy machine
LIMIT = "limit"        # MOST_PROCESSES reached
RECIPE = "fixed"       # the fixed design measures once
FAILED = "failed"      # a later measurement failed; the earlier are kept
STOPS = (NARROW, DECIDED, BUDGET, BUSY, LIMIT, RECIPE, FAILED)

# The plan's cost model (docs/reading.rst, "What a default run measures",
# says how it was fitted): a benchmark program's start, a worker
# process's start, a fork its case makes before the clock, the loop
# calibration and a value, in minimum times (doubling lands a value
# between one and two minimum times; a calibration that scales the loops
# lands it just past one).
PROGRAM_SECONDS = 0.1
PROCESS_SECONDS = 0.05
FORK_SECONDS = 0.005
CALIBRATION_TIMES = 2.0
VALUE_TIMES = 2.0
SCALED_CALIBRATION_TIMES = 1.5
SCALED_VALUE_TIMES = 1.1

_SIZED = ("-p", "--processes", "-n", "--values", "-w", "--warmups",
          "--min-time", "-l", "--loops")  # each takes a value
_FLAGS = ("--fast", "--rigorous")


class Sizing(object):
    """One measurement of a benchmark: pyperf's sizing options and what
    they mean.  ``scaled``: calibrate the loops to the minimum time (the
    adaptive first look), not pyperf's doubling past it."""

    def __init__(self, options, scaled=False):
        self.options = list(options)
        self.scaled = scaled
        told = _sizing_parser().parse_known_args(self.options)[0]
        numbers = {}
        for name in ("processes", "warmups", "values", "min_time"):
            try:
                numbers[name] = float(getattr(told, name))
            except ValueError:  # pyperf refuses it when the run starts
                numbers[name] = float(_sizing_parser().get_default(name))
        if told.rigorous:
            numbers["processes"] *= 2
        elif told.fast:
            numbers["processes"] = max(numbers["processes"] // 2, 3)
            numbers["values"] = max(numbers["values"] * 2 // 3, 2)
        self.processes = int(numbers["processes"])
        self.values = int(numbers["values"])
        self.warmups = int(numbers["warmups"])
        self.min_time = numbers["min_time"]
        self.loops = told.loops

    def first_block(self):
        """This measurement's first block: one worker process, sized as
        each of its others (the rest are :func:`repeat` of it, at its
        loops), for the run to measure its ``processes`` in as many
        blocks."""
        kept = [o for o in _without_counts(self.options) if o not in _FLAGS]
        return Sizing(kept + ["-p", "1", "-n", str(self.values)],
                      scaled=self.scaled)

    def with_loops(self, loops):
        """The same, at ``loops`` (no calibration)."""
        if self.loops is not None or not loops:
            return self
        return Sizing(self.options + ["--loops", str(loops)])

    def seconds(self, forks=0, calibrates=True):
        """The estimated seconds of this measurement (the plan's model)."""
        value_times = SCALED_VALUE_TIMES if self.scaled else VALUE_TIMES
        calibration = 0.0
        if calibrates and self.loops is None:
            calibration = self.min_time * (
                SCALED_CALIBRATION_TIMES if self.scaled
                else CALIBRATION_TIMES)
        # Each process is a block of its own: a program start each.
        per_process = (PROGRAM_SECONDS + PROCESS_SECONDS
                       + FORK_SECONDS * forks + self.min_time * value_times
                       * (self.warmups + self.values))
        if not self.scaled:  # the fixed model was fitted this way
            per_process += calibration
            calibration = 0.0
        return calibration + self.processes * per_process


def _sizing_parser():
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("-p", "--processes", default=DEFAULT_PROCESSES)
    parser.add_argument("-w", "--warmups", default=DEFAULT_WARMUPS)
    parser.add_argument("-n", "--values", default=DEFAULT_VALUES)
    parser.add_argument("--min-time", default=DEFAULT_MIN_TIME)
    parser.add_argument("-l", "--loops", type=int, default=None)
    parser.add_argument("--rigorous", action="store_true")
    parser.add_argument("--fast", action="store_true")
    return parser


def _without_counts(options):
    """``options`` less their processes and values (and what they say)."""
    kept, skipping = [], False
    for token in options:
        if skipping:
            skipping = False
            continue
        name = token.split("=")[0]
        if name in ("-p", "--processes", "-n", "--values"):
            skipping = "=" not in token
            continue
        kept.append(token)
    return kept


def split_options(pyperf_options):
    """(the sizing options among ``pyperf_options``, the rest)."""
    sizing, rest, taking = [], [], False
    for token in pyperf_options:
        name = token.split("=")[0]
        if taking:
            sizing.append(token)
            taking = False
        elif token in _SIZED:
            sizing.append(token)
            taking = True
        elif name in _SIZED + _FLAGS:
            sizing.append(token)
        else:
            rest.append(token)
    return sizing, rest


_ALIASES = {"--loops": ("-l", "--loops"), "--min-time": ("--min-time",)}


def first_warmups(implementation=None, concurrency=1):
    """The first look's warmups per worker process on this interpreter
    (or ``implementation``, as platform names it), for work that runs in
    ``concurrency`` threads or processes."""
    import platform
    found = FIRST_WARMUPS.get(implementation
                              or platform.python_implementation(), 0)
    if concurrency > 1:
        found = max(found, CONCURRENT_WARMUPS)
    return found


def _concurrency(bench):
    """The threads or processes ``bench``'s work runs in (1 unknown)."""
    if bench is None:
        return 1
    return bench.spec.concurrency(bench.params)


def _given(options, name):
    """Whether ``options`` set ``name`` (by any of its spellings)."""
    return any(o.split("=")[0] in _ALIASES[name] for o in options)


def _value_length(spec_sizing):
    """{option: value} of the case's own loops and minimum time (how long
    its values are), without its repetitions, which are the design's."""
    told = _sizing_parser().parse_known_args(list(spec_sizing))[0]
    kept = {}
    if _given(spec_sizing, "--min-time"):
        kept["--min-time"] = str(told.min_time)
    if told.loops is not None:
        kept["--loops"] = str(told.loops)
    return kept


class Design(object):
    """How a run sizes its benchmarks; see the module's doc."""

    def __init__(self, kind=ADAPTIVE, quick=False, sizing=(), budget=None):
        if kind not in DESIGNS:
            raise UsageError("--design %r: one of %s" % (
                kind, ", ".join(DESIGNS)))
        if budget is not None and not budget > 0:  # also refuses NaN
            raise UsageError("--budget must be a positive number of "
                             "seconds")
        self.kind = kind
        self.quick = quick
        self.sizing = list(sizing)  # the user's pyperf sizing options
        self.told_budget = budget

    @property
    def adaptive(self):
        return self.kind == ADAPTIVE

    def describe(self):
        """What a journal header and RUN_KEY keep of the design."""
        return {"design": self.kind, "budget": self.told_budget}

    def recipe(self, bench):
        """The fixed design's sizing of ``bench``."""
        if self.sizing:
            return Sizing(self.sizing)
        if self.quick:
            return Sizing(QUICK_PYPERF)
        return Sizing(bench.spec.sizing if bench is not None else ())

    def first(self, bench, loops=None):
        """The first measurement of ``bench``: the whole recipe (fixed)
        or the first look (adaptive); ``loops`` an earlier run's."""
        if not self.adaptive:
            return self.recipe(bench).with_loops(loops)
        # --rigorous and --fast size the budget, not a measurement.
        told = [o for o in self.sizing if o not in _FLAGS]
        options = told or ["-p", str(FIRST_PROCESSES),
                           "-n", str(FIRST_VALUES),
                           "-w", str(first_warmups(
                               concurrency=_concurrency(bench)))]
        length = _value_length(bench.spec.sizing if bench else ())
        for name, default in (("--min-time", str(FIRST_MIN_TIME)),
                              ("--loops", None)):
            if _given(told, name):
                continue
            if name in length:
                options += [name, length[name]]
            elif default is not None and not told:
                options += [name, default]
        return Sizing(options, scaled=True).with_loops(loops)

    def budget(self, benchmarks):
        """The adaptive run's time budget in seconds, first looks
        included: the one told, else BUDGET_SHARE of the fixed recipe's
        estimate for ``benchmarks`` (those that can run).  The recipe is
        the full one even for --quick, whose quick profile is about the
        first look itself: --quick's budget is smaller by its fewer
        benchmarks; --rigorous's larger by its doubled processes."""
        if self.told_budget is not None:
            return self.told_budget
        full = Design(FIXED, sizing=self.sizing)
        return BUDGET_SHARE * sum(full.recipe(b).seconds(forks_of(b))
                                  for b in benchmarks)

    def calibrated_budget(self, benchmarks, first_looks):
        """The budget once the first looks of ``benchmarks`` have run
        (``first_looks``: by benchmark name, its runs with values and the
        seconds it took): BUDGET_SHARE of the fixed recipe as those
        looks price it on this interpreter and machine
        (``recipe_seconds``), where that is less than the plan's model
        says.  It never grows: first looks slower than the model (PyPy's)
        are what the budget must hold, not a reason to spend more."""
        budget = self.budget(benchmarks)
        if self.told_budget is not None:
            return budget
        full = Design(FIXED, sizing=self.sizing)
        recipe = 0.0
        for bench in benchmarks:
            runs, seconds = first_looks.get(bench.name, ((), None))
            sizing = full.recipe(bench)
            recipe += (recipe_seconds(sizing, runs, seconds)
                       if runs and seconds else
                       sizing.seconds(forks_of(bench)))
        return min(budget, BUDGET_SHARE * recipe)

    def more(self, groups, costs, needs_finding, processes_so_far):
        """The next round for a benchmark: (processes to add, values per
        process), or None when it needs no more.  ``groups``: its values
        per worker process; ``costs``: (seconds per value, seconds per
        process besides its values); ``needs_finding``: an undecided
        finding reads it."""
        if processes_so_far >= MOST_PROCESSES:
            return None
        wide = not narrow(groups)
        if not (wide or needs_finding):
            return None
        return next_round(groups, costs, processes_so_far)


def end_reserve(budget):
    """The seconds a run's rounds leave of ``budget`` for its end."""
    return min(END_RESERVE, END_SHARE * budget)


def repeat(loops, warmups, processes, values):
    """The sizing of ``processes`` more worker processes measured as a
    benchmark's earlier ones were (their ``loops`` and ``warmups``), with
    ``values`` each."""
    return Sizing(["-p", str(processes), "-n", str(values),
                   "-w", str(warmups), "--loops", str(loops)])


def recipe_seconds(sizing, runs, seconds):
    """The seconds the fixed ``sizing`` would take for the benchmark whose
    first look measured ``runs`` in ``seconds``: what the look spent
    outside its worker processes' values and set-up (the program's and
    the processes' start, its calibration), the recipe's processes with
    the look's set-up each, and values as long as pyperf's doubling
    makes them at the recipe's minimum time from the look's fastest
    value (its calibration's values sum to about twice the last), each
    with the look's stall: its values' mean over their fastest, in
    seconds.  Some cases' values stall for a time of their own, not in
    proportion to their loops (a thread waiting out a switch interval),
    and the recipe draws such stalls as the look did.  The look's own
    warmups are not set-up: the recipe's are priced with its values."""
    per_value, per_process = costs(runs)
    set_up = per_process - PROCESS_SECONDS - _warmup_seconds(runs)
    fastest = min([v for run in runs for v in resultformat.value_seconds(run)]
                  or [0.0])
    stall = per_value - fastest
    per_loop = fastest / runs[0].get_metadata().get("loops", 1)
    outside = max(0.0, seconds - sum(run.get_metadata().get("duration", 0.0)
                                     for run in runs))
    loops = sizing.loops
    if loops is None and per_loop > 0:
        loops = _doubled(per_loop, sizing.min_time)
        outside += 2 * loops * per_loop
    return outside + sizing.processes * (
        set_up + (sizing.warmups + sizing.values)
        * ((loops or 1) * per_loop + stall))


def _warmup_seconds(runs):
    """The seconds of warmups in a worker process of pyperf ``runs``, as
    :func:`costs` counts its processes (not the calibration fork's)."""
    found = [resultformat.warmup_seconds(run) for run in runs
             if run.get_metadata().get("worker_start")
             != resultformat.CALIBRATION_FORK]
    return statistics.mean(found) if found else 0.0


def _doubled(per_loop, min_time):
    """The loops pyperf's calibration ends on: the first power of two
    whose value reaches ``min_time``."""
    return 2 ** max(0, int(math.ceil(math.log(min_time / per_loop, 2))))


def costs(runs, slowest=False):
    """(seconds per value, seconds per worker process besides its values)
    of pyperf ``runs`` with values: a value is its per-loop time times its
    loops (``slowest``: the slowest value, not their mean); a process
    adds its start to what pyperf's ``duration`` holds besides the values
    (set-up, warmups, metadata), but for the calibration fork's run,
    whose set-up came before it."""
    per_value, per_process = [], []
    for run in runs:
        meta = run.get_metadata()
        raw = resultformat.value_seconds(run)
        per_value.extend(raw)
        if meta.get("worker_start") != resultformat.CALIBRATION_FORK:
            per_process.append(max(meta.get("duration", 0.0) - sum(raw),
                                   0.0))
    typical = max if slowest else statistics.mean
    return (typical(per_value) if per_value else 0.0,
            PROCESS_SECONDS + (statistics.mean(per_process)
                               if per_process else 0.0))


def forks_of(bench, count_units=("processes", "workers")):
    """Processes a worker process of ``bench`` starts before the clock."""
    if bench is None:
        return 0
    return max([bench.params[axis.name] for axis in bench.spec.axes
                if axis.open and axis.unit in count_units] + [0])


def logged(groups):
    """``groups`` (values per worker process) as logs, where every value
    is positive; else as they are (a recorded figure can be 0)."""
    flat = [v for g in groups for v in g]
    if flat and all(v > 0 for v in flat):
        return [[math.log(v) for v in g] for g in groups if g]
    return [list(g) for g in groups if g]


def between_processes(groups):
    """The variance of the mean of ``groups`` (a sequence of values per
    worker process) from process to process: of the process means over
    their number, and never below what the values' own scatter gives
    (two process means can agree by chance)."""
    data = [v for g in groups for v in g]
    scatter = statistics.variance(data) / len(data) if len(data) > 1 else 0.0
    filled = [g for g in groups if len(g)]
    if len(filled) < 2:
        return scatter
    means = [statistics.mean(g) for g in filled]
    return max(statistics.variance(means) / len(means), scatter)


def few_processes_factor(processes):
    """How much a variance estimated from ``processes`` process means must
    count for a 95% interval drawn as normal to hold: (Student's t with
    processes - 1 degrees of freedom / the normal's)^2, 42 for two
    processes, 2.6 for four, 1.2 for sixteen (1 for fewer than two: the
    values' scatter is all there is)."""
    if processes < 2:
        return 1.0
    # pyperf's t table (listed in gilbench.measure.pyperfinternals.USED):
    # the worker side has no scipy, and both sides must use one number.
    from pyperf._utils import tdist95conf_level
    return (tdist95conf_level(processes - 1)
            / tdist95conf_level(NORMAL_DF)) ** 2


def narrow(groups, target=TARGET):
    """Whether the mean of ``groups`` (raw values per process) varies
    from process to process by at most ``target`` (relative), counting
    the uncertainty of an estimate from few processes, from at least
    two."""
    logs = logged(groups)
    if len(logs) < 2:
        return False
    return (between_processes(logs) * few_processes_factor(len(logs))
            <= target ** 2)


def components(groups):
    """Kalibera and Jones's variance components of ``groups`` (raw values
    per process), on the log scale: (T1^2 within a process, T2^2 between
    processes beyond it), with their corrected estimator T2^2 = S2^2 -
    S1^2 / r; None where a level shows no spread yet."""
    logs = logged(groups)
    within = [statistics.variance(g) for g in logs if len(g) >= 2]
    t1 = statistics.mean(within) if within else None
    if len(logs) < 2:
        return t1, None
    means = [statistics.mean(g) for g in logs]
    per_process = statistics.mean([len(g) for g in logs])
    s2 = statistics.variance(means)
    return t1, max(s2 - (t1 or 0.0) / per_process, 0.0)


def optimal_values(t1, t2, costs):
    """Kalibera and Jones's optimal values per process:
    ceil(sqrt((c_process / c_value) * T1^2 / T2^2)), within 1 and
    MOST_VALUES (most, where processes agree beyond the values' scatter;
    one, where values agree)."""
    value_seconds, process_seconds = costs
    if not t1:
        return 1
    if not t2 or value_seconds <= 0:
        return MOST_VALUES
    wanted = math.sqrt(process_seconds / value_seconds * t1 / t2)
    return int(min(max(math.ceil(wanted), 1), MOST_VALUES))


def benefit(groups, processes, values):
    """How much a step of ``processes`` more processes with ``values``
    each lowers the variance of the mean of ``groups`` as its 95%
    interval counts it (relative, on the log scale, with
    :func:`few_processes_factor`): the report's estimate now, less
    Kalibera and Jones's projection after it."""
    t1, t2 = components(groups)
    logs = logged(groups)
    now = between_processes(logs) * few_processes_factor(len(logs))
    after = (((t2 or 0.0) + (t1 or 0.0) / values) / (len(logs) + processes)
             * few_processes_factor(len(logs) + processes))
    return max(now - after, 0.0)


def step_seconds(costs, processes, values):
    """The estimated seconds of ``processes`` more worker processes with
    ``values`` each, at ``costs`` (:func:`costs`): each a block, a
    benchmark program of its own."""
    value_seconds, process_seconds = costs
    return processes * (PROGRAM_SECONDS + process_seconds
                        + values * value_seconds)


def next_round(groups, costs, processes_so_far, target=TARGET):
    """(processes to add, values each): as many processes as bring the
    mean's spread to ``target`` at the optimal values per process, at
    least two and at most as many again as it has (so the next look
    re-estimates the spread), within MOST_PROCESSES."""
    t1, t2 = components(groups)
    values = optimal_values(t1, t2, costs)
    if not t2 and len(groups) < AGREEING_PROCESSES:
        # A few blocks' processes that happen to agree: each block is a
        # program of its own, whose layout the next may not share.
        values = min(values, FIRST_VALUES)
    spread = (t2 or 0.0) + (t1 or 0.0) / values
    needed = int(math.ceil(spread / target ** 2)) - processes_so_far
    add = min(max(needed, 2), max(processes_so_far, 2),
              MOST_PROCESSES - processes_so_far)
    if add <= 0:
        return None
    return add, values


def from_args(args, pyperf_options):
    """(the Design ``args`` ask for, pyperf's options without sizing)."""
    sizing, rest = split_options(pyperf_options)
    return Design(getattr(args, "design", None) or ADAPTIVE,
                  quick=getattr(args, "quick", False), sizing=sizing,
                  budget=getattr(args, "budget", None)), rest
