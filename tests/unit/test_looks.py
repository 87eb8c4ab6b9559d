"""What a benchmark's measurement cost reaches the report: an answer's
cost one hover away (HTML) and in the JSON answers, and an interval
widened for the decision looks an adaptive run took (Bonferroni)."""
import json
import math
import os
import sys

import pytest
from helpers import ROOT, gil, write_result

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

from gilbench.model.findings import finding  # noqa: E402
from gilbench.model.resultformat import (  # noqa: E402
    DECISION_LOOKS_KEY,
    FINDINGS_KEY,
    LOOKS_KEY,
    STOPPED_KEY,
)
from gilbench.model.tables import ratio  # noqa: E402
from gilbench.report.data import loader  # noqa: E402
from gilbench.report.numbers import intervals  # noqa: E402
from gilbench.report.pages import render  # noqa: E402
from gilbench.report.tables import pivot, questions  # noqa: E402

SLOWDOWN = ratio(over="variant", numerator="nogil", denominator="gil")


def _file(tmp_path, looks=1, decision_looks=1, stopped="narrow",
          processes=2):
    cost = {LOOKS_KEY: looks, DECISION_LOOKS_KEY: decision_looks,
            STOPPED_KEY: stopped}
    runs = [[1e-6 * (1 + 0.01 * i), 1.01e-6 * (1 + 0.01 * i)]
            for i in range(processes)]
    return write_result(tmp_path, "py311.json", "3.11.7", [
        (gil("trivial", "gil", "cython", 1), runs),
        (gil("trivial", "nogil", "cython", 1),
         [[v * 1.08 for v in run] for run in runs])],
        tables=[], extra=dict(cost, **{FINDINGS_KEY: json.dumps([
            finding("nogil over gil?", SLOWDOWN,
                    at={"backend": "cython", "threads": 1})])}))


def _answer(path, resampler=None):
    results = loader.load_results([str(path)])
    with intervals.resampling(resampler or intervals.Resampler()):
        table = questions.findings_table(results,
                                         pivot.family_order(results))
    return table.rows[0].answers[0]


def test_one_look_is_not_widened_and_more_are_as_bonferroni_asks():
    assert intervals.looks_factor(1) == 1.0
    assert intervals.looks_factor(2) == pytest.approx(2.2414 / 1.9600,
                                                      rel=1e-3)
    assert intervals.looks_factor(5) == pytest.approx(2.5758 / 1.9600,
                                                      rel=1e-3)


def test_an_answer_stopped_by_its_finding_has_a_wider_interval(tmp_path):
    once = _answer(_file(tmp_path / "a"))
    looked = _answer(_file(tmp_path / "b", looks=4, decision_looks=4,
                           stopped="decided"))
    uncorrected = _answer(_file(tmp_path / "c", looks=4, decision_looks=4,
                                stopped="decided"),
                          intervals.Resampler(correct_looks=False))

    def width(cell):  # on the log scale the draws are widened on
        return math.log(cell.interval[1] / cell.interval[0])
    assert width(looked) == pytest.approx(
        width(once) * intervals.looks_factor(4), rel=0.05)
    assert width(uncorrected) == pytest.approx(width(once), rel=0.02)
    # Looks that only narrowed the spread (no finding kept it going)
    # need no correction.
    narrowed = _answer(_file(tmp_path / "d", looks=4, decision_looks=1))
    assert width(narrowed) == pytest.approx(width(once), rel=0.02)


def test_an_answer_says_what_it_cost(tmp_path):
    found = _answer(_file(tmp_path, looks=3, decision_looks=2,
                          stopped="decided", processes=6))
    assert found.cost == {"seconds": 0.0, "looks": 3, "decision_looks": 2,
                          "processes": [6, 6], "values": [2, 2],
                          "stopped": ["decided"]}
    said = questions.cost_wording(found.cost)
    assert said == ("6 worker processes x 2 values, 3 looks; stopped: "
                    "decided; interval widened for 2 decision looks")
    assert found.note == "(up to 6 processes)"


