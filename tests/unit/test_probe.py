"""The machine probe (gilbench.measure.probe) and how the report takes it
out of each process's mean (gilbench.report.numbers.variance)."""
import math
import sys

import numpy
import pytest

from gilbench.measure import probe

needs_report = pytest.mark.skipif(sys.version_info < (3, 9),
                                  reason="the report side needs 3.9")


def test_the_probe_times_its_loop_in_ns_per_iteration():
    found = [probe.probe_ns() for _ in range(5)]
    assert all(0.1 < ns < 10000 for ns in found)
    assert probe.typical([10.0, 40.0]) == pytest.approx(20.0)


def records(slope, seed=3, count=10, processes=4, noise=0.01,
            concurrency=1):
    """``count`` benchmarks whose processes ran at machine states
    (log probes) drawn per process; each one's log mean follows the state
    by ``slope`` plus its own ``noise``."""
    from gilbench.model.resultformat import INTERPRETER
    from gilbench.report.data.records import Record
    generator = numpy.random.default_rng(seed)
    found = []
    for index in range(count):
        states = generator.choice([0.0, 0.4], size=processes)
        probes = tuple(20e-9 * math.exp(s) for s in states)
        means = [1e-6 * (1 + index) * math.exp(slope * s + generator.normal(
            0, noise)) for s in states]
        groups = tuple((m, m) for m in means)
        data = [v for g in groups for v in g]
        found.append(Record(
            "b%d" % index, {"family": "syn", INTERPRETER: "CPython 3.11"},
            mean=float(numpy.mean(data)), values=tuple(data),
            run_values=groups, run_probes=tuple(p * 1e9 for p in probes),
            concurrency=concurrency))
    return found


@needs_report
def test_a_slow_phase_the_probe_saw_comes_out_of_the_spread():
    from gilbench.report.numbers import variance
    variance._FITTED.clear()
    slowed = records(slope=0.9)
    variance.fit(slowed)
    with_probe = variance.spread_of(slowed[0])
    slope, se = variance.common_slope(
        [variance.process_means(r.run_values, True) for r in slowed],
        [variance.probe_logs(r, 4) for r in slowed])
    assert slope == pytest.approx(0.9, abs=0.05)
    assert 0 < se < 0.05
    variance._FITTED.clear()
    blind = [r.__class__(**dict(r.__dict__, run_probes=())) for r in slowed]
    variance.fit(blind)
    without = variance.spread_of(blind[0])
    # The phases (0.4 in log, a third of the processes' spread) are gone:
    # what is left is the benchmarks' own 1% noise.
    assert with_probe.variance < without.variance / 20
    assert math.sqrt(with_probe.variance) < 0.03


@needs_report
def test_a_mean_moves_to_the_familys_median_state():
    from gilbench.report.numbers import variance
    variance._FITTED.clear()
    slowed = records(slope=1.0, noise=0.0, seed=6)  # most slowed
    variance.fit(slowed)
    median = float(numpy.median(numpy.concatenate(
        [variance.probe_logs(r, 4) for r in slowed])))
    fastest = math.log(20.0)
    assert median > fastest + 0.1  # the family's processes, half slowed
    for record in slowed:
        moved = variance.at_median_state(record)
        # Noise-free, every process at the median state reads its level
        # there, whichever state it was measured in.
        level = 1e-6 * (1 + int(record.name[1:]))
        expected = level * math.exp(median - fastest)
        assert moved.mean == pytest.approx(expected, rel=0.02)


@needs_report
def test_probes_that_do_not_follow_leave_the_means_as_measured():
    from gilbench.report.numbers import variance
    variance._FITTED.clear()
    flat = records(slope=0.0, noise=0.02)
    variance.fit(flat)
    slope, _ = variance.common_slope(
        [variance.process_means(r.run_values, True) for r in flat],
        [variance.probe_logs(r, 4) for r in flat])
    assert slope < 0.1
    # A benchmark cannot speed up as the machine slows: never below 0.
    faster = records(slope=-0.8)
    assert variance.common_slope(
        [variance.process_means(r.run_values, True) for r in faster],
        [variance.probe_logs(r, 4) for r in faster])[0] == 0.0
    # Without probes nothing moves.
    assert variance.common_slope([numpy.zeros(3)], [numpy.full(3, numpy.nan)]
                                 ) is None


@needs_report
def test_the_slopes_error_widens_a_mean_measured_far_from_the_median_state():
    from dataclasses import replace

    from gilbench.report.numbers import intervals, variance
    variance._FITTED.clear()
    slowed = records(slope=0.9, noise=0.05, count=12, processes=3)
    variance.fit(slowed)
    record = max(slowed, key=lambda r: abs(variance.spread_of(r).lever))
    key = variance.identity(record)
    found = variance._FITTED[key]
    assert abs(found.lever) > 0.1 and found.slope_se > 0
    wide = numpy.std(numpy.log(intervals.Resampler().means(record)))
    variance._FITTED[key] = replace(found, slope_se=0.0)
    narrow = numpy.std(numpy.log(intervals.Resampler().means(record)))
    assert wide > narrow


@needs_report
def test_a_family_of_few_processes_keeps_its_means_as_measured():
    from gilbench.report.numbers import variance
    few = records(slope=0.9, count=2, processes=4)  # a timeit's t1 and t2
    assert variance.common_slope(
        [variance.process_means(r.run_values, True) for r in few],
        [variance.probe_logs(r, 4) for r in few]) is None
    variance._FITTED.clear()
    variance.fit(few)
    assert all(variance.spread_of(r).adjustment == 0.0 for r in few)
