"""Cross-build findings (report side, Python >= 3.9): a free-threaded
build read against its GIL-on twin and the default build of its version,
per family and as a geometric mean, from synthetic result files."""
import math
import sys

import pytest
from helpers import dims, write_result

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

from gilbench.model import builds as declared  # noqa: E402
from gilbench.report.data import loader  # noqa: E402
from gilbench.report.pages import render  # noqa: E402
from gilbench.report.tables import builds, pivot, questions  # noqa: E402

FREE = {"py_gil_disabled_build": 1, "python_gil": "disabled"}
GIL_ON = {"py_gil_disabled_build": 1, "python_gil": "enabled"}


def times(scale_one, scale_two, family="syn"):
    """Two cases at 1 and 2 threads, their 1-thread times scaled by
    ``scale_one`` (a pair of factors), 2-thread times by ``scale_two``;
    a processes benchmark that no threads point reads; a tight spread."""
    found = []
    for case, one, two in (("a", scale_one[0], scale_two[0]),
                           ("b", scale_one[1], scale_two[1])):
        for threads, scale in ((1, one), (2, two)):
            mean = 1e-6 * scale
            found.append((dims(family, case, "v", "python", threads=threads),
                          [mean * 0.999, mean * 1.001] * 3))
    found.append((dims(family, "p", "v", "python", processes=1),
                  [5e-6, 5e-6]))
    return found


def write(tmp_path, files):
    """files: (stem, version, implementation, extra, benchmarks)."""
    for stem, version, implementation, extra, benchmarks in files:
        write_result(tmp_path, stem + ".json", version, benchmarks,
                     implementation=implementation, extra=extra,
                     cpus_usable=2)
    return loader.load_results([str(tmp_path)])


BASE = times((1.0, 1.0), (1.0, 1.0))


def matrix(tmp_path, free_one=(1.69, 1.0), free_two=(0.5, 0.5)):
    """3.13t 69% / 0% slower than its twins at 1 thread, twice as fast at
    2; 3.13 as the twin; 3.12 and PyPy 3.13 as bystanders."""
    return write(tmp_path, [
        ("py313t", "3.13.1", "cpython", FREE, times(free_one, free_two)),
        ("py313t-gil", "3.13.1", "cpython", GIL_ON, BASE),
        ("py313", "3.13.1", "cpython", {}, BASE),
        ("py312", "3.12.8", "cpython", {}, times((2.0, 2.0), (2.0, 2.0))),
        ("pypy3", "3.13.0", "pypy", {}, times((3.0, 3.0), (3.0, 3.0))),
    ])


def by_label(results):
    return {r.interpreter: r for r in results}


def test_twins_are_the_gil_on_run_and_the_default_build(tmp_path):
    results = by_label(matrix(tmp_path))
    free = results["CPython 3.13t"]
    everything = list(results.values())
    assert builds.twin(free, everything, declared.GIL_ON) is \
        results["CPython 3.13t (GIL on)"]
    assert builds.twin(free, everything, declared.DEFAULT) is \
        results["CPython 3.13"]
    assert not builds.is_free(results["CPython 3.13t (GIL on)"])


def test_findings_answer_in_the_free_threaded_column_only(tmp_path):
    results = matrix(tmp_path)
    table = questions.findings_table(results, pivot.family_order(results))
    rows = [row for row in table.rows if row.family == builds.FAMILY]
    assert [row.question for row in rows] == [
        d["question"] for d in declared.FINDINGS]
    column = table.interpreters.index("CPython 3.13t")
    cost, cost_default, gain, gain_default = [row.answers[column]
                                              for row in rows]
    # geometric mean of 1.69 and 1.0 is 1.3; at 2 threads twice as fast
    assert cost.value == pytest.approx(1.3, rel=1e-3)
    assert cost_default.value == pytest.approx(1.3, rel=1e-3)
    assert gain.value == pytest.approx(2.0, rel=1e-3)
    assert cost.significant and gain.significant
    assert cost.text.startswith("1.30x [") and not cost.flags
    assert len(cost.read) == 4  # two benchmarks of each file
    for row in rows:
        others = [a for i, a in enumerate(row.answers) if i != column]
        assert all(a.missing and a.text == builds.NOT_FREE for a in others)


