"""Report side (Python >= 3.9): ``python -m gilbench compare BASE CHANGED``
-- pairing by metadata, pyperf's significance, geometric means, formats,
--fail-above, and bad input."""
import sys

import pytest
from helpers import (
    assert_one_line_usage_error,
    gil,
    run_harness,
    write_matrix,
    write_result,
)

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

pytest.importorskip("jinja2")

from gilbench.report.commands import compare
from gilbench.report.pages import render  # noqa: E402


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    """Two interpreters before, and after a change that makes every
    benchmark 8% slower."""
    root = tmp_path_factory.mktemp("compare")
    write_matrix(root / "base", ["py312", "py313"])
    write_matrix(root / "changed", ["py312", "py313"], slower=1.08)
    return root / "base", root / "changed"


def test_pairs_files_by_interpreter_and_benchmarks_by_dimensions(sides):
    base, changed = sides
    result = compare.compare([str(base)], [str(changed)])
    pairs = {c.pair for c in result.changes}
    assert pairs == {"CPython 3.12", "CPython 3.13"}
    measured = [c for c in result.changes if c.norm is not None]
    assert len(measured) == 2 * (32 + 24 + 4)
    assert all(abs(c.norm - 1.08) < 1e-9 for c in measured)
    # pyperf's t-test: 4 values a side, 2-4% spread, 8% apart.
    assert sum(c.slower for c in measured) > len(measured) / 2
    assert not any(c.faster for c in measured)


def test_summary_has_a_geometric_mean_per_family(sides):
    base, changed = sides
    result = compare.compare([str(base)], [str(changed)])
    summary = result.tables[0]
    assert summary.title == "Summary"
    rows = [[cell.display for cell in row] for row in summary.rows]
    assert [r[:3] for r in rows] == [
        ["CPython 3.12", "gil", "32"], ["CPython 3.12", "pool", "4"],
        ["CPython 3.12", "work", "24"], ["CPython 3.13", "gil", "32"],
        ["CPython 3.13", "pool", "4"], ["CPython 3.13", "work", "24"]]
    assert all(r[3] == "+8.0% (1.08x slower)" for r in rows)


@pytest.mark.parametrize("fmt", ["rst", "md", "html"])
def test_formats(sides, fmt):
    base, changed = sides
    text = compare.render_comparison(
        compare.compare([str(base)], [str(changed)]), fmt)
    assert "+8.0% (1.08x slower)" in text
    assert "gil.trivial.gil.cython/t1" in text
    if fmt == "rst":
        assert render.rst_problems(text) == ""
    if fmt == "html":
        assert '<td class="r1">+8.0% (1.08x slower)' in text
        assert "<svg" not in text


@pytest.mark.e2e
def test_fail_above(sides, tmp_path):
    base, changed = sides
    out = tmp_path / "compare.md"
    over = run_harness("compare", base, changed, "-o", out,
                       "--fail-above", "5")
    assert over.code == 1, over
    assert over.stderr.startswith("gilbench: ")
    assert "significant slowdown(s) above 5%" in over.stderr
    assert len(over.stderr_lines) == 1
    assert out.read_text().startswith("# gilbench compare")
    under = run_harness("compare", base, changed, "--fail-above", "10")
    assert under.code == 0, under
    assert under.stdout.startswith("================\ngilbench compare")
    reverse = run_harness("compare", changed, base, "--fail-above", "0")
    assert reverse.code == 0, reverse  # faster is never a failure


def test_one_file_each_pairs_two_interpreters(tmp_path):
    """Two interpreters compared with each other: labels differ."""
    a = write_result(tmp_path, "a.json", "3.12.1",
                     [(gil("trivial", "gil", "cython", 1), [1e-6, 1.1e-6])])
    b = write_result(tmp_path, "b.json", "3.13.1",
                     [(gil("trivial", "gil", "cython", 1), [2e-6, 2.1e-6]),
                      (gil("trivial", "gil", "cython", 2), [3e-6, 3e-6])])
    result = compare.compare([str(a)], [str(b)])
    assert {c.pair for c in result.changes} == {
        "CPython 3.12 -> CPython 3.13"}
    text = compare.render_comparison(result, "md")
    assert "n/a: not in base" in text
    assert "yes (t=" in text