def test_the_cost_is_one_hover_away_and_in_the_json(tmp_path):
    import jsonschema
    path = _file(tmp_path, looks=2, decision_looks=1, stopped="narrow",
                 processes=4)
    results = loader.load_results([str(path)])
    page = render.render(results, "html")
    assert "4 worker processes x 2 values, 2 looks; stopped: narrow" in page
    document = json.loads(render.render(results, "json"))
    with open(os.path.join(ROOT, "docs", "report-schema.json")) as stream:
        jsonschema.validate(document, json.load(stream))
    cost = document["findings"][0]["answers"][0]["cost"]
    assert cost["looks"] == 2 and cost["stopped"] == ["narrow"]
    # ... and never as words in the text formats' cells.
    assert "stopped: narrow" not in render.render(results, "md")


def test_a_file_from_before_the_design_reads_as_one_fixed_look(tmp_path):
    path = write_result(tmp_path, "py311.json", "3.11.7", tables=[])
    record = loader.load_results([str(path)])[0].records[0]
    assert (record.looks, record.decision_looks, record.stopped) == (
        1, 1, None)
    assert questions.cost([record])["stopped"] == ["fixed"]


def _ratio_file(tmp_path, factor, disturbed):
    """nogil/gil = ``factor``; with ``disturbed`` one process of nogil
    measured 20 times faster (its processes disagree), or with
    ``"both ways"`` one half as slow again and the other twice as fast
    (they disagree about the same mean)."""
    runs = [[1e-6, 1.001e-6], [1.002e-6, 1.001e-6]]
    nogil = [[v * factor for v in run] for run in runs]
    if disturbed == "both ways":
        nogil = [[v * 1.5 for v in nogil[0]], [v / 2 for v in nogil[1]]]
    elif disturbed:
        nogil[1] = [v / 20 for v in nogil[1]]
    return write_result(tmp_path, "py311.json", "3.11.7", [
        (gil("trivial", "gil", "cython", 1), runs),
        (gil("trivial", "nogil", "cython", 1), nogil)],
        tables=[], extra={FINDINGS_KEY: json.dumps([
            finding("nogil over gil?", SLOWDOWN,
                    at={"backend": "cython", "threads": 1})])})


@pytest.mark.parametrize("factor, disturbed, opened, unsure, cannot", [
    (1.5, False, 0, 0, 0),  # decided: above
    (1.5, True, 2, 0, 0),   # more processes may decide: both sides asked
    (1.03, False, 0, 0, 0),  # decided: the same within the margin
    # Two processes that disagree this much tell neither: more may.
    (1.03, "both ways", 2, 0, 0)])
def test_the_judge_names_what_more_processes_may_decide(
        tmp_path, factor, disturbed, opened, unsure, cannot):
    from gilbench.report.commands import judge
    results = loader.load_results([str(_ratio_file(tmp_path, factor,
                                                   disturbed))])
    said = judge.verdict(results)
    assert len(said["open"]) == opened
    assert len(said["unsure"]) == unsure
    assert set(said["open"] + said["unsure"]) <= {
        r.name for r in results[0].records}
    assert said["cannot"] == cannot
    assert said["undecided"] == (1 if disturbed else 0)


