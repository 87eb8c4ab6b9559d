"""Scaling against the machine (report side, Python >= 3.9): the
scalability-law fit, efficiency against the ideal and against the
ceiling family, as table cells and findings."""
import sys

import pytest
from helpers import dims, plain, write_result

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

import json  # noqa: E402
import math  # noqa: E402
import re  # noqa: E402

import numpy  # noqa: E402

from gilbench.model.findings import finding  # noqa: E402
from gilbench.model.resultformat import FINDINGS_KEY  # noqa: E402
from gilbench.model.tables import (  # noqa: E402
    best,
    efficiency,
    scaling,
    table,
)
from gilbench.report.data import loader
from gilbench.report.numbers import scalability  # noqa: E402
from gilbench.report.tables import pivot, questions


def usl_times(s, k, counts, one=1e-6, noise=0.0):
    """Per-loop times of a threads case whose speedup follows the law
    (each loop: one call per thread), with +-noise spread in 6 values."""
    out = {}
    for n in counts:
        mean = one * n / scalability.usl(n, s, k)
        out[n] = [mean * (1 + noise * (2 * i / 5.0 - 1)) for i in range(6)]
    return out


def test_a_synthetic_curve_is_fitted_back():
    counts = [1, 2, 3, 4, 6, 8, 12, 16]
    points = [(n, float(scalability.usl(n, 0.05, 0.002)), None)
              for n in counts]
    fit = scalability.fit(points)
    assert fit.s == pytest.approx(0.05, abs=1e-4)
    assert fit.k == pytest.approx(0.002, abs=1e-5)
    assert fit.peak == pytest.approx(((1 - 0.05) / 0.002) ** 0.5, rel=1e-2)
    assert fit.s_interval[0] <= 0.05 <= fit.s_interval[1]


def test_a_noisy_curve_is_fitted_within_its_interval():
    import numpy
    generator = numpy.random.default_rng(1)
    counts = [1, 2, 3, 4, 5, 6, 8]
    points = [(n, float(scalability.usl(n, 0.1, 0.01))
               * (1 + generator.normal(0, 0.01)), None) for n in counts]
    fit = scalability.fit(points)
    assert fit.s_interval[0] < 0.1 < fit.s_interval[1]
    assert fit.k_interval[0] < 0.01 < fit.k_interval[1]
    assert fit.peak_interval[0] < fit.peak < fit.peak_interval[1]


def test_two_points_or_only_oversubscribed_counts_are_not_fitted():
    two = [(1, 1.0, None), (2, 1.9, None)]
    assert scalability.not_fitted(two, 2) == (
        "n/a: 2 count(s) measured, a fit needs 3")
    beyond = [(1, 1.0, None), (3, 1.9, None), (4, 1.9, None)]
    assert scalability.not_fitted(beyond, 2) == (
        "n/a: a fit needs 3 counts within the usable CPUs; this machine "
        "has 2")
    assert scalability.not_fitted(beyond, 4) is None


def test_a_fit_whose_parameters_span_their_range_is_no_answer():
    wide = scalability.Fit(0.5, 0.2, (0.0, 1.0), (0.0, 0.9), 1.5, None, 3)
    assert "leave s undetermined" in scalability.undetermined(wide)
    narrow = scalability.Fit(0.05, 0.002, (0.03, 0.07), (0.001, 0.003),
                             21.8, (15.0, 30.0), 8)
    assert scalability.undetermined(narrow) is None


def test_on_two_cpus_the_fit_says_why_it_cannot_answer(tmp_path):
    times = usl_times(0.08, 0.004, [1, 2, 3, 4])
    decl = scaling(over="threads")
    results = write(tmp_path, [finding("fit?", decl)],
                    [table("fit", rows="variant", cell=decl)], times, cpus=2)
    (row,) = questions.findings_table(results, ["syn"]).rows
    assert row.answers[0].text == (
        "n/a: a fit needs 3 counts within the usable CPUs; this machine "
        "has 2")


def work(n, variant="threads", family="syn", **more):
    return dims(family, "spin", variant, "cython", threads=n, **more)


