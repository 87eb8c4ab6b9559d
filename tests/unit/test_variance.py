"""The variance a run measured (gilbench.report.numbers.variance): block
shifts taken out and shared, each benchmark's spread moderated by its
family's, and the verdicts drawn from the intervals (above, below, the
same within the margin)."""
import math
import sys

import numpy
import pytest

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

from gilbench.model.resultformat import INTERPRETER  # noqa: E402
from gilbench.report.data.records import Record  # noqa: E402
from gilbench.report.numbers import intervals, variance  # noqa: E402


def record(name, means, blocks=None, values=2, family="syn", spread=0.002,
           interpreter="CPython 3.11"):
    """A measured Record whose process k has ``values`` values around
    ``means[k]`` (relative ``spread``), in ``blocks[k]``."""
    groups = tuple(tuple(m * (1 + spread * (2.0 * i / max(values - 1, 1)
                                            - 1))
                         for i in range(values)) for m in means)
    data = [v for g in groups for v in g]
    return Record(name, {"family": family, INTERPRETER: interpreter},
                  mean=float(numpy.mean(data)),
                  stdev=float(numpy.std(data, ddof=1)),
                  values=tuple(data), run_values=groups,
                  run_blocks=tuple(blocks or ()))


def fitted(records):
    variance._FITTED.clear()
    variance.fit(records)
    return intervals.Resampler()


