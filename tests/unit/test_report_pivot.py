"""Report side (Python >= 3.9): the generic pivot of declared tables --
rows, columns, per, where, automatic splits, value order, missing cells."""
import sys

import pytest
from helpers import dims, write_result

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

from gilbench.errors import UsageError  # noqa: E402
from gilbench.model.tables import ratio, table, value  # noqa: E402
from gilbench.report.data import loader
from gilbench.report.numbers import cells
from gilbench.report.tables import pivot  # noqa: E402

THREADS = {"name": "threads", "unit": "threads", "log": False}
KIND = {"name": "kind", "unit": "", "log": False}
CS = {"name": "cs", "unit": "ns", "log": True}
AXES = [THREADS, KIND]


def lk(threads, kind, variant="nogil", case="contended"):
    return dims("lk", case, variant, "cython", threads=threads, kind=kind)


def tables(tmp_path, declaration, benchmarks, missing=(), axes=AXES,
           files=(("py311.json", "3.11.7"),)):
    for filename, version in files:
        write_result(tmp_path, filename, version, benchmarks,
                     missing=missing, axes=axes, tables=[declaration],
                     cpus_usable=8)
    return pivot.all_tables(loader.load_results([str(tmp_path)]))[:-4]


def grid(t):
    return [[c.display for c in row] for row in t.rows]


def header(t):
    return [c.display for c in t.header]


# Registry order: kind before threads, threads not ascending.
LOCKS = [(lk(4, "spin"), [4e-6]), (lk(1, "spin"), [1e-6]),
         (lk(2, "spin"), [2e-6]), (lk(1, "mutex"), [10e-6]),
         (lk(2, "mutex"), [20e-6])]


def test_an_unmentioned_axis_splits_the_table(tmp_path):
    found = tables(tmp_path, table("time", rows="threads", cell=value()),
                   LOCKS)
    # Only what tells the two apart is in their titles.
    assert [t.title for t in found] == ["time: kind=spin", "time: kind=mutex"]
    assert found[0].common == {"case": "contended", "variant": "nogil",
                               "backend": "cython", "family": "lk"}
    spin, mutex = found
    # Numeric rows ascend whatever the registry order.
    assert grid(spin) == [["1", "1.00us"], ["2", "2.00us"], ["4", "4.00us"]]
    assert grid(mutex) == [["1", "10.0us"], ["2", "20.0us"]]
    assert spin.per["kind"] == "spin" and spin.row_values == [1, 2, 4]


def test_where_keeps_only_matching_benchmarks(tmp_path):
    found = tables(tmp_path, table("time", rows="threads", cell=value(),
                                   per=["kind"], where={"kind": "mutex"}),
                   LOCKS)
    assert [t.title for t in found] == ["time"]
    assert found[0].per["kind"] == "mutex"


def test_where_does_not_hide_a_ratio_denominator(tmp_path):
    benchmarks = [(lk(1, "spin"), [3e-6]),
                  (lk(1, "spin", variant="gil"), [1e-6])]
    (t,) = tables(tmp_path, table(
        "r", rows="threads", where={"variant": "nogil"},
        cell=ratio(over="case", numerator="contended", denominator="x")),
        benchmarks)
    # The twin is named, not "not run": the numerator was run.
    assert grid(t) == [["1", "n/a: no case=x benchmark"]]
    (t,) = tables(tmp_path / "2", table(
        "r", rows="threads", where={"kind": "spin"},
        cell=ratio(over="variant", numerator="nogil", denominator="gil")),
        benchmarks)
    # One value each: too few to tell whether it is significant.
    assert grid(t) == [["1", "3.00 (3.00us/1.00us) ?"]]


def test_columns_can_be_an_axis(tmp_path):
    (t,) = tables(tmp_path, table("time", rows="threads", columns="kind",
                                  per=["case"], cell=value()), LOCKS)
    # The interpreter is not mentioned: it splits the table.
    assert t.title == "time"
    assert t.common["interpreter"] == "CPython 3.11"
    assert header(t) == ["Threads", "kind=spin", "kind=mutex"]
    assert grid(t) == [["1", "1.00us", "10.0us"],
                       ["2", "2.00us", "20.0us"],
                       ["4", "4.00us", cells.NOT_RUN]]
    assert (t.column_dim, t.column_values) == ("kind", ["spin", "mutex"])


