"""The machine's state while a value is measured: a fixed Python loop
timed before each value (and after, where the program's thread times it).

On a shared host the interpreter slows for phases of tens of ms to
seconds whatever it runs (a neighbour takes the caches or the core), and
the probe slows with it, so the report can take the phase out of each
process's mean as a covariate (gilbench.report.numbers.variance) instead
of calling it noise; docs/reading.rst ("Intervals") has the figures.

The loop is the interpreter's common work (a dict store, float
arithmetic, a loop step), short beside a value.  Each run records
``machine_probe_ns``, the geometric mean of its measured values' probes
in ns per iteration.

Worker side: Python 2.7 compatible.
"""
import math

from gilbench.model.casehelpers import perf_counter

ITERATIONS = 8000


def _loop(count):
    table = {}
    total = 0.5
    for step in range(count):
        table[step & 7] = total
        total = total * 0.5 + 1.0
    return total


def probe_ns():
    """ns per iteration of the probe's loop, timed now."""
    start = perf_counter()
    _loop(ITERATIONS)
    return (perf_counter() - start) * 1e9 / ITERATIONS


def typical(probes):
    """The geometric mean of ``probes`` (phases multiply times)."""
    return math.exp(sum(math.log(p) for p in probes) / len(probes))
