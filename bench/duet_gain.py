"""What measuring two partners in one worker process, value by value,
would buy over blocks of one process each (issue #64's next lever).

Usage: python bench/duet_gain.py [--blocks 16] [--values 4]
           [--min-time 0.01] [--module MODULE] A B [A B ...]

A and B: ``case`` or ``case:{"axis": value}`` (``gilbench list`` names
the cases), the two benchmarks an answer divides.  Each block runs, in a
fresh random order, three fresh interpreters (this one): A alone, B
alone -- a run's blocks today -- and a *duet*, which sets up both and
alternates their values (A, B, B, A, ...), each of ``--values`` values
at loops calibrated to ``--min-time``.  The machine on this VM changes
speed in phases of tens of ms to seconds (docs/reading.rst,
"Intervals"): partners whose values lie milliseconds apart share the
phase, processes a block apart do not.

Prints, per pair, the log ratio A/B's standard deviation over blocks:
apart (the two lone processes' means) and in the duet (its values'), and
their ratio squared -- how many times fewer processes a duet needs for
the same interval.  Run it with the interpreter measured (it needs
gilbench's worker side; Python 3).
"""
from __future__ import print_function

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys


def parse_benchmark(text):
    case, _, params = text.partition(":")
    return case, json.loads(params) if params else {}


def set_up(modules, case, params):
    from gilbench.measure import timers
    from gilbench.model import registry
    spec, declared = registry.find_spec(modules, case)
    params = registry.decode_params(spec, json.dumps(params))
    bench = registry.Benchmark(spec, params, declared)
    prepared = spec.prepare(dict(bench.params))
    return timers.make_timer(bench, prepared, None, registry.Respawn(
        modules, spec.base_name, list(bench.params.items())))


def calibrated(timer, min_time):
    loops = 1
    while timer(loops)[0] < min_time and loops < 2 ** 30:
        loops *= 2
    return loops


def child(args):
    """Measure ``args.benchmarks`` (one: alone; two: a duet) and print
    their values, a JSON list per benchmark."""
    timers = [set_up(args.module, *parse_benchmark(b))
              for b in args.benchmarks]
    loops = [calibrated(t, args.min_time) for t in timers]
    values = [[] for _ in timers]
    order = list(range(len(timers)))
    for _ in range(args.values + 1):  # the first is a warmup
        for index in order:
            values[index].append(timers[index](loops[index])[0]
                                 / loops[index])
        order.reverse()  # A B B A: neither always goes first
    for timer in timers:
        timer.close()
    print(json.dumps([v[1:] for v in values]))
    sys.stdout.flush()
    os._exit(0)  # a case's threads must not keep this process


def measure(args, benchmarks):
    command = [sys.executable, os.path.abspath(__file__), "--child",
               "--values", str(args.values), "--min-time",
               str(args.min_time)]
    for module in args.module or ():
        command += ["--module", module]
    out = subprocess.check_output(command + list(benchmarks))
    return json.loads(out.decode().strip().splitlines()[-1])


def log_mean(values):
    return statistics.mean(math.log(v) for v in values)


def pair(args, a, b):
    apart, duet = [], []
    for _ in range(args.blocks):
        found = {}
        for kind in random.sample(["a", "b", "duet"], 3):
            found[kind] = measure(args, {"a": [a], "b": [b],
                                         "duet": [a, b]}[kind])
        apart.append(log_mean(found["a"][0]) - log_mean(found["b"][0]))
        duet.append(log_mean(found["duet"][0]) - log_mean(found["duet"][1]))
    sd_apart, sd_duet = statistics.stdev(apart), statistics.stdev(duet)
    print("%s / %s: log ratio sd over %d blocks: apart %.3f, duet %.3f; "
          "ratio apart %.3f, duet %.3f; processes a duet saves: %.1fx"
          % (a, b, args.blocks, sd_apart, sd_duet,
             math.exp(statistics.mean(apart)),
             math.exp(statistics.mean(duet)),
             (sd_apart / sd_duet) ** 2 if sd_duet else float("inf")))
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benchmarks", nargs="+")
    parser.add_argument("--blocks", type=int, default=16)
    parser.add_argument("--values", type=int, default=4)
    parser.add_argument("--min-time", type=float, default=0.01)
    parser.add_argument("--module", action="append")
    parser.add_argument("--child", action="store_true",
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)
    if len(args.benchmarks) % 2:
        parser.error("benchmarks come in pairs: A B [A B ...]")
    for a, b in zip(args.benchmarks[::2], args.benchmarks[1::2]):
        pair(args, a, b)
    return 0


if __name__ == "__main__":
    sys.exit(main())
