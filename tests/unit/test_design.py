"""The run's design (gilbench.model.design): the fixed recipe and the
adaptive first look, the budget, and how many more worker processes and
values a benchmark's variance components ask for (Kalibera and Jones)."""
import math
import random
from types import SimpleNamespace

import pytest

from gilbench.errors import UsageError
from gilbench.model import design as designs
from gilbench.model.registry import CaseSpec


def _bench(sizing=(), axes=()):
    spec = CaseSpec("fam", "case", "v", "python", lambda params: None,
                    "a case", axes=list(axes), sizing=list(sizing))
    return SimpleNamespace(spec=spec, params={"threads": 1}, name="b")


def _groups(means, per_process=3, scatter=0.001, seed=1):
    """Values per worker process around each of ``means``."""
    rng = random.Random(seed)
    return [[mean * math.exp(rng.gauss(0.0, scatter))
             for _ in range(per_process)] for mean in means]


def test_the_fixed_recipe_is_the_users_then_quick_then_the_cases():
    bench = _bench(["-n", "6"])
    assert designs.Design(designs.FIXED).first(bench).options == ["-n", "6"]
    quick = designs.Design(designs.FIXED, quick=True).first(bench)
    assert quick.options == designs.QUICK_PYPERF
    told = designs.Design(designs.FIXED, quick=True,
                          sizing=["-p", "5"]).first(bench)
    assert (told.processes, told.values) == (5, designs.DEFAULT_VALUES)
    assert not told.scaled
    # An earlier run's loops skip the calibration; the user's win.
    assert designs.Design(designs.FIXED).first(bench, 64).loops == 64
    assert designs.Design(designs.FIXED, sizing=["-l", "8"]).first(
        bench, 64).loops == 8


def test_the_first_look_keeps_the_cases_value_length_not_its_repetitions():
    first = designs.Design().first(_bench(["-n", "6", "--loops", "40"]))
    assert first.scaled
    assert (first.processes, first.values, first.warmups) == (
        designs.FIRST_PROCESSES, designs.FIRST_VALUES,
        designs.first_warmups())
    assert first.loops == 40
    short = designs.Design().first(_bench(["--min-time", "0.01"]))
    assert short.min_time == 0.01 and short.values == designs.FIRST_VALUES
    # The user's sizing is the first look; --rigorous sizes the budget.
    told = designs.Design(sizing=["-p", "1", "-n", "1", "--rigorous"]).first(
        _bench(["--loops", "40"]))
    assert (told.processes, told.values) == (1, 1)
    assert "--rigorous" not in told.options


def test_a_jit_gets_a_warmup_in_its_first_look_and_cpython_none():
    assert designs.first_warmups("PyPy") == 1
    assert designs.first_warmups("CPython") == 0


def test_concurrent_work_gets_a_warmup_in_its_first_look():
    # Its first values wait for the scheduler to spread its threads.
    assert designs.first_warmups("CPython", concurrency=2) == 1
    assert designs.first_warmups("PyPy", concurrency=4) == 1
    one, two = [designs.Design().first(SimpleNamespace(
        spec=_bench().spec, params={"threads": n}, name="b"))
        for n in (1, 2)]
    assert (one.warmups, two.warmups) == (0, 1)


def test_the_first_look_costs_less_than_the_recipe():
    bench = _bench()
    first = designs.Design().first(bench)
    recipe = designs.Design().recipe(bench)
    assert first.seconds() < 0.5 * recipe.seconds()


def test_the_budget_is_half_the_full_recipe_unless_told():
    benches = [_bench() for _ in range(10)]
    recipe = designs.Design().recipe(benches[0]).seconds()
    assert designs.Design().budget(benches) == pytest.approx(5 * recipe)
    # --quick's budget is the full recipe's for its (fewer) benchmarks.
    assert designs.Design(quick=True).budget(benches[:4]) == pytest.approx(
        2 * recipe)
    rigorous = designs.Design(sizing=["--rigorous"]).budget(benches)
    assert rigorous > 1.8 * designs.Design().budget(benches)
    assert designs.Design(budget=7.5).budget(benches) == 7.5