def write(tmp_path, declarations, table_declarations, times, ceiling=None,
          cpus=8):
    benchmarks = [(work(n), values) for n, values in times.items()]
    for n, values in (ceiling or {}).items():
        benchmarks.append((work(n, family="ceiling"), values))
    write_result(tmp_path, "py311.json", "3.11.7", benchmarks,
                 tables=table_declarations, cpus_usable=cpus,
                 extra={FINDINGS_KEY: json.dumps(declarations)})
    return loader.load_results([str(tmp_path)])


def test_the_fit_as_a_table_cell_and_a_finding(tmp_path):
    times = usl_times(0.08, 0.004, [1, 2, 3, 4, 5, 6])
    decl = scaling(over="threads")
    results = write(tmp_path, [finding("fit?", decl)],
                    [table("fit", rows="variant", cell=decl)], times)
    (shown,) = pivot.all_tables(results)[:-4]
    text = shown.rows[0][1].text
    assert text.startswith("s=0.0800 [") and "k=0.00400 [" in text, text
    assert "peak 15.2" in text  # sqrt((1 - 0.08) / 0.004)
    (row,) = questions.findings_table(results, ["syn"]).rows
    assert row.answers[0].text == text


def test_efficiency_against_the_ideal(tmp_path):
    times = usl_times(0.25, 0.0, [1, 2, 4], noise=0.01)
    decl = efficiency(over="threads")
    results = write(tmp_path, [], [table("eff", rows="threads", cell=decl)],
                    times)
    (shown,) = pivot.all_tables(results)[:-4]
    cells_ = [row[1] for row in shown.rows]
    # speedup(2) = 2 / 1.25 = 1.6: efficiency 0.8; speedup(4) = 4/1.75
    assert cells_[0].display == "1.00 (1.00x of 1x)"
    assert plain(cells_[1].text) == "0.80 (1.60x of 2x)"
    assert cells_[2].value == pytest.approx(1 / 1.75, rel=1e-3)
    assert cells_[1].significant is True
    assert cells_[1].interval[0] < 0.8 < cells_[1].interval[1]


def test_efficiency_against_this_machines_ceiling(tmp_path):
    times = usl_times(0.25, 0.0, [1, 2], noise=0.01)
    ceiling = usl_times(0.05, 0.0, [1, 2], noise=0.01)  # 1.905x at 2
    decl = efficiency(over="threads", against="ceiling")
    results = write(tmp_path, [finding("vs ceiling, 2 threads?", decl,
                                       at={"threads": 2})],
                    [table("eff", rows="threads", cell=decl)], times,
                    ceiling=ceiling)
    found = questions.findings_table(results, ["syn"]).rows[0].answers[0]
    assert found.value == pytest.approx(1.6 / (2 / 1.05), rel=1e-3)
    assert plain(found.text) == "0.84"
    tables = [t for t in pivot.all_tables(results) if t.family == "syn"]
    assert plain(tables[0].rows[1][1].text) == "0.84 (1.60x of 1.90x)"


def test_efficiency_without_ceiling_results_says_so(tmp_path):
    times = usl_times(0.25, 0.0, [1, 2])
    decl = efficiency(over="threads", against="ceiling")
    results = write(tmp_path, [finding("q?", decl, at={"threads": 2})], [],
                    times)
    found = questions.findings_table(results, ["syn"]).rows[0].answers[0]
    assert found.missing and "run the ceiling family" in found.text


# -- compare's scaling gate --------------------------------------------------

@pytest.mark.e2e
def test_a_slower_two_thread_copy_fails_the_gate_an_aa_copy_passes(
        tmp_path):
    from helpers import run_harness
    times = usl_times(0.1, 0.0, [1, 2], noise=0.02)
    decl = [table("fit", rows="variant", cell=scaling(over="threads"))]
    for side, factor in (("base", 1.0), ("slow", 1.3), ("same", 1.0)):
        benchmarks = [(work(n), [v * (factor if n == 2 else 1.0)
                                 for v in values])
                      for n, values in times.items()]
        write_result(tmp_path / side, "py311.json", "3.11.7", benchmarks,
                     tables=decl, cpus_usable=8)
    failed = run_harness("compare", tmp_path / "base", tmp_path / "slow",
                         "--fail-efficiency-drop", "10")
    assert failed.code == 1, failed
    (line,) = failed.stderr.strip().splitlines()
    assert "significant efficiency drop" in line and "N=2" in line
    assert "-23." in line  # 1/1.3 - 1
    passed = run_harness("compare", tmp_path / "base", tmp_path / "same",
                         "--fail-efficiency-drop", "10")
    assert passed.code == 0, passed
    assert "Scaling: CPython 3.11" in passed.stdout


