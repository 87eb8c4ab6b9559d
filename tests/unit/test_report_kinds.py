"""Report side (Python >= 3.9): each cell kind of gilbench.model.tables against
hand-computed values, on small synthetic families."""
import math
import sys

import pytest
from helpers import dims, plain, values_with_rsd, write_result

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

from gilbench.model.tables import (  # noqa: E402
    crossover,
    ratio,
    recorded,
    speedup,
    table,
    throughput,
    value,
)
from gilbench.report import kinds
from gilbench.report.data import loader
from gilbench.report.numbers import cells
from gilbench.report.tables import pivot

THREADS = {"name": "threads", "unit": "threads", "log": False}
WORK = {"name": "work_ns", "unit": "ns", "log": True}


def declared(tmp_path, declaration, benchmarks, missing=(), axes=None,
             **kwargs):
    """The tables ``declaration`` gives for one CPython 3.11 file."""
    write_result(tmp_path, "py311.json", "3.11.7", benchmarks,
                 missing=missing, axes=axes, tables=[declaration], **kwargs)
    return pivot.all_tables(loader.load_results([str(tmp_path)]))[:-4]


def grid(table):
    return [[plain(c.display) for c in row] for row in table.rows]


# -- value and throughput -----------------------------------------------------

def spin(threads, **more):
    return dims("syn", "spin", "v", "python", threads=threads, **more)


def test_value_cell_per_loop_and_per_op(tmp_path):
    benchmarks = [(spin(1), [2e-6, 2e-6]), (spin(4), [8e-6, 8e-6])]
    (per_loop,) = declared(tmp_path / "a", table("t", rows="threads",
                                                 cell=value()), benchmarks)
    (per_op,) = declared(tmp_path / "b", table(
        "t", rows="threads", cell=value(per_op=True)), benchmarks)
    assert grid(per_loop) == [["1", "2.00us"], ["4", "8.00us ^"]]
    # ops_per_loop defaults to the thread count: 8us / 4 = 2us per call.
    assert grid(per_op) == [["1", "2.00us"], ["4", "2.00us ^"]]
    assert per_op.rows[1][1].value == pytest.approx(2e-6)
    assert per_loop.note == "Mean time per loop."
    assert "ops_per_loop" in per_op.note


def test_value_cell_spread_and_declared_note(tmp_path):
    (t,) = declared(tmp_path, table("t", rows="threads", cell=value(),
                                    note="Lower is better."),
                    [(spin(1), values_with_rsd(1e-6, 0.1))])
    cell = t.rows[0][1]
    assert plain(cell.display) == "1.00us ~"
    assert cell.spread == pytest.approx(1e-7)
    assert t.note == "Mean time per loop. Lower is better."


def test_throughput_cell(tmp_path):
    benchmarks = [(spin(1), [1e-6, 1e-6], {"ops_per_loop": 1}),
                  (spin(2), [2e-6, 2e-6], {"ops_per_loop": 4000}),
                  (spin(3), [0.81, 0.81], {"ops_per_loop": 1000})]
    (t,) = declared(tmp_path, table("ids", rows="threads",
                                    cell=throughput("ids")), benchmarks,
                    cpus_usable=4)
    # 1/1us = 1e6; 4000/2us = 2e9; 1000/0.81s = 1234.6
    assert grid(t) == [["1", "1.00M ids/s"], ["2", "2.00G ids/s"],
                       ["3", "1.23k ids/s"]]
    assert t.rows[2][1].value == pytest.approx(1000 / 0.81)
    assert t.note.startswith("ids per second")


def test_recorded_cell_shows_run_metadata_or_says_not_recorded(tmp_path):
    benchmarks = [(spin(1), [1e-6, 1e-6]), (spin(2), [2e-6, 2e-6])]
    (shown,) = declared(tmp_path / "a", table(
        "w", rows="threads", cell=recorded("widgets", "widgets")),
        benchmarks, extra={"widgets": 1500})
    assert grid(shown) == [["1", "1.50k widgets"], ["2", "1.50k widgets"]]
    assert shown.rows[0][1].value == 1500
    assert shown.note.startswith("widgets, as the case recorded it")
    (absent,) = declared(tmp_path / "b", table(
        "w", rows="threads", cell=recorded("gadgets")), benchmarks)
    assert grid(absent) == [["1", "n/a: not recorded"],
                            ["2", "n/a: not recorded"]]


@pytest.mark.parametrize("number, text", [
    (0.5, "0.500"), (12.34, "12.3"), (999.4, "999"), (999.6, "1.00k"),
    (1234.5, "1.23k"), (2e6, "2.00M"), (3.456e9, "3.46G"), (1e12, "1000G"),
])
def test_si(number, text):
    assert cells.si(number) == text


