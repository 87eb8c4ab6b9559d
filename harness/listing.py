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
    lines, seen = [], set()
    width = max([len(b.spec.base_name) for b in benchmarks] + [4])
    for bench in benchmarks:
        spec = bench.spec
        if spec.base_name in seen:
            continue
        seen.add(spec.base_name)
        state = missing.get(spec.base_name, "ok")
        lines.append("%-*s  /t%s  %s  %s" % (
            width, spec.base_name, args.threads, state, spec.description))
    return lines