def test_the_judge_names_a_best_ofs_two_leaders_only(tmp_path):
    """A best-of's margin is its winner over its runner-up: the judge
    names those two as the partners a run measures side by side, and as
    what more processes may decide; a third candidate far behind reads
    into neither."""
    from gilbench.model.tables import best
    from gilbench.report.commands import judge
    runs = [[1e-6, 1.001e-6], [1.002e-6, 1.001e-6]]
    close = [[1.1e-6, 1.1e-6], [0.95e-6, 0.96e-6]]  # its processes split
    far = [[v * 3 for v in run] for run in runs]
    path = write_result(tmp_path, "py311.json", "3.11.7", [
        (gil("trivial", "gil", "cython", 1), runs),
        (gil("trivial", "gil", "cffi", 1), close),
        (gil("trivial", "gil", "python", 1), far)],
        tables=[], extra={FINDINGS_KEY: json.dumps([
            finding("fastest backend?", best("backend"),
                    at={"variant": "gil", "threads": 1})])})
    results = loader.load_results([str(path)])
    names = dict((r.dims["backend"], r.name) for r in results[0].records)
    said = judge.verdict(results)
    assert said["partners"] == [sorted([names["cython"], names["cffi"]])]
    assert said["undecided"] == 1
    assert set(said["open"]) == {names["cython"], names["cffi"]}


def _judged(tmp_path, nogil_runs, precision=None):
    """(the answer, the judge's verdict) of released over held at one
    thread, held's three processes steady, released's ``nogil_runs``."""
    from gilbench.report.commands import judge
    gil_runs = [[1e-6, 1.001e-6], [1.001e-6, 1.002e-6], [1.0e-6, 1.001e-6]]
    path = write_result(tmp_path, "py311.json", "3.11.7", [
        (gil("trivial", "gil", "cython", 1), gil_runs),
        (gil("trivial", "nogil", "cython", 1), nogil_runs)],
        tables=[], extra={FINDINGS_KEY: json.dumps([
            finding("released over held?", SLOWDOWN, at={"threads": 1},
                    precision=precision)])})
    results = loader.load_results([str(path)])
    cell = questions.findings_table(
        results, pivot.family_order(results)).rows[0].answers[0]
    return cell, judge.verdict(results)


def test_the_judge_names_no_partners_for_an_answer_already_settled(tmp_path):
    """After the second block the judge names, as partners to measure
    side by side, what an undecided answer reads, and what a decided one
    reads while its interval is wider than its margin both ways; an
    answer decided within (1 + margin)^2 (high over low) is settled and
    costs no duets."""
    def said(nogil_runs):
        return _judged(tmp_path, nogil_runs)

    tight = [[2e-6, 2.001e-6], [2.002e-6, 2.001e-6], [2.0e-6, 2.003e-6]]
    cell, verdict = said(tight)
    assert cell.significant and cell.interval[1] / cell.interval[0] < 1.21
    assert verdict["partners"] == [] and verdict["undecided"] == 0
    # Decided as well, 2x away from 1, but its processes scatter widely:
    # its duets would narrow it, so the judge names its two.
    scattered = [[1.5e-6, 1.5e-6], [2.8e-6, 2.8e-6], [2.0e-6, 2.0e-6]]
    cell, verdict = said(scattered)
    assert cell.significant and cell.interval[1] / cell.interval[0] > 1.21
    assert len(verdict["partners"]) == 1
    assert verdict["undecided"] == 0


def test_the_judge_measures_a_decided_answer_until_its_declared_precision(
        tmp_path):
    """A finding others are read against (the machine's ceiling) declares
    a precision: decided but wider than that share of its point either
    way, its benchmarks stay open (not counted undecided); within it, or
    without the declaration, they do not."""
    def said(nogil_runs, precision):
        return _judged(tmp_path, nogil_runs, precision)

    loose = [[1.9e-6, 1.9e-6], [2.1e-6, 2.1e-6], [2.0e-6, 2.0e-6]]
    cell, verdict = said(loose, 0.02)
    assert cell.significant and cell.interval[1] / cell.value > 1.02
    assert len(verdict["open"]) == 2 and verdict["undecided"] == 0
    assert said(loose, None)[1]["open"] == []
    tight = [[2e-6, 2.001e-6], [2.002e-6, 2.001e-6], [2.0e-6, 2.003e-6]]
    cell, verdict = said(tight, 0.02)
    assert cell.interval[1] / cell.value < 1.02
    assert verdict["open"] == []