@pytest.mark.parametrize("number, text", [
    (830.4, "830"), (464.158, "464"), (80.0, "80.0"), (12.34, "12.3"),
    (0.01234, "0.0123"), (1234.5, "1230"), (1.0, "1.00"), (0.0, "0"),
])
def test_significant(number, text):
    assert cells.significant(number) == text


@pytest.mark.parametrize("number, text", [
    (0.01234, "0.0123"), (0.00987, "0.0099"), (0.000578, "0.00058"),
    (0.0001, "0.00010"), (0.0000578, "<0.0001"), (0.0, "0"),
    (0.0123, "0.0123"), (13.7, "13.7"), (2080.0, "2080"),
])
def test_compact(number, text):
    assert cells.compact(number) == text


@pytest.mark.parametrize("number, text", [
    (0.00576, "0.0058x"), (0.001, "0.0010x"), (0.00041, "<0.001x"),
    (0.0128, "0.0128x"), (13.704, "13.70x"), (1.0, "1.00x"),
    (158.2, "158x"),
])
def test_compact_multiple(number, text):
    assert cells.compact_multiple(number) == text


def test_no_compact_form_is_wider_than_seven_characters():
    for exponent in range(-12, 4):
        for mantissa in (1.0, 1.234, 4.56, 9.996):
            number = mantissa * 10 ** exponent
            assert len(cells.compact(number)) <= 7, number
            assert len(cells.compact_multiple(number)) <= 7, number


# -- speedup ------------------------------------------------------------------

def method(name):
    return dims("exe", "pool", "warm", "python", method=name)


def test_speedup_against_a_named_baseline_row(tmp_path):
    decl = table("speedup vs serial", rows="method",
                 cell=speedup(over="method", baseline="serial"))
    (t,) = declared(tmp_path, decl, [(method("serial"), [1.0, 1.0]),
                                     (method("threads"), [0.25, 0.25]),
                                     (method("processes"), [0.4, 0.4])])
    assert [c.text for c in t.header] == ["method", "CPython 3.11"]
    assert grid(t) == [["serial", "1.00x (1.00s -> 1.00s)"],
                       ["threads", "4.00x (1.00s -> 250ms)"],
                       ["processes", "2.50x (1.00s -> 400ms)"]]
    assert t.rows[2][1].value == pytest.approx(2.5)
    assert t.note.startswith("Speedup: the method=serial time / this time; "
                             "in parentheses the method=serial time -> this "
                             "time. [low-high]: its 95% confidence interval")


def test_scaled_speedup_over_threads(tmp_path):
    decl = table("scaling", rows="threads",
                 cell=speedup(over="threads", baseline=1, scaled=True))
    (t,) = declared(tmp_path, decl, [
        (spin(1), [10e-9, 10e-9]), (spin(2), [12e-9, 12e-9]),
        (spin(4), values_with_rsd(20e-9, 0.06))], cpus_usable=4)
    # 10/12 x 2 = 1.667; 10/20 x 4 = 2.00
    assert grid(t) == [["1", "1.00x (10.0ns -> 10.0ns)"],
                       ["2", "1.67x (10.0ns -> 12.0ns)"],
                       ["4", "2.00x (10.0ns -> 20.0ns) ~"]]
    assert t.rows[2][1].spread == pytest.approx(2.0 * 0.06)
    assert "x threads/1" in t.note


def test_speedup_without_baseline_shows_its_reason(tmp_path):
    decl = table("scaling", rows="threads",
                 cell=speedup(over="threads", baseline=1, scaled=True))
    (t,) = declared(tmp_path, decl, [(spin(2), [12e-9, 12e-9])],
                    missing=[(spin(1), "hung: killed after 600 s")])
    assert grid(t) == [["1", "hung: killed after 600 s"],
                       ["2", "hung: killed after 600 s"]]


# -- ratio --------------------------------------------------------------------

def test_ratio_cell_wording_and_spread(tmp_path):
    decl = table("r", rows="threads", cell=ratio(
        over="variant", numerator="a", denominator="b"))
    (t,) = declared(tmp_path, decl, [
        (dims("syn", "c", "a", "x", threads=1),
         values_with_rsd(69.8e-9, 0.03)),
        (dims("syn", "c", "b", "x", threads=1),
         values_with_rsd(25.2e-9, 0.04))])
    cell = t.rows[0][1]
    assert plain(cell.display) == "2.77 (69.8ns/25.2ns)"
    assert cell.spread == pytest.approx(69.8 / 25.2 * 0.05)


# -- crossover ----------------------------------------------------------------

def lock(variant, work_ns, threads=2):
    return dims("lk", "cs", variant, "cython", threads=threads,
                work_ns=work_ns)