def test_an_equal_builds_interval_is_the_runs_drift(tmp_path):
    results = matrix(tmp_path, free_one=(1.0, 1.0), free_two=(1.0, 1.0))
    free = by_label(results)["CPython 3.13t"]
    twin = by_label(results)["CPython 3.13"]
    per, (overall, count) = builds.family_cells(
        free, twin, declared.ONE, pivot.family_order(results))
    assert count == 1 and per["syn"][1] == 2
    low, high = overall.interval
    # Values agree to 0.1%: the width is the shift drawn per family and
    # file, two files apart.
    drift = builds.DRIFT[declared.ONE]
    sd = math.sqrt(2 * drift ** 2)
    assert low < 1 < high
    assert math.log(high / low) == pytest.approx(2 * 1.96 * sd, rel=0.1)
    # Its central 90% (two one-sided tests at 5%) says "the same" where
    # it lies within the margin: where the drift leaves room for it.
    assert overall.significant is False
    within = math.exp(1.645 * sd) - 1
    if within < 0.1:
        assert overall.flags == "="
        assert overall.same == pytest.approx(within, rel=0.1)
    else:
        assert overall.same is None and overall.flags == "?"


def test_families_weigh_the_same_in_the_geometric_mean(tmp_path):
    big = times((2.0, 2.0), (1.0, 1.0), family="big")
    small = [(d, v) for d, v in times((1.0, 1.0), (1.0, 1.0),
                                      family="small")][:1]
    twin_big = times((1.0, 1.0), (1.0, 1.0), family="big")
    twin_small = small
    results = write(tmp_path, [
        ("py314t", "3.14.0", "cpython", FREE, big + small),
        ("py314", "3.14.0", "cpython", {}, twin_big + twin_small),
    ])
    found = questions.findings_table(results, pivot.family_order(results))
    (row,) = [r for r in found.rows if r.declaration["cell"] == {
        "kind": "builds", "twin": declared.DEFAULT, "point": declared.ONE}]
    # big: 2.0 over 2 benchmarks; small: 1.0 over 1: sqrt(2), not 2^(2/3)
    assert row.answers[found.interpreters.index("CPython 3.14t")].value == \
        pytest.approx(math.sqrt(2), rel=1e-3)


def test_without_a_twin_the_answer_says_which_is_missing(tmp_path):
    results = write(tmp_path, [
        ("py313t", "3.13.1", "cpython", FREE, BASE),
        ("py312", "3.12.8", "cpython", {}, BASE)])
    found = questions.findings_table(results, pivot.family_order(results))
    answers = [r.answers[found.interpreters.index("CPython 3.13t")]
               for r in found.rows if r.family == builds.FAMILY]
    assert [a.text for a in answers] == [
        "n/a: no GIL-on twin among the results",
        "n/a: no default build among the results"] * 2


def test_no_free_threaded_build_no_rows_no_tables(tmp_path):
    results = write(tmp_path, [("py313", "3.13.1", "cpython", {}, BASE),
                               ("py312", "3.12.8", "cpython", {}, BASE)])
    found = questions.findings_table(results, pivot.family_order(results))
    assert not [r for r in found.rows if r.family == builds.FAMILY]
    assert not builds.tables(results, pivot.family_order(results))


def test_tables_per_twin_and_point_with_counts(tmp_path):
    results = matrix(tmp_path)
    shown = builds.tables(results, pivot.family_order(results))
    assert [t.title for t in shown] == [
        builds.title(twin, point) for twin in declared.TWINS
        for point in declared.POINTS]
    one = shown[0]
    assert [c.text for c in one.header] == [
        "family", "CPython 3.13t vs CPython 3.13t (GIL on)"]
    assert [row[0].text for row in one.rows] == ["syn", builds.ALL]
    assert one.rows[0][1].text.endswith("(2 benchmarks)")
    assert one.rows[1][1].text.endswith("(1 family)")
    # at N threads (2 usable CPUs): twin time / free time
    assert shown[1].rows[0][1].value == pytest.approx(2.0, rel=1e-3)


