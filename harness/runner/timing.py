"""Where a run's wall time went: measured values vs everything else.

Everything else is process starts, imports, set-up, loop calibration and
warmups; the summary says how large that share is, since one pyperf
program per benchmark (for isolation) is not free.
"""
import pyperf

from gilbench.model import resultformat


def measured_seconds(path):
    """(seconds inside measured values, seconds inside warmups) of a file.

    pyperf stores each value per loop (gilbench.model.resultformat's
    value_seconds and warmup_seconds scale them back).
    """
    values = warmups = 0.0
    for bench in pyperf.BenchmarkSuite.load(path).get_benchmarks():
        for run in bench.get_runs():
            values += sum(resultformat.value_seconds(run))
            warmups += resultformat.warmup_seconds(run)
    return values, warmups


def summary(path, wall):
    values, warmups = measured_seconds(path)
    other = max(0.0, wall - values - warmups)
    return ("run took %.1f s: %.1f s (%.0f%%) in measured values, %.1f s "
            "(%.0f%%) in warmups and calibration, %.1f s (%.0f%%) outside "
            "them (process starts, imports, set-up)"
            % (wall, values, 100 * values / wall, warmups,
               100 * warmups / wall, other, 100 * other / wall))