BREAK_EVEN = table("break-even", rows="threads", cell=crossover(
    along="work_ns", over="variant", numerator="nogil", denominator="gil",
    unit="ns"))


def crossing_series(ratios, threads=2, rsd=0.0):
    """(benchmarks) whose nogil/gil ratio at work_ns x is ratios[x]."""
    benchmarks = []
    for work_ns, r in ratios.items():
        benchmarks.append((lock("gil", work_ns, threads), [1e-6, 1e-6]))
        benchmarks.append((lock("nogil", work_ns, threads),
                           values_with_rsd(r * 1e-6, rsd)))
    return benchmarks


def break_even(tmp_path, ratios, missing=(), declaration=BREAK_EVEN,
               **kwargs):
    (t,) = declared(tmp_path, declaration, crossing_series(ratios, **kwargs),
                    missing=missing, axes=[THREADS, WORK])
    return t


def test_crossover_interpolates_on_a_log_scale(tmp_path):
    t = break_even(tmp_path, {10: 3.0, 100: 2.0, 1000: 0.5, 10000: 0.8})
    # Between (100, 2.0) and (1000, 0.5): 1/1.5 of the way in log10(x),
    # so x = 10 ** (2 + 2/3) = 464.16
    cell = t.rows[0][1]
    assert plain(cell.display) == "464 ns"
    assert cell.value == pytest.approx(10 ** (2 + 2 / 3))
    assert [c.text for c in t.header] == ["Threads", "CPython 3.11"]
    assert t.note.startswith("The smallest work_ns from which variant=nogil "
                             "/ variant=gil stays <= 1")


def test_crossover_is_where_the_ratio_stays_below_one(tmp_path):
    """An early dip below 1 does not count: the ratio rises again."""
    t = break_even(tmp_path, {10: 0.5, 100: 2.0, 1000: 0.8, 10000: 0.9})
    # (100, 2.0) -> (1000, 0.8): t = 1/1.2, x = 10 ** (2 + 5/6) = 681.3
    assert plain(t.rows[0][1].display) == "681 ns"


def test_crossover_never_and_always(tmp_path):
    never = break_even(tmp_path / "n", {10: 3.0, 100: 0.5, 1000: 1.2})
    always = break_even(tmp_path / "a", {10: 1.0, 100: 0.5, 1000: 0.9})
    assert plain(never.rows[0][1].display) == "never in range"
    assert never.rows[0][1].value is None
    assert plain(always.rows[0][1].display) == "always"


def test_crossover_from_zero_is_linear(tmp_path):
    t = break_even(tmp_path, {0: 3.0, 100: 0.5})
    # (0, 3.0) -> (100, 0.5): t = 2/2.5, x = 80
    assert plain(t.rows[0][1].display) == "80.0 ns"


def test_crossover_takes_the_axis_unit_when_none_is_declared(tmp_path):
    decl = table("break-even", rows="threads", cell=crossover(
        along="work_ns", over="variant", numerator="nogil",
        denominator="gil"))
    t = break_even(tmp_path, {10: 2.0, 1000: 0.5}, declaration=decl)
    # t = 1/1.5 of two decades: 10 ** (1 + 4/3) = 215.4
    assert plain(t.rows[0][1].display) == "215 ns"


def test_crossover_flags_noisy_and_oversubscribed_points(tmp_path):
    t = break_even(tmp_path, {10: 2.0, 1000: 0.5}, threads=3, rsd=0.1)
    assert plain(t.rows[0][1].display) == "215 ns ~^"


def test_crossover_with_too_few_points(tmp_path):
    one = break_even(tmp_path / "one", {10: 2.0})
    failed = break_even(tmp_path / "failed", {10: 2.0},
                        missing=[(lock("nogil", 100), "failed: boom")])
    assert plain(one.rows[0][1].display) == "n/a: only one work_ns measured"
    assert one.rows[0][1].missing
    assert plain(failed.rows[0][1].display) == "failed: boom"


def test_crossover_rows_per_thread_count(tmp_path):
    benchmarks = (crossing_series({10: 2.0, 1000: 0.5}, threads=1)
                  + crossing_series({10: 2.0, 100: 1.5}, threads=2))
    (t,) = declared(tmp_path, BREAK_EVEN, benchmarks, axes=[THREADS, WORK])
    assert grid(t) == [["1", "215 ns"], ["2", "never in range"]]


@pytest.mark.parametrize("points, expected", [
    ([(1, 2.0), (10, 0.5)], 10 ** (1 / 1.5)),
    ([(1, 0.9), (10, 0.5)], kinds.ALWAYS),
    ([(1, 0.9), (10, 1.5)], kinds.NEVER),
    ([(0, 2.0), (4, 0.0)], 2.0),
    ([(1, 1.0), (2, 0.5)], kinds.ALWAYS),  # exactly 1 is "<= 1"
])
def test_crossing(points, expected):
    found = kinds.crossing(points)
    if isinstance(expected, str):
        assert found == expected
    else:
        assert math.isclose(found, expected)