def _first_runs(per_loop, loops=200, besides=0.01, processes=2, values=2,
                warmups=0):
    """A first look's pyperf runs: ``per_loop`` seconds per loop,
    ``warmups`` values as warmups first, and ``besides`` seconds of each
    process's duration beyond its values and warmups."""
    import pyperf
    return [pyperf.Run([per_loop] * values,
                       warmups=[(loops, per_loop)] * warmups, metadata={
                           "loops": loops, "duration": besides + (
                               warmups + values) * per_loop * loops},
                       collect_metadata=False) for _ in range(processes)]


def test_the_recipe_is_priced_at_the_loops_pyperfs_doubling_reaches():
    runs = _first_runs(1e-4)  # 20 ms values of 200 loops
    durations = 2 * (0.01 + 2 * 0.02)
    value = 512 * 1e-4  # the first power of two past 40 ms
    # The look's 0.3 s outside its processes' durations, the recipe's
    # calibration, and 2 processes of 1 warmup and 3 values.
    assert designs.recipe_seconds(designs.Sizing(()), runs,
                                  durations + 0.3) == \
        pytest.approx(0.3 + 2 * value + 2 * (0.01 + 4 * value))
    # A case's own loops are not calibrated.
    assert designs.recipe_seconds(designs.Sizing(["--loops", "4"]), runs,
                                  durations + 0.3) == \
        pytest.approx(0.3 + 2 * (0.01 + 4 * 4e-4))


def test_a_first_looks_stalls_are_priced_into_every_recipe_value():
    import pyperf
    steady = _first_runs(1e-4)  # 20 ms values of 200 loops
    stalled = _first_runs(1e-4)
    # One value of the look stalled for 1.98 s: 2 s where 20 ms were asked.
    stalled[1] = pyperf.Run([1e-4, 1e-2], metadata={
        "loops": 200, "duration": 0.01 + 0.02 + 2.0},
        collect_metadata=False)
    seconds = [sum(run.get_metadata()["duration"] for run in runs) + 0.3
               for runs in (steady, stalled)]
    recipe = designs.Sizing(())
    stall = (3 * 0.02 + 2.0) / 4 - 0.02  # the values' mean over the fastest
    # The loops still come from the fastest value (the same 512 as
    # without the stall); each of the recipe's 2 x (1 + 3) values gains
    # the look's stall, and its set-up does not.
    assert designs.recipe_seconds(recipe, stalled, seconds[1]) == \
        pytest.approx(designs.recipe_seconds(recipe, steady, seconds[0])
                      + 2 * 4 * stall)


def test_a_first_looks_warmup_is_not_priced_as_the_recipes_set_up():
    cold, warmed = _first_runs(1e-4), _first_runs(1e-4, warmups=1)
    durations = [sum(run.get_metadata()["duration"] for run in runs)
                 for runs in (cold, warmed)]
    assert durations[1] > durations[0]
    assert designs.recipe_seconds(designs.Sizing(()), warmed,
                                  durations[1] + 0.3) == pytest.approx(
        designs.recipe_seconds(designs.Sizing(()), cold, durations[0] + 0.3))


def test_first_looks_that_price_the_recipe_lower_shrink_the_budget():
    benches = [_bench() for _ in range(10)]
    for number, bench in enumerate(benches):
        bench.name = "b%d" % number
    design = designs.Design()
    budget = design.budget(benches)
    cheap = dict((b.name, (_first_runs(1e-6), 0.2)) for b in benches)
    priced = sum(designs.recipe_seconds(design.recipe(b), *cheap[b.name])
                 for b in benches)
    assert 0.5 * priced < 0.95 * budget
    assert design.calibrated_budget(benches, cheap) == \
        pytest.approx(0.5 * priced)
    # Never more than the plan's (PyPy's first looks run slower).
    dear = dict((b.name, (_first_runs(1e-3, besides=2.0), 9.0))
                for b in benches)
    assert design.calibrated_budget(benches, dear) == budget
    # A benchmark without a first look is priced by the plan's model.
    del cheap["b0"]
    assert design.calibrated_budget(benches, cheap) == pytest.approx(
        0.5 * (priced * 9 / 10 + design.recipe(benches[0]).seconds()))
    assert designs.Design(budget=7.5).calibrated_budget(
        benches, dear) == 7.5  # a told budget is the user's


