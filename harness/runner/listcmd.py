"""``gilbench list``: the registry as text or JSON.

The JSON (``--json``) is for tools and tests; its shape is stable: a
``gilbench_format`` number and a ``cases`` list, each case with its name
parts, driver, description, what a value means, its axes (type, default
and quick values, unit, log, open), how many benchmarks the selection
makes of it, and which of them cannot run here and why; and a ``plan``:
the usable CPUs it is made for, per family its benchmarks, counts and
estimated seconds, and the total (gilbench.runner.plan).
"""
import json

from gilbench.model import design, registry, resultformat
from gilbench.runner import plan
from gilbench.runner.run import availability


def _selected(args):
    selection = registry.Selection(quick=args.quick, params=args.params)
    return registry.load(args.module, selection, args.case)


def _case_entries(benchmarks):
    missing = availability(benchmarks)
    entries = []
    for spec in registry.unique_specs(benchmarks):
        mine = [b for b in benchmarks if b.spec is spec]
        not_here = [{"name": b.name, "params": dict(b.params),
                     "reason": missing[b.name]}
                    for b in mine if b.name in missing]
        entries.append({
            "name": spec.base_name, "family": spec.family,
            "case": spec.case, "variant": spec.variant,
            "backend": spec.backend, "driver": spec.driver,
            "description": spec.description,
            "value_means": spec.value_means,
            "axes": [axis.describe() for axis in spec.axes],
            "benchmarks": len(mine),
            "runnable": len(mine) - len(not_here),
            "not_runnable": not_here,
        })
    return entries


def _axis_text(axis, benchmarks, spec):
    used = []
    for bench in benchmarks:
        if bench.spec is spec and bench.params[axis.name] not in used:
            used.append(bench.params[axis.name])
    return "%s=%s" % (axis.name, ",".join(str(v) for v in used))


def _status(entry):
    if not entry["not_runnable"]:
        return "ok"
    reasons = sorted(set(e["reason"] for e in entry["not_runnable"]))
    if entry["runnable"] == 0:
        return reasons[0]
    return "%d of %d: %s" % (len(entry["not_runnable"]),
                             entry["benchmarks"], reasons[0])


def format_cases(args):
    """Lines to print: the JSON document, or one line per case and the
    plan (gilbench.runner.plan)."""
    benchmarks = _selected(args)
    entries = _case_entries(benchmarks)
    made = plan.make(benchmarks, availability(benchmarks),
                     design.Design(quick=args.quick))
    if args.json:
        return [json.dumps({resultformat.FORMAT_KEY:
                            resultformat.FORMAT_VERSION, "cases": entries,
                            "plan": made}, indent=2, sort_keys=True)]
    specs = registry.unique_specs(benchmarks)
    width = max([len(spec.base_name) for spec in specs] + [4])
    return ["%-*s  %s  [%s]  %s  %s" % (
        width, spec.base_name, spec.driver,
        " ".join(_axis_text(a, benchmarks, spec) for a in spec.axes),
        _status(entry), spec.description)
        for spec, entry in zip(specs, entries)] + plan.lines(made)