def family(shifts, noise, count=12, seed=1, blocks=True):
    """``count`` benchmarks of one family, each with a process in every
    block whose log shift is ``shifts[k]``, plus its own normal noise of
    ``noise`` (relative) per process; benchmarks 2i and 2i + 1 measure
    the same level."""
    generator = numpy.random.default_rng(seed)
    names = ["b%02d" % i for i in range(count)]
    found = []
    for index, name in enumerate(names):
        level = 0.001 * (1 + index // 2)
        means = [level * math.exp(shift + generator.normal(0, noise))
                 for shift in shifts]
        found.append(record(name, means, ["t.%d" % (k + 1) for k in
                                          range(len(shifts))]
                            if blocks else None))
    return found


def test_a_shared_block_shift_cancels_in_a_ratio_and_stays_in_a_mean():
    # The machine ran 20% slower in the second block, for everyone.
    members = family([0.0, math.log(1.2)], noise=0.005)
    drawn = fitted(members)
    low, high = intervals.bounds(drawn.means(members[0])
                                 / drawn.means(members[2]))
    assert high / low < 1.05  # the shift is gone from the ratio
    alone_low, alone_high = intervals.bounds(drawn.means(members[0]))
    assert alone_high / alone_low > 1.2  # a mean alone carries it
    # Compared across runs (the cross-build answers), it draws the runs'
    # drift instead: its own spread alone, as narrow as a ratio's.
    own_low, own_high = intervals.bounds(drawn.means(members[0],
                                                     shifts=False))
    assert own_high / own_low < 1.05


def test_a_benchmark_that_waits_takes_no_shift_nor_its_familys_spread():
    """A batch of sleeps (its processes 0.5% of a core busy) is not
    slowed by the machine's slower block, which moves its CPU-bound
    family by 20%, nor does it vary as they do: it keeps its own steady
    spread instead of the family's shift and noise (the executor
    family's sleep batches read +-16% from the CPU-bound ones' before)."""
    from dataclasses import replace
    busy = family([0.0, math.log(1.2)], noise=0.05, count=10)
    sleeps = [replace(record("s%d" % i, [0.02 * (1 + i * 0.01),
                                         0.02 * (1 + i * 0.01) * 1.001],
                             ["t.1", "t.2"], values=6, spread=0.0005),
                      cpu_utilisation=0.005) for i in range(3)]
    drawn = fitted(busy + sleeps)
    low, high = intervals.bounds(drawn.means(sleeps[0]))
    assert high / low < 1.02
    low, high = intervals.bounds(drawn.means(sleeps[0])
                                 / drawn.means(sleeps[1]))
    assert high / low < 1.02 and low > 1 / 1.02
    # Read as CPU-bound, the same values take the block's shift.
    drawn = fitted(busy + [replace(r, cpu_utilisation=None)
                           for r in sleeps])
    low, high = intervals.bounds(drawn.means(sleeps[0]))
    assert high / low > 1.1


def test_without_blocks_the_shift_is_each_benchmarks_own_spread():
    members = family([0.0, math.log(1.2)], noise=0.005, blocks=False)
    drawn = fitted(members)
    low, high = intervals.bounds(drawn.means(members[0])
                                 / drawn.means(members[2]))
    assert high / low > 1.3


def test_a_family_lends_its_degrees_of_freedom_to_two_processes():
    dfs = []
    for seed in range(20):
        members = family([0.0, 0.01], noise=0.01, count=20, seed=seed)
        fitted(members)
        found = variance.spread_of(members[0])
        assert found.pooled
        dfs.append(found.df)
    # Not 1 (Student's t at 1 df is 12.7): the family's prior adds its
    # own, all of them where the variances agree as chance has them.
    assert min(dfs) > 1.9
    assert numpy.median(dfs) > 10
    alone = variance.own_spread(members[0].run_values)
    assert alone.df == 1


def test_a_benchmark_far_noisier_than_its_family_keeps_its_own():
    members = family([0.0, 0.0], noise=0.003, count=12)
    wild = record("wild", [0.01, 0.02], ["t.1", "t.2"])
    fitted(members + [wild])
    found = variance.spread_of(wild)
    assert not found.pooled
    assert found.variance > 10 * variance.spread_of(members[0]).variance


def test_the_prior_has_infinite_degrees_of_freedom_when_variances_agree():
    s0, d0, _ = variance.moderation_prior([0.01] * 10, [1] * 10)
    # Equal variances at 1 df each spread less than chance: all shared.
    assert math.isinf(d0) and s0 > 0


def test_one_process_draws_from_its_familys_prior():
    members = family([0.0, 0.0], noise=0.01, count=10)
    single = record("single", [0.005], ["t.1"], values=3)
    fitted(members + [single])
    found = variance.spread_of(single)
    assert found.pooled and found.df > 1


@pytest.mark.parametrize("seed", range(3))
def test_identical_benchmarks_are_rarely_told_apart(seed):
    """The null check in miniature: ratios of benchmarks that differ only
    by the model's noise are called different about 5% of the time, and
    "the same" when their interval fits within the margin."""
    generator = numpy.random.default_rng(100 + seed)
    different = same = 0
    trials = 60
    for trial in range(trials):
        shifts = generator.normal(0, 0.05, 2)
        members = family(list(shifts), noise=0.02, count=10,
                         seed=1000 * seed + trial)
        drawn = fitted(members)
        interval = intervals.bounds(drawn.means(members[1])
                                    / drawn.means(members[0]))
        significant, within = intervals.decided(interval)
        different += significant
        same += within is not None
    assert different <= 0.12 * trials
    assert same >= 0.5 * trials


def test_the_same_within_the_margin_is_a_verdict():
    assert intervals.decided((0.97, 1.04)) == (False, pytest.approx(0.04))
    assert intervals.decided((1.02, 1.05))[1] == pytest.approx(0.05)
    assert intervals.decided((1.02, 1.15)) == (True, None)
    assert intervals.decided((0.85, 1.05)) == (False, None)
    assert intervals.decided((0.97, 1.04), margin=0.03) == (False, None)
    assert intervals.same_within(None) is None


def test_the_same_is_two_one_sided_tests_at_the_level_of_a_difference():
    """A difference is tested at 5% (the 95% interval excludes 1), so
    each of the two one-sided tests is too: "the same" holds where the
    central 90% of the draws lie inside the margin, though the 95%
    interval a cell shows reaches past it.  The equivalence interval
    survives a pickle (the page's figure workers get cells so)."""
    import pickle
    log_margin = math.log1p(intervals.MARGIN)
    sd = log_margin / 1.8  # 1.645 sd inside the margin, 1.96 sd outside
    draws = numpy.exp(numpy.random.default_rng(7).normal(0.0, sd, 20000))
    interval = intervals.bounds(draws)
    assert interval[1] > 1.0 + intervals.MARGIN
    assert interval[0] < 1.0 / (1.0 + intervals.MARGIN)
    significant, same = intervals.decided(interval)
    assert significant is False
    assert same == pytest.approx(math.exp(1.645 * sd) - 1.0, rel=0.05)
    wider = intervals.bounds(draws ** 1.15)  # 90% reaches past the margin
    assert intervals.decided(wider) == (False, None)
    kept = pickle.loads(pickle.dumps(interval))
    assert kept == interval and kept.equivalence == interval.equivalence

def test_a_bounded_index_keeps_its_interval_within_its_bounds():
    """Jain's index over 2 threads lies in [0.5, 1]: two runs that
    disagree give a wide interval, never one past the bounds."""
    from gilbench.report.kinds.recorded import bounds_of, recorded_draws
    fair = Record("f", {"family": "lock", INTERPRETER: "CPython 3.13t",
                        "threads": 2}, mean=1e-3, values=(1e-3, 1e-3),
                  run_values=((1e-3,), (1e-3,)),
                  recorded_runs={"fairness": (0.62, 0.99)})
    spec = {"kind": "recorded", "key": "fairness", "unit": "",
            "bounds": ["1/threads", 1]}
    assert bounds_of(spec, fair) == (0.5, 1.0)
    low, high = intervals.bounds(recorded_draws(spec, fair))
    assert 0.5 <= low < 0.62 and 0.99 < high <= 1.0
    steady = Record("s", fair.dims, mean=1e-3, values=(1e-3,) * 4,
                    run_values=((1e-3,),) * 4,
                    recorded_runs={"fairness": (0.98, 0.99, 0.985, 0.99)})
    low, high = intervals.bounds(recorded_draws(spec, steady))
    assert 0.97 < low < 0.985 and high <= 1.0
    # Unbounded, the same two runs reach far past 1 (t at 1 df).
    plain = dict(spec)
    del plain["bounds"]
    assert intervals.bounds(recorded_draws(plain, fair))[1] > 1.5


def test_a_bounded_index_of_two_runs_borrows_its_peers_spread():
    """Two runs give a logit's spread one degree of freedom, and t at one
    reaches across the whole range; the family's other fairness cells at
    the same threads (limma's prior, as the means get) give it several,
    and the interval stays within its bounds."""
    from gilbench.report.data.lookup import Lookup
    from gilbench.report.kinds.recorded import recorded_draws
    spec = {"kind": "recorded", "key": "fairness", "unit": "",
            "bounds": ["1/threads", 1]}

    def fair(name, runs, threads=2):
        return Record(name, {"family": "lock", INTERPRETER: "CPython 3.13t",
                             "threads": threads, "kind": name},
                      mean=1e-3, values=(1e-3,) * len(runs),
                      run_values=((1e-3,),) * len(runs), concurrency=threads,
                      recorded_runs={"fairness": runs})
    this = fair("a", (0.96, 0.99))
    peers = [this, fair("b", (0.97, 0.995)), fair("c", (0.95, 0.985)),
             fair("d", (0.98, 0.99)), fair("e", (0.965, 0.99)),
             fair("one", (0.5, 0.9), threads=1)]  # not a peer: 1 thread
    alone = intervals.bounds(recorded_draws(spec, this))
    moderated = intervals.bounds(recorded_draws(spec, this, Lookup(peers)))
    assert 0.5 <= alone[0] < 0.8  # t at 1 df: most of [0.5, 1]
    assert 0.8 < moderated[0] < 0.96 and moderated[1] <= 1.0
    assert moderated[0] - alone[0] > 0.1


def duet_family(seed, duets=8, phase=0.1, noise=0.01, apart_noise=0.1,
                pairs=4, marked=True):
    """``pairs`` pairs of benchmarks of one family, pair i's second
    1.05x its first: two first-look processes each in family-wide blocks,
    where the machine's phases are each process's own (``apart_noise``),
    then ``duets`` duets per pair, whose values share their phase
    (``phase``) and keep their own ``noise``; ``marked``: their runs
    name their partner, as a duet's do."""
    generator = numpy.random.default_rng(seed)
    found = []
    for pair in range(pairs):
        level = 0.001 * (1 + pair)
        names = ["p%d.a" % pair, "p%d.b" % pair]
        phases = generator.normal(0, phase, duets)
        made = []
        for side, name in enumerate(names):
            true = level * (1.05 if side else 1.0)
            means = ([true * math.exp(generator.normal(0, apart_noise))
                      for _ in range(2)]
                     + [true * math.exp(shift + generator.normal(0, noise))
                        for shift in phases])
            blocks = (["t.1", "t.2"]
                      + ["d.%d.%d" % (pair, k) for k in range(duets)])
            made.append(record(name, means, blocks, values=3))
        for side, one in enumerate(made):
            partner = names[1 - side] if marked else None
            found.append(Record(
                one.name, one.dims, mean=one.mean, stdev=one.stdev,
                values=one.values, run_values=one.run_values,
                run_blocks=one.run_blocks,
                run_partners=(None, None) + (partner,) * duets))
    return found


def test_a_duets_ratio_draws_from_what_its_pairs_varied_by():
    """Partners measured in one worker process share the machine's phase
    value by value: their processes vary by what the pair's ratio did,
    not by what the machine did between blocks, and the ratio's interval
    is that narrow -- and holds the true ratio as often as it says."""
    widths, plain, held = [], [], 0
    trials = 80
    for seed in range(trials):
        members = duet_family(seed)
        drawn = fitted(members)
        low, high = intervals.bounds(drawn.means(members[1])
                                     / drawn.means(members[0]))
        widths.append(high / low)
        held += low <= 1.05 <= high
        unmarked = duet_family(seed, marked=False)
        drawn = fitted(unmarked)
        low, high = intervals.bounds(drawn.means(unmarked[1])
                                     / drawn.means(unmarked[0]))
        plain.append(high / low)
    # The pairs' ratio varies by 1.4% per duet, the first look's two
    # processes' by 14%: unmarked, one variance for all, ~4x as wide.
    assert numpy.median(numpy.log(widths)) < 0.5 * numpy.median(
        numpy.log(plain))
    assert 0.88 * trials <= held <= 0.995 * trials
    fitted(members)
    spread = variance.spread_of(members[0])
    assert spread.duets == (False, False) + (True,) * 8
    assert spread.duet_variance < spread.variance / 10
    # From two duets a class would have half a degree of freedom: they
    # stay with the benchmark's other processes.
    few = duet_family(0, duets=variance.MIN_DUETS - 1)
    fitted(few)
    assert variance.spread_of(few[0]).duets == ()


def test_a_files_shift_spread_is_moderated_by_its_familys_prior():
    """Two blocks give a file's shift spread one degree of freedom; a
    family with a prior (fitted on A/A runs) adds the prior's, and the
    variance is the two weighted by them."""
    members = family([0.0, 0.02], noise=0.005)
    variance._FITTED.clear()
    own = variance.fit(members, shift_priors={})
    sd, df = next(iter(own.values())).shift_sd, next(
        iter(own.values())).shift_df
    assert df == 1 and sd > 0
    variance._FITTED.clear()
    moderated = next(iter(variance.fit(
        members, shift_priors={"syn": (0.01, 6)}).values()))
    assert moderated.shift_df == 7
    assert moderated.shift_sd == pytest.approx(
        math.sqrt((6 * 0.01 ** 2 + sd ** 2) / 7))
    # ... and the mean read alone is narrower for it: t at 7, not at 1.
    wide = intervals.bounds(fitted(members).means(members[0]))
    variance._FITTED.clear()  # no prior for "syn" in SHIFT_PRIOR above
    variance.fit(members, shift_priors={"syn": (sd, 6)})
    narrow = intervals.bounds(intervals.Resampler().means(members[0]))
    assert narrow[1] / narrow[0] < wide[1] / wide[0]


@pytest.mark.parametrize("own, prior, kept", [
    ((0.02, 1), None, True),  # no prior: its own
    ((0.0, 0), (0.01, 6), True),  # no shift measured: nothing to moderate
    ((0.5, 1), (0.01, 6), True),  # far beyond the prior: this machine's
    ((0.02, 1), (0.01, 6), False),
])
def test_a_shift_keeps_its_own_spread_only_where_the_prior_cannot_speak(
        own, prior, kept):
    found = variance.moderated_shift(own, prior)
    if kept:
        assert found == own
    else:
        assert found[1] == own[1] + prior[1]
        assert prior[0] < found[0] < own[0]