def test_every_format_renders_the_cross_build_answers(tmp_path):
    results = matrix(tmp_path)
    for fmt in ("rst", "md", "json"):
        page = render.render(results, fmt)
        assert builds.title(declared.GIL_ON, declared.ONE) in page
    assert render.rst_problems(render.render(results, "rst")) == ""


def test_a_comparison_must_name_a_known_twin_and_point():
    with pytest.raises(ValueError):
        declared.comparison("q?", "sibling", declared.ONE)


PYENV_BUILD = {"python_origin": "pyenv (3.13.1)", "python_compiler":
               "GCC 12.2.0", "python_optimizations": "none",
               "python_libc": "glibc 2.36"}


def test_a_comparison_of_two_builds_says_how_they_differ(tmp_path):
    debian = dict(PYENV_BUILD, python_origin="Debian unstable package",
                  python_compiler="GCC 16.2.0",
                  python_optimizations="PGO, LTO")
    built_here = dict(PYENV_BUILD, python_origin="built here")
    results = write(tmp_path, [
        ("py313t", "3.13.1", "cpython", dict(FREE, **built_here), BASE),
        ("py313t-gil", "3.13.1", "cpython", dict(GIL_ON, **built_here),
         BASE),
        ("py313", "3.13.1", "cpython", debian, BASE)])
    found = questions.findings_table(results, pivot.family_order(results))
    column = found.interpreters.index("CPython 3.13t")
    notes = {r.declaration["cell"]["twin"]: r.answers[column].note
             for r in found.rows if r.family == builds.FAMILY}
    # The GIL-on twin is the same binary; the default build is not.
    assert notes[declared.GIL_ON] == ""
    assert notes[declared.DEFAULT] == (
        "(builds differ: compiler GCC 12.2.0 / GCC 16.2.0; "
        "optimizations none / PGO, LTO)")
    shown = [t for t in pivot.all_tables(results)
             if t.title == builds.title(declared.DEFAULT, declared.ONE)]
    assert "CPython 3.13t vs CPython 3.13: builds differ" in shown[0].note


def test_every_column_says_how_its_interpreter_was_built(tmp_path):
    results = write(tmp_path, [
        ("py313", "3.13.1", "cpython", PYENV_BUILD, BASE),
        ("py312", "3.12.8", "cpython", {}, BASE)])
    table, = [t for t in pivot.all_tables(results)
              if t.title == "How each interpreter was built"]
    rows = {row[0].text: [cell.text for cell in row[1:]]
            for row in table.rows}
    assert rows["CPython 3.13"] == ["pyenv (3.13.1)", "GCC 12.2.0", "none",
                                    "glibc 2.36", "as named"]
    # A file before the keys.
    assert rows["CPython 3.12"] == ["?"] * 4 + ["as named"]


def test_a_column_whose_env_named_another_interpreter_is_labelled(tmp_path):
    said = ("tox env py313t named Python 3.13t, but this is CPython 3.11 "
            "(/x/bin/python: version 3.11, not a free-threaded build)")
    results = write(tmp_path, [
        ("py313t", "3.11.7", "cpython", {"python_misnamed": said}, BASE),
        ("py312", "3.12.8", "cpython", {}, BASE)])
    assert [r.interpreter for r in results] == [
        "CPython 3.11 (misnamed)", "CPython 3.12"]
    table, = [t for t in pivot.all_tables(results)
              if t.title == "How each interpreter was built"]
    named = {row[0].text: row[-1].text for row in table.rows}
    assert named == {"CPython 3.11 (misnamed)": said,
                     "CPython 3.12": "as named"}