def test_rows_can_be_the_interpreter(tmp_path):
    (t,) = tables(tmp_path, table("time", rows="interpreter",
                                  columns="threads", per=["kind"],
                                  where={"kind": "mutex"}, cell=value()),
                  LOCKS, files=[("a.json", "3.12.1"), ("b.json", "2.7.18")])
    assert header(t) == ["interpreter", "threads=1", "threads=2"]
    assert grid(t) == [["CPython 2.7", "10.0us", "20.0us"],
                       ["CPython 3.12", "10.0us", "20.0us"]]


def test_missing_entries_land_in_their_cell_by_metadata(tmp_path):
    """The missing entry's name says nothing; its metadata places it."""
    reason = "failed: exit code 1 (boom)"
    entry = {"name": "unparseable name", "reason": reason,
             "metadata": dict(lk(2, "mutex", variant="nogil"),
                              gilbench_axes='[{"name": "threads"}, '
                              '{"name": "kind"}]')}
    benchmarks = [b for b in LOCKS if b[0] != lk(2, "mutex")]
    spin, mutex = tables(tmp_path, table("time", rows="threads",
                                         cell=value()),
                         benchmarks, missing=[entry])
    assert grid(mutex) == [["1", "10.0us"], ["2", reason]]
    assert mutex.rows[1][1].missing


def test_a_combination_absent_from_a_file_is_not_run(tmp_path):
    write_result(tmp_path, "a.json", "3.11.7", LOCKS, axes=AXES,
                 tables=[table("time", rows="threads", cell=value())],
                 cpus_usable=8)
    write_result(tmp_path, "b.json", "3.12.1", LOCKS[:2], axes=AXES,
                 cpus_usable=8)
    spin = pivot.all_tables(loader.load_results([str(tmp_path)]))[0]
    assert grid(spin) == [["1", "1.00us", "1.00us"],
                          ["2", "2.00us", cells.NOT_RUN],
                          ["4", "4.00us", "4.00us"]]


def test_split_tables_follow_first_seen_order(tmp_path):
    benchmarks = [(lk(1, k, case=c), [1e-6]) for c in ("b", "a")
                  for k in ("zeta", "alpha")]
    found = tables(tmp_path, table("time", rows="threads", per=["case"],
                                   cell=value()), benchmarks)
    assert [(t.per["case"], t.per["kind"]) for t in found] == [
        ("b", "zeta"), ("b", "alpha"), ("a", "zeta"), ("a", "alpha")]


def test_an_axis_only_some_cases_have(tmp_path):
    """Cases of one family may declare different axes: a record without
    the axis is its own table, and the title leaves the axis out."""
    with_cs = dims("lk", "timed", "nogil", "cython", threads=1, cs=100)
    without = dims("lk", "plain", "nogil", "cython", threads=1)
    write_result(tmp_path, "py311.json", "3.11.7",
                 [(with_cs, [1e-6], {"axes": [THREADS, CS]}),
                  (without, [2e-6], {"axes": [THREADS]})],
                 tables=[table("time", rows="threads", cell=value())])
    found = pivot.all_tables(loader.load_results([str(tmp_path)]))[:-4]
    assert [t.title for t in found] == ["time: case=timed, cs=100",
                                        "time: case=plain"]
    assert [grid(t) for t in found] == [[["1", "1.00us"]], [["1", "2.00us"]]]


@pytest.mark.parametrize("dim, axes, text", [
    ("threads", {}, "Threads"),
    ("interpreter", {}, "interpreter"),
    ("kind", {"kind": KIND}, "kind"),
    ("cs", {"cs": CS}, "cs (ns)"),
    ("work_ns", {"work_ns": {"name": "work_ns", "unit": "ns"}}, "work_ns"),
])
def test_dimension_label(dim, axes, text):
    assert pivot.dimension_label(dim, axes) == text