def test_crossings_of_many_rows_are_each_rows_crossing():
    from gilbench.report.kinds.crossover import crossings
    xs = [0, 4, 10, 100]
    rows = [[2.0, 0.0, 0.5, 0.5],    # from 0, linearly: 2
            [2.0, 1.5, 2.0, 0.5],    # between 10 and 100, on a log scale
            [0.9, 0.5, 0.5, 0.5],    # always
            [0.9, 0.5, 0.5, 1.5],    # never in range
            [1.5, 0.5, 1.2, 0.8]]    # the last crossing counts
    found = crossings(xs, rows)
    for row, x in zip(rows, found):
        expected = kinds.crossing(list(zip(xs, row)))
        assert x == {kinds.ALWAYS: -math.inf, kinds.NEVER: math.inf}.get(
            expected, expected)
    assert list(found[[0, 2, 3]]) == [2.0, -math.inf, math.inf]
    assert math.isclose(found[1], 10 ** (1 + 1 / 1.5))
    assert math.isclose(found[4], 10 ** 1.5)


# -- declarations the report cannot draw --------------------------------------

@pytest.mark.parametrize("broken, problem", [
    ("nope", "must be an object"),
    ({"title": "t"}, "no rows"),
    (dict(table("t", rows="threads"), cell={"kind": "histogram"}),
     "unknown cell kind"),
    (dict(table("t", rows="threads"), cell={"kind": "ratio", "over": "x"}),
     "no numerator"),
])
def test_problem(broken, problem):
    assert problem in kinds.problem(broken)


def test_every_constructor_passes_the_check():
    for cell in (value(), ratio("v", "a", "b"), speedup("t", 1),
                 throughput(), crossover("w", "v", "a", "b")):
        assert kinds.problem(table("t", rows="r", cell=cell)) is None


# -- wording ------------------------------------------------------------------

@pytest.mark.parametrize("seconds, text", [
    (1.39e-3, "1.39ms"), (0.892e-3, "892us"), (1.0, "1.00s"),
    (2.5, "2.50s"), (12.34, "12.3s"), (123.4, "123s"), (1234.5, "1234s"),
    (1e-3, "1.00ms"), (10e-3, "10.0ms"), (100e-3, "100ms"),
    (1e-6, "1.00us"), (999e-9, "999ns"), (25.2e-9, "25.2ns"),
    (1e-9, "1.00ns"), (0.0, "0.00ns"), (69.8e-9, "69.8ns"),
    # Rounding carries into the next digit or unit.
    (100e-9, "100ns"), (9.996e-3, "10.0ms"), (0.0009996, "1.00ms"),
    (99.96e-9, "100ns"), (999.6e-9, "1.00us"), (99.996, "100s"),
])
def test_format_seconds(seconds, text):
    assert cells.format_seconds(seconds) == text


@pytest.mark.parametrize("number, unit, text", [
    (2.5e-3, "second", "2.50ms"), (1.5e6, "byte", "1.50MB"),
    (1234.0, "integer", "1230"),
])
def test_format_quantity(number, unit, text):
    assert cells.format_quantity(number, unit) == text


def test_constructors_build_what_the_schema_names():
    """gilbench.model.tables and gilbench.model.findings build
    declarations with exactly the keys resultformat's schema gives, which the
    report checks: one schema for both sides."""
    from gilbench.model import findings as finding_module
    from gilbench.model import resultformat, tables
    built = {
        "value": tables.value(),
        "ratio": tables.ratio("variant", "nogil", "gil"),
        "speedup": tables.speedup("threads", 1),
        "throughput": tables.throughput(),
        "recorded": tables.recorded("ids", bounds=(0, 1)),
        "crossover": tables.crossover("work_ns", "variant", "nogil", "gil"),
        "best": tables.best("kind"),
        "efficiency": tables.efficiency("threads"),
        "scaling": tables.scaling("threads"),
    }
    assert set(built) == set(resultformat.CELL_KINDS)
    for kind, cell in built.items():
        assert set(cell) == ({"kind"} | set(resultformat.CELL_KEYS[kind])
                             | set(resultformat.OPTIONAL_CELL_KEYS.get(
                                 kind, ())))
    declared = tables.table("t", rows="threads", cell=built["value"])
    assert set(declared) == (set(resultformat.TABLE_KEYS)
                             | set(resultformat.OPTIONAL_TABLE_KEYS))
    found = finding_module.finding("q?", built["value"])
    assert set(resultformat.FINDING_KEYS) <= set(found)