@pytest.mark.parametrize("kind, budget", [
    ("sometimes", None), (designs.ADAPTIVE, 0), (designs.ADAPTIVE, -1),
    (designs.ADAPTIVE, float("nan"))])
def test_a_bad_design_or_budget_is_refused(kind, budget):
    with pytest.raises(UsageError):
        designs.Design(kind, budget=budget)


def test_sizing_options_are_split_from_the_rest():
    sizing, rest = designs.split_options(
        ["-p", "3", "--affinity", "0", "--min-time=0.1", "--rigorous", "-v",
         "-n", "4"])
    assert sizing == ["-p", "3", "--min-time=0.1", "--rigorous", "-n", "4"]
    assert rest == ["--affinity", "0", "-v"]


def test_processes_that_agree_are_narrow_and_two_modes_are_not():
    assert designs.narrow(_groups([100.0, 100.5]))
    assert not designs.narrow(_groups([225.0, 444.0]))
    assert not designs.narrow(_groups([100.0]))  # one process tells nothing
    # Values that scatter widely are wide however the means fall.
    assert not designs.narrow(_groups([100.0, 100.0], scatter=0.3))


def test_a_spread_from_few_processes_counts_as_students_t_asks():
    stats = pytest.importorskip("scipy.stats")
    assert designs.few_processes_factor(1) == 1.0
    for processes in (2, 3, 4, 8, 16):
        wanted = (stats.t.ppf(0.975, processes - 1)
                  / stats.norm.ppf(0.975)) ** 2
        assert designs.few_processes_factor(processes) == pytest.approx(
            wanted, rel=0.01)
    # Two processes 2% apart are not narrow; eight with that spread are.
    assert not designs.narrow(_groups([100.0, 102.0]))
    assert designs.narrow(_groups([100.0, 102.0] * 4))


def test_the_report_widens_few_processes_as_students_t_asks():
    numpy = pytest.importorskip("numpy")
    stats = pytest.importorskip("scipy.stats")
    from gilbench.report.numbers import intervals, variance

    def width(groups):
        spread = variance.own_spread(groups)
        drawn = intervals._drawn_means(numpy.random.default_rng(0), 100.0,
                                       spread)
        low, high = intervals.bounds(drawn)
        return numpy.log(high / low), spread
    (two, two_spread), (eight, eight_spread) = (
        width(_groups([100.0, 104.0])), width(_groups([100.0, 104.0] * 4)))
    assert (two_spread.df, eight_spread.df) == (1, 7)
    # A benchmark alone (no family to pool with): t(1) against t(7).
    assert two / eight == pytest.approx(
        stats.t.ppf(0.975, 1) / stats.t.ppf(0.975, 7) * numpy.sqrt(
            two_spread.mean_variance / eight_spread.mean_variance),
        rel=0.2)


def test_the_variance_components_are_kalibera_and_jones():
    numpy = pytest.importorskip("numpy")
    groups = _groups([100.0, 120.0, 90.0, 110.0], per_process=4,
                     scatter=0.05)
    within, between = designs.components(groups)
    logs = numpy.log(numpy.array(groups))
    s1 = numpy.mean(numpy.var(logs, axis=1, ddof=1))
    s2 = numpy.var(logs.mean(axis=1), ddof=1)
    assert within == pytest.approx(s1)
    assert between == pytest.approx(s2 - s1 / 4)