def test_families_alphabetically_tables_in_declaration_order(tmp_path):
    first = table("z first", rows="threads", cell=value())
    second = table("a second", rows="threads", cell=value())
    write_result(tmp_path, "py311.json", "3.11.7",
                 [(dims("zz", "c", "v", "b", threads=1), [1e-6],
                   {"tables": [first, second]}),
                  (dims("aa", "c", "v", "b", threads=1), [1e-6],
                   {"tables": [second]})])
    titles = [t.title for t in
              pivot.all_tables(loader.load_results([str(tmp_path)]))[:-4]]
    assert titles == ["a second", "z first", "a second"]


TYPOS = [
    table("typo", rows="thread", cell=value()),
    table("typo", rows="threads", columns="knd", cell=value()),
    table("typo", rows="threads", where={"kinds": "spin"}, cell=value()),
    table("typo", rows="threads", cell=ratio(over="variants",
                                             numerator="a",
                                             denominator="b")),
]


@pytest.mark.parametrize("declaration", TYPOS)
def test_a_table_whose_dimensions_this_file_lacks_is_left_out(tmp_path,
                                                              declaration):
    """A run of part of a family (--case) lacks some tables' axes; those
    tables are left out, the others drawn.  Typos are refused where the
    tables are declared (test_a_typo_in_a_declared_table_is_refused)."""
    assert tables(tmp_path, declaration, LOCKS) == []


@pytest.mark.e2e
def test_cli_renders_the_rest_of_a_partial_family(harness, tmp_path):
    write_result(tmp_path, "py311.json", "3.11.7", LOCKS, axes=AXES,
                 tables=[table("absent", rows="thread", cell=value()),
                         table("present", rows="threads", cell=value())])
    result = harness("report", tmp_path, "--format", "md")
    assert result.code == 0, result
    assert "## present" in result.stdout and "absent" not in result.stdout


@pytest.mark.parametrize("declaration", TYPOS)
def test_a_typo_in_a_declared_table_is_refused(tmp_path, declaration,
                                               restore_sys_path):
    from gilbench.model import registry
    module = tmp_path / "typo_cases_for_report.py"
    module.write_text(
        "from gilbench.api import Axis, CaseSpec\n"
        "CASES = [CaseSpec('f', 'c', 'v', 'b', lambda p: None, 'd',\n"
        "                  axes=[Axis('kind', ['spin'])])]\n"
        "TABLES = %r\n" % [declaration])
    with pytest.raises(UsageError) as error:
        registry.load([str(module)])
    assert "no name part or axis" in str(error.value)


def test_where_takes_a_list_of_values(tmp_path):
    both = tables(tmp_path, table("t", rows="threads", per=["kind"],
                                  where={"kind": ["mutex", "spin"]},
                                  cell=value()), LOCKS)
    one = tables(tmp_path / "one", table("t", rows="threads", per=["kind"],
                                         where={"kind": ["spin"]},
                                         cell=value()), LOCKS)
    assert len(both) == 2 * len(one) and len(one) >= 1


def test_tables_made_on_two_cpus_are_the_pivots(tmp_path, monkeypatch):
    """tables.parallel makes the last families' declared tables in a
    forked child: the same tables, in the same order."""
    from helpers import WIDE_INTERPRETERS, write_matrix

    from gilbench.report.tables import parallel
    write_matrix(tmp_path, catalogue=WIDE_INTERPRETERS)
    results = loader.load_results([str(tmp_path)])
    families = pivot.declared_families(results)
    first, second = parallel.halves(results, families)
    assert first and second and first + second == families
    made_here = []
    family_declared = pivot.family_declared_tables

    def noted(results, families):
        made_here.extend(families)  # in the child: not seen here
        return family_declared(results, families)

    monkeypatch.setattr(pivot, "family_declared_tables", noted)
    monkeypatch.setattr(parallel, "SPLIT_FROM", 1)
    expected = pivot.all_tables(results)
    del made_here[:]
    assert parallel.all_tables(results) == expected
    assert made_here == first
    # Few benchmarks: all made here.
    del made_here[:]
    monkeypatch.setattr(parallel, "SPLIT_FROM", 10 ** 9)
    assert parallel.all_tables(results) == expected
    assert made_here == families
