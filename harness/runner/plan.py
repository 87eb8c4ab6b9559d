"""What a run will measure, and about how long it will take: per family,
its benchmarks (and how many can run here), the counts of its count axes,
and an estimated time, for the usable CPUs the plan is made for
(``gilbench.model.machine.planned``: this machine, or
``GILBENCH_PLAN_CPUS``).  ``gilbench list`` ends with it and ``run
--dry-run`` prints it instead of running.

The times come from the run's design (gilbench.model.design): each
benchmark's first measurement (the whole fixed recipe, or the adaptive
first look), the fixed recipe's for comparison, and the adaptive run's
budget: what its rounds may spend in all, first looks included.
"""
import os

from gilbench.model import design as designs
from gilbench.model import machine

# The count axes a plan shows: the drivers' and the executor's workers.
COUNT_UNITS = ("threads", "processes", "workers")


def _family(families, name):
    return families.setdefault(name, {
        "benchmarks": 0, "runnable": 0, "counts": {},
        "estimated_seconds": 0.0, "fixed_seconds": 0.0})


def make(benchmarks, missing, design):
    """The plan: {"cpus", "design", "estimated_seconds", "fixed_seconds",
    "budget_seconds" (adaptive), "families": {family: {"benchmarks",
    "runnable", "counts": {axis: [values]}, "estimated_seconds",
    "fixed_seconds"}}}; ``missing``: run.availability's."""
    families = {}
    runnable = []
    for bench in benchmarks:
        family = _family(families, bench.spec.family)
        family["benchmarks"] += 1
        for axis in bench.spec.axes:
            if axis.open and axis.unit in COUNT_UNITS:
                seen = family["counts"].setdefault(axis.name, [])
                if bench.params[axis.name] not in seen:
                    seen.append(bench.params[axis.name])
        if bench.name not in missing:
            runnable.append(bench)
            family["runnable"] += 1
            forks = designs.forks_of(bench)
            family["estimated_seconds"] += design.first(bench).seconds(forks)
            family["fixed_seconds"] += design.recipe(bench).seconds(forks)
    for family in families.values():
        for key in ("estimated_seconds", "fixed_seconds"):
            family[key] = round(family[key], 1)
        for values in family["counts"].values():
            values.sort()
    made = {"cpus": machine.planned(), "design": design.kind,
            "families": families}
    for key in ("estimated_seconds", "fixed_seconds"):
        made[key] = round(sum(f[key] for f in families.values()), 1)
    if design.adaptive:
        made["budget_seconds"] = round(design.budget(runnable), 1)
        made["budget_told"] = design.told_budget is not None
    return made


def lines(plan):
    """The plan as text, a line per family and a total."""
    told = os.environ.get(machine.PLAN_ENVIRONMENT)
    adaptive = plan["design"] == designs.ADAPTIVE
    said = ["plan for %d usable CPUs (%s), %s design:" % (
        plan["cpus"], "%s=%s" % (machine.PLAN_ENVIRONMENT, told) if told
        else "this machine's", plan["design"])]
    for name in sorted(plan["families"]):
        family = plan["families"][name]
        counts = " ".join("%s=%s" % (axis, ",".join(str(v) for v in values))
                          for axis, values in sorted(family["counts"].items()))
        said.append("  %-10s %4d benchmarks (%d runnable)  %s  ~%s%s"
                    % (name, family["benchmarks"], family["runnable"],
                       counts or "-", _duration(family["estimated_seconds"]),
                       " first look (fixed ~%s)" % _duration(
                           family["fixed_seconds"]) if adaptive else ""))
    if adaptive:
        said.append("  total: first looks about %s, then rounds where an "
                    "answer needs more, within a budget of %s (%s)" % (
                        _duration(plan["estimated_seconds"]),
                        _duration(plan["budget_seconds"]),
                        "--time SECONDS" if plan["budget_told"] else
                        "half the full fixed recipe's estimate, less if "
                        "the first looks price the recipe lower; "
                        "--time SECONDS sets it"))
    else:
        said.append("  total: about %s" % _duration(
            plan["estimated_seconds"]))
    said.append("  (an estimate: docs/reading.rst, \"What a default run "
                "measures\")")
    return said


def _duration(seconds):
    if seconds < 120:
        return "%.0f s" % seconds
    return "%.1f min" % (seconds / 60.0)