def test_the_report_and_the_design_read_one_spread():
    numpy = pytest.importorskip("numpy")
    from gilbench.report.numbers import intervals
    for seed in range(5):
        groups = _groups([100.0, 103.0, 97.0], scatter=0.02, seed=seed)
        logs = [numpy.log(numpy.array(g)) for g in groups]
        assert designs.between_processes(designs.logged(groups)) == \
            pytest.approx(intervals.between_processes(tuple(logs)))


def test_where_processes_disagree_more_processes_of_few_values():
    two_modes = _groups([225.0, 444.0, 230.0, 440.0])
    added, values = designs.next_round(two_modes, (0.02, 0.05), 4)
    assert values == 1
    assert added == 4  # at most as many again: the spread is re-read
    # Where processes agree beyond their values' scatter, values are
    # cheaper: the most of them, and two more processes -- once enough
    # processes agree; two that do may be chance (each is a block, a
    # program of its own): no more values than a first look's.
    scattered = [[100.0, 130.0, 80.0], [95.0, 120.0, 110.0]]
    assert designs.next_round(scattered, (0.02, 0.5), 2) == (
        2, designs.FIRST_VALUES)
    assert designs.next_round(scattered * 2, (0.02, 0.5), 4) == (
        4, designs.MOST_VALUES)


def test_the_optimal_values_follow_the_costs():
    assert designs.optimal_values(0.01, 0.01, (0.02, 0.02)) == 1
    assert designs.optimal_values(0.01, 0.01, (0.02, 0.5)) == 5
    assert designs.optimal_values(0.01, 0.0, (0.02, 0.5)) == \
        designs.MOST_VALUES
    assert designs.optimal_values(None, 0.01, (0.02, 0.5)) == 1


def test_more_is_asked_for_a_wide_benchmark_or_a_finding_only():
    design = designs.Design()
    agree = _groups([100.0, 100.2])
    assert design.more(agree, (0.02, 0.05), False, 2) is None
    assert design.more(agree, (0.02, 0.05), True, 2) is not None
    assert design.more(_groups([100.0, 150.0]), (0.02, 0.05), False, 2)
    many = _groups([100.0, 150.0] * (designs.MOST_PROCESSES // 2))
    assert design.more(many, (0.02, 0.05), True,
                       designs.MOST_PROCESSES) is None


def test_costs_read_a_value_and_what_else_a_process_spent():
    run = SimpleNamespace(values=[0.001, 0.001],
                          get_metadata=lambda: {"loops": 20,
                                                "duration": 0.1})
    per_value, per_process = designs.costs([run])
    assert per_value == pytest.approx(0.02)
    assert per_process == pytest.approx(designs.PROCESS_SECONDS + 0.06)


def test_the_calibration_forks_run_adds_no_set_up_to_a_process():
    # Its set-up came before it, in the calibration; a fork's is in its
    # duration.
    runs = [SimpleNamespace(values=[0.001], get_metadata=lambda start=start: {
        "loops": 20, "duration": duration, "worker_start": start})
        for start, duration in (("calibration fork", 0.03), ("fork", 0.1))]
    per_value, per_process = designs.costs(runs)
    assert per_value == pytest.approx(0.02)
    assert per_process == pytest.approx(designs.PROCESS_SECONDS + 0.08)


def test_more_processes_repeat_the_loops_and_warmups():
    sizing = designs.repeat(loops=128, warmups=1, processes=3, values=2)
    assert (sizing.processes, sizing.values, sizing.warmups,
            sizing.loops) == (3, 2, 1, 128)


def test_the_users_loops_by_either_name_are_kept():
    for told in (["-l", "8"], ["--loops=8"]):
        first = designs.Design(sizing=["-p", "1"] + told).first(
            _bench(["--loops", "40"]))
        assert first.loops == 8


def test_more_looks_keep_the_first_looks_seconds_for_its_pricing():
    from gilbench.runner import stores
    state = {"seconds": 1.5}  # the first look's entry
    for _ in range(3):
        state = stores._looked(state, decided_by=False, seconds=2.0)
    assert state["seconds"] == pytest.approx(7.5)
    assert stores.first_seconds(state) == pytest.approx(1.5)