@pytest.mark.e2e
def test_the_gate_needs_a_drop_the_processes_agree_on(tmp_path):
    """Two processes a side, as a default run has: process luck between
    runs (both 2-thread processes slow in one run) passes the gate; a
    slowdown every process shows fails it."""
    from helpers import run_harness

    def per_process(*means):
        return [[m * (1 + 0.01 * i) for i in (-1, 0, 1)] for m in means]

    decl = [table("fit", rows="variant", cell=scaling(over="threads"))]
    sides = {"base": (1e-6, 1.02e-6, 1.1e-6, 1.12e-6),
             "luck": (1e-6, 1.02e-6, 4.4e-6, 3.3e-6),
             "slow": (1e-6, 1.02e-6, 1.43e-6, 1.46e-6)}
    for side, (a, b, c, d) in sides.items():
        write_result(tmp_path / side, "py311.json", "3.11.7",
                     [(work(1), per_process(a, b)),
                      (work(2), per_process(2 * c, 2 * d))],
                     tables=decl, cpus_usable=8)
    luck = run_harness("compare", tmp_path / "base", tmp_path / "luck",
                       "--fail-efficiency-drop", "10")
    assert luck.code == 0, luck
    slow = run_harness("compare", tmp_path / "base", tmp_path / "slow",
                       "--fail-efficiency-drop", "10")
    assert slow.code == 1, slow
    assert "significant efficiency drop" in slow.stderr


def test_the_html_page_draws_efficiency_and_the_ceiling(tmp_path):
    from gilbench.model.tables import speedup
    from gilbench.report.pages import render
    times = usl_times(0.2, 0.0, [1, 2, 3], noise=0.01)
    ceiling = usl_times(0.02, 0.0, [1, 2, 3], noise=0.01)
    scaled = speedup(over="threads", baseline=1, scaled=True)
    results = write(tmp_path, [], [
        table("eff", rows="threads", cell=efficiency(over="threads")),
        table("speedup", rows="threads", cell=scaled),
        table("ceiling", rows="threads", cell=scaled)], times,
        ceiling=ceiling)
    page = render.render(results, "html")
    assert "efficiency against the ideal (1 = perfect)" in page
    assert "this machine&#39;s ceiling" in page or \
        "this machine's ceiling" in page
    assert "scalability-law fit" in page


def test_the_page_draws_a_fit_only_where_its_table_gives_one(tmp_path):
    # Three counts on a 2-CPU run: the fit's cell is n/a (one count is
    # oversubscribed), so the speedup figure draws no fitted curve; on 8
    # CPUs both give one.
    from gilbench.model.tables import speedup
    from gilbench.report.pages import render
    times = usl_times(0.2, 0.0, [1, 2, 3], noise=0.01)
    declared = [table("speedup", rows="threads",
                      cell=speedup(over="threads", baseline=1, scaled=True)),
                table("fit", rows="variant", cell=scaling(over="threads"))]
    for cpus, fitted in ((2, False), (8, True)):
        results = write(tmp_path / str(cpus), [], declared, times, cpus=cpus)
        page = render.render(results, "html")
        fit_cell = [t for t in pivot.all_tables(results)
                    if t.title == "fit"][0].rows[0][1]
        assert fit_cell.missing is not fitted
        assert ("scalability-law fit" in page) is fitted
        assert bool(re.search(r'id="d\d+-plot-f0-fit-0"', page)) is fitted


def test_a_curve_that_only_falls_peaks_at_one_worker():
    from gilbench.report.kinds import fit_text
    points = [(1, 1.0, None), (2, 0.45, None), (3, 0.3, None),
              (4, 0.22, None)]
    fit = scalability.fit(points)
    assert fit.s_interval[1] <= 1.0 and fit.k_interval[1] <= 1.0
    assert fit.peak == 1.0
    assert "peak at 1 (no count is faster than one)" in fit_text(fit)


