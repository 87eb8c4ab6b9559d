"""What a run will measure, and about how long it will take: per family,
its benchmarks (and how many can run here), the counts of its count axes,
and an estimated time, for the usable CPUs the plan is made for
(``gilbench.model.machine.planned``: this machine, or
``GILBENCH_PLAN_CPUS``).  ``gilbench list`` ends with it and ``run
--dry-run`` prints it instead of running.

The estimate: each benchmark that can run costs its program's start
(PROGRAM_SECONDS), and each worker process its start (PROCESS_SECONDS),
the processes its case starts (FORK_SECONDS each), its loop calibration
and its warmups and values (multiples of pyperf's minimum time).  A value
much longer than that (a pool's cold start, a service round) makes the
run longer; a value's length does not grow with the thread count, since
calibration gives more threads fewer loops.
"""
import argparse
import os

from gilbench.measure import program
from gilbench.model import machine
from gilbench.runner import child

# The count axes a plan shows: the drivers' and the executor's workers.
COUNT_UNITS = ("threads", "processes", "workers")
# A program's start, a worker process's, the loop calibration (in minimum
# times) and a value's length (loops double until it exceeds the minimum
# time); docs/reading.rst, "What a default run measures", says how they
# were fitted.
PROGRAM_SECONDS = 0.1
PROCESS_SECONDS = 0.05
CALIBRATION_TIMES = 2.0
VALUE_TIMES = 2.0
# Each worker process starts its case's threads or processes before the
# clock: a fork is about this much; a thread far less.
FORK_SECONDS = 0.005


def _sizing(options):
    """(processes, warmups, values, min_time) pyperf options give."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("-p", "--processes",
                        default=program.DEFAULT_PROCESSES)
    parser.add_argument("-w", "--warmups", default=program.DEFAULT_WARMUPS)
    parser.add_argument("-n", "--values", default=program.DEFAULT_VALUES)
    parser.add_argument("--min-time", default=program.DEFAULT_MIN_TIME)
    parser.add_argument("--rigorous", action="store_true")
    parser.add_argument("--fast", action="store_true")
    told = parser.parse_known_args(list(options))[0]
    sized = {}
    for name in ("processes", "warmups", "values", "min_time"):
        try:
            sized[name] = float(getattr(told, name))
        except ValueError:  # pyperf refuses it when the run starts
            sized[name] = float(parser.get_default(name))
    if told.rigorous:
        sized["processes"] *= 2
    elif told.fast:
        sized["processes"] = max(sized["processes"] // 2, 3)
        sized["values"] = max(sized["values"] * 2 // 3, 2)
    return sized


def benchmark_seconds(bench, args, pyperf_options):
    """The estimated seconds of one benchmark that can run."""
    sized = _sizing(child.sizing_options(args, pyperf_options, bench.spec)
                    + list(pyperf_options))
    per_process = (PROCESS_SECONDS + FORK_SECONDS * _forks(bench)
                   + sized["min_time"] * (CALIBRATION_TIMES + VALUE_TIMES * (
                       sized["warmups"] + sized["values"])))
    return PROGRAM_SECONDS + sized["processes"] * per_process


def _forks(bench):
    """Processes a worker process of ``bench`` starts before the clock."""
    return max([bench.params[axis.name] for axis in bench.spec.axes
                if axis.open and axis.unit in COUNT_UNITS[1:]] + [0])


def make(benchmarks, missing, args, pyperf_options):
    """The plan: {"cpus", "estimated_seconds", "families": {family:
    {"benchmarks", "runnable", "counts": {axis: [values]},
    "estimated_seconds"}}}; ``missing``: run.availability's."""
    families = {}
    for bench in benchmarks:
        family = families.setdefault(bench.spec.family, {
            "benchmarks": 0, "runnable": 0, "counts": {},
            "estimated_seconds": 0.0})
        family["benchmarks"] += 1
        for axis in bench.spec.axes:
            if axis.open and axis.unit in COUNT_UNITS:
                seen = family["counts"].setdefault(axis.name, [])
                if bench.params[axis.name] not in seen:
                    seen.append(bench.params[axis.name])
        if bench.name not in missing:
            family["runnable"] += 1
            family["estimated_seconds"] += benchmark_seconds(
                bench, args, pyperf_options)
    for family in families.values():
        family["estimated_seconds"] = round(family["estimated_seconds"], 1)
        for values in family["counts"].values():
            values.sort()
    return {"cpus": machine.planned(),
            "estimated_seconds": round(sum(
                f["estimated_seconds"] for f in families.values()), 1),
            "families": families}


def lines(plan):
    """The plan as text, a line per family and a total."""
    told = os.environ.get(machine.PLAN_ENVIRONMENT)
    said = ["plan for %d usable CPUs (%s):" % (
        plan["cpus"], "%s=%s" % (machine.PLAN_ENVIRONMENT, told) if told
        else "this machine's")]
    for name in sorted(plan["families"]):
        family = plan["families"][name]
        counts = " ".join("%s=%s" % (axis, ",".join(str(v) for v in values))
                          for axis, values in sorted(family["counts"].items()))
        said.append("  %-10s %4d benchmarks (%d runnable)  %s  ~%s"
                    % (name, family["benchmarks"], family["runnable"],
                       counts or "-", _duration(family["estimated_seconds"])))
    said.append("  total: about %s (an estimate: docs/reading.rst, \"What a "
                "default run measures\")" % _duration(
                    plan["estimated_seconds"]))
    return said


def _duration(seconds):
    if seconds < 120:
        return "%.0f s" % seconds
    return "%.1f min" % (seconds / 60.0)
