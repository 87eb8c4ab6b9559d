"""The machine's state while a value is measured: a fixed Python loop
timed right before and right after each value.

On a shared host (this project's 2-vCPU VM, any cloud CI runner) the
interpreter runs about 1.5x slower for phases of tens of ms to seconds,
whatever it runs: a neighbour takes the caches or the core.  Values
within one worker process agree; processes a second apart do not.  The
probe sees the same phases: over worker processes its time follows the
benchmark's (correlation 0.91-0.95 on three pyops statements), so the
report can take the phase out of each process's mean as a covariate
(gilbench.report.numbers.variance) instead of calling it noise.

The loop is the interpreter's common work (a dict store, float
arithmetic, a loop step) and lasts about half a millisecond on CPython:
next to a 25 ms value it costs 4% of the measuring time.  Each run
records ``machine_probe_ns``, the geometric mean of its measured values'
probes in ns per iteration.

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
