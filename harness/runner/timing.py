"""Where a run's wall time went: measured values vs everything else.

Everything else is process starts, imports, set-up, loop calibration and
warmups; the summary says how large that share is, since one pyperf
program per benchmark (for isolation) is not free.
"""
import pyperf


def measured_seconds(path):
    """(seconds inside measured values, seconds inside warmups) of a file.

    pyperf stores each value per loop: value x loops x inner_loops is the
    time the worker actually spent in it.
    """
    values = warmups = 0.0
    for bench in pyperf.BenchmarkSuite.load(path).get_benchmarks():
        for run in bench.get_runs():
            meta = run.get_metadata()
            scale = meta.get("loops", 1) * meta.get("inner_loops", 1)
            values += sum(run.values) * scale
            warmups += sum(loops * value * meta.get("inner_loops", 1)
                           for loops, value in run.warmups)
    return values, warmups


def summary(path, wall):
    values, warmups = measured_seconds(path)
    other = max(0.0, wall - values - warmups)
    return ("run took %.1f s: %.1f s (%.0f%%) in measured values, %.1f s "
            "(%.0f%%) in warmups and calibration, %.1f s (%.0f%%) outside "
            "them (process starts, imports, set-up)"
            % (wall, values, 100 * values / wall, warmups,
               100 * warmups / wall, other, 100 * other / wall))
