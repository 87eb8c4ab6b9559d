"""``python -m harness list``: the registry as lines of text."""
from harness import registry
from harness.run import availability
from harness.threadspec import parse_threads


def format_cases(args):
    """One line per spec: name, thread counts, here-or-n/a, description."""
    counts = parse_threads(args.threads)
    benchmarks = registry.select(registry.load(args.module, counts),
                                 args.case)
    missing = availability(benchmarks)
    specs = registry.unique_specs(benchmarks)
    width = max([len(spec.base_name) for spec in specs] + [4])
    return ["%-*s  /t%s  %s  %s" % (width, spec.base_name, args.threads,
                                    missing.get(spec.base_name, "ok"),
                                    spec.description)
            for spec in specs]