@pytest.mark.e2e
def test_single_values_are_untested_and_never_fail(tmp_path):
    a = write_result(tmp_path / "a", "a.json", "3.12.1",
                     [(gil("trivial", "gil", "cython", 1), [1e-6])])
    b = write_result(tmp_path / "b", "b.json", "3.12.1",
                     [(gil("trivial", "gil", "cython", 1), [5e-6])])
    result = run_harness("compare", a, b, "--format", "md",
                         "--fail-above", "1")
    assert result.code == 0, result
    assert "untested: one value" in result.stdout


@pytest.mark.e2e
def test_no_interpreter_in_common(tmp_path):
    write_matrix(tmp_path / "a", ["py27", "py39"])
    write_matrix(tmp_path / "b", ["py312", "py313"])
    result = run_harness("compare", tmp_path / "a", tmp_path / "b")
    assert_one_line_usage_error(result)
    assert "no interpreter in common" in result.stderr


@pytest.mark.e2e
def test_bad_input(tmp_path, sides):
    base, _ = sides
    (tmp_path / "empty").mkdir()
    assert_one_line_usage_error(
        run_harness("compare", base, tmp_path / "empty"))
    assert_one_line_usage_error(
        run_harness("compare", base, tmp_path / "missing.json"))
    newer = write_result(tmp_path / "n", "new.json", "3.12.1",
                         [(gil("trivial", "gil", "cython", 1), [1e-6, 1e-6],
                           {"extra": {"gilbench_format": 3}})])
    assert_one_line_usage_error(run_harness("compare", newer, newer))
    assert_one_line_usage_error(
        run_harness("compare", base, base, "--fail-above", "-1"))
    # A directory where no file can be made, even as root.
    result = run_harness("compare", base, base, "-o", "/proc/out.html")
    assert_one_line_usage_error(result)


# -- significance over worker processes --------------------------------------

def processes(*means, spread=0.01, values=3):
    """One list of values per worker process around each mean."""
    return [[m * (1 + spread * (i - (values - 1) / 2.0))
             for i in range(values)] for m in means]


@pytest.mark.e2e
def test_processes_that_disagree_between_runs_are_not_a_change(tmp_path):
    """An A/A pair as 3.11 made it: GIL hand-off luck put both processes
    of one run near 120 ns and both of the other near 450 ns."""
    name = gil("trivial", "nogil", "cython", 2)
    a = write_result(tmp_path / "a", "a.json", "3.11.7",
                     [(name, processes(122.5e-9, 119.9e-9))])
    b = write_result(tmp_path / "b", "b.json", "3.11.7",
                     [(name, processes(543e-9, 408e-9))])
    (change,) = compare.compare([str(a)], [str(b)]).changes
    assert change.percent > 200 and change.significant is False
    # Values tested as independent draws would have called it.
    from scipy import stats
    flat = stats.ttest_ind(change.changed.values, change.base.values)
    assert flat.pvalue < 1e-6
    result = run_harness("compare", a, b, "--fail-above", "10")
    assert result.code == 0, result


@pytest.mark.e2e
def test_a_slowdown_every_process_shows_is_significant(tmp_path):
    name = gil("trivial", "nogil", "cython", 1)
    a = write_result(tmp_path / "a", "a.json", "3.11.7",
                     [(name, processes(100e-9, 102e-9, 99e-9))])
    b = write_result(tmp_path / "b", "b.json", "3.11.7",
                     [(name, processes(130e-9, 133e-9, 129e-9))])
    (change,) = compare.compare([str(a)], [str(b)]).changes
    assert change.significant is True and change.slower
    result = run_harness("compare", a, b, "--fail-above", "10",
                         "--format", "md")
    assert result.code == 1, result
    assert "yes (t=" in result.stdout and "q=" in result.stdout


def test_many_unchanged_benchmarks_are_adjusted_for_multiplicity(tmp_path):
    """40 benchmarks whose process means all come from one distribution:
    some raw p fall below 5% by chance; after Benjamini-Hochberg none is
    called."""
    import numpy
    generator = numpy.random.default_rng(7)
    sides = []
    for side in ("a", "b"):
        benchmarks = [(gil("trivial", "gil", "cython", n),
                       processes(*(1e-6 * generator.normal(1, 0.1, 4))))
                      for n in range(1, 41)]
        sides.append(write_result(tmp_path / side, side + ".json", "3.11.7",
                                  benchmarks))
    found = compare.compare([str(sides[0])], [str(sides[1])]).changes
    assert len(found) == 40
    assert any(c.p < 0.05 for c in found)
    assert not any(c.significant for c in found)