def test_a_coefficient_at_its_bound_reads_zero():
    """curve_fit leaves a bounded s at a float's dust (4e-21) when the
    curve has no serial share: the cell says 0, not twenty zeros."""
    from gilbench.report.kinds import fit_text
    points = [(n, float(scalability.usl(n, 0.0, 0.05)), None)
              for n in (1, 2, 3, 4)]
    text = fit_text(scalability.fit(points))
    assert text.startswith("s=0 [0-") and "0000" not in text


def test_the_ceiling_is_whichever_family_declares_reference_points(
        tmp_path):
    """Read from the file's gilbench_reference, not from a family name: a
    ceiling family called anything, its reference points wherever."""
    times = usl_times(0.25, 0.0, [1, 2], noise=0.01)
    ceiling = usl_times(0.05, 0.0, [1, 2], noise=0.01)
    decl = efficiency(over="threads", against="ceiling")
    points = {"threads": {"case": "loop", "variant": "threads",
                          "backend": "cython"}}
    benchmarks = [(work(n), values) for n, values in times.items()]
    benchmarks += [(dims("machine", "loop", "threads", "cython", threads=n),
                    values, {"extra": {
                        "gilbench_reference": json.dumps(points)}})
                   for n, values in ceiling.items()]
    write_result(tmp_path, "py311.json", "3.11.7", benchmarks,
                 extra={FINDINGS_KEY: json.dumps(
                     [finding("vs ceiling?", decl, at={"threads": 2})])})
    results = loader.load_results([str(tmp_path)])
    assert results[0].references == {"machine": points}
    found = questions.findings_table(results, ["syn"]).rows[0].answers[0]
    assert found.value == pytest.approx(1.6 / (2 / 1.05), rel=1e-3)


def test_a_best_of_efficiency_names_the_worst_scaler(tmp_path):
    """best(of=efficiency(...)): the case whose efficiency against the
    ceiling is lowest, by its margin below the runner-up."""
    ceiling = usl_times(0.0, 0.0, [1, 2], noise=0.01)  # 2.00x at 2
    benchmarks = []
    for case, s in (("good", 0.0), ("fair", 0.25), ("poor", 1.0)):
        for n, values in usl_times(s, 0.0, [1, 2], noise=0.01).items():
            benchmarks.append((dims("syn", case, "v", "python", threads=n),
                               values))
    for n, values in ceiling.items():
        benchmarks.append((work(n, family="ceiling"), values))
    worst = best(over="case", of=efficiency(over="threads",
                                            against="ceiling"),
                 pick="lowest")
    first = best(over="case", of=efficiency(over="threads",
                                            against="ceiling"),
                 pick="highest")
    write_result(tmp_path, "py311.json", "3.11.7", benchmarks,
                 cpus_usable=8, extra={FINDINGS_KEY: json.dumps([
                     finding("worst?", worst, at={"threads": 2}),
                     finding("best?", first, at={"threads": 2})])})
    results = loader.load_results([str(tmp_path)])
    low, high = [row.answers[0] for row in
                 questions.findings_table(results, ["syn"]).rows]
    # efficiencies 1.00, 0.80 and 0.50: poor is 1.60x below fair.
    assert low.winner == "poor" and plain(low.text) == "poor, 1.60x below"
    assert low.significant is True
    assert high.winner == "good" and plain(high.text) == "good, 1.25x ahead"


def test_a_best_of_refuses_a_cell_it_cannot_rank():
    from gilbench.errors import UsageError
    with pytest.raises(UsageError, match="efficiency"):
        best(over="case", of=scaling(over="threads"))


def test_peaks_of_many_draws_are_each_draws_peak():
    """The peak's interval draws thousands of (s, k): peak_of takes them
    as arrays, each peak as peak_of gives it alone."""
    s = numpy.array([0.0, 0.5, 0.999, 0.2, 0.9])
    k = numpy.array([0.01, 0.0, 0.001, 1.0, 0.0001])
    drawn = scalability.peak_of(s, k)
    assert list(drawn) == [scalability.peak_of(a, b) for a, b in zip(s, k)]
    assert drawn[1] == math.inf and drawn[3] == 1.0
    assert drawn[0] == pytest.approx(10.0)
