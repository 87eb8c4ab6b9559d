"""``report --format json`` against its documented schema
(docs/report-schema.json), and ``compare``'s changed answers."""
import json
import os
import sys

import pytest
from helpers import ROOT, gil, run_harness, write_matrix, write_result

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

jsonschema = pytest.importorskip("jsonschema")

from gilbench.model.findings import finding  # noqa: E402
from gilbench.model.resultformat import FINDINGS_KEY  # noqa: E402
from gilbench.model.tables import best, ratio  # noqa: E402
from gilbench.report.commands import compare, compare_answers  # noqa: E402
from gilbench.report.data import loader  # noqa: E402
from gilbench.report.data.records import Cell  # noqa: E402
from gilbench.report.pages import render  # noqa: E402

with open(os.path.join(ROOT, "docs", "report-schema.json")) as stream:
    SCHEMA = json.load(stream)
SLOWDOWN = ratio(over="variant", numerator="nogil", denominator="gil")
QUESTION = "nogil over gil, 1 thread?"


def spread(mean, rsd=0.01, count=6):
    return [mean * (1 + rsd * (2.0 * i / (count - 1) - 1))
            for i in range(count)]


def write_sides(directory, nogil_mean, name="py311.json"):
    """One file whose finding reads nogil/gil = nogil_mean / 1 us."""
    write_result(directory, name, "3.11.7", [
        (gil("trivial", "gil", "cython", 1),
         [spread(1e-6), spread(1.01e-6, 0.02)]),
        (gil("trivial", "nogil", "cython", 1),
         [spread(nogil_mean), spread(nogil_mean * 1.01, 0.02)])],
        missing=[(gil("trivial", "nogil", "cffi", 1), "failed: exit code 1")],
        tables=[], extra={FINDINGS_KEY: json.dumps([
            finding(QUESTION, SLOWDOWN,
                    at={"backend": "cython", "threads": 1}),
            finding("through cffi?", SLOWDOWN,
                    at={"backend": "cffi", "threads": 1}),
            finding("fastest?", best(over="variant"),
                    at={"backend": "cython", "threads": 1})])})
    return directory / name


def test_the_report_as_json_validates_and_is_stable(tmp_path):
    write_matrix(tmp_path / "matrix", ["py311", "py313t"])
    results = loader.load_results([str(tmp_path / "matrix")])
    text = render.render(results, "json")
    assert render.render(loader.load_results([str(tmp_path / "matrix")]),
                         "json") == text
    document = json.loads(text)
    jsonschema.validate(document, SCHEMA)
    assert document["interpreters"] == ["CPython 3.11", "CPython 3.13t"]
    cells = [c for t in document["tables"] for r in t["rows"]
             for c in r["cells"]]
    assert any(c["interval"] for c in cells)


def test_findings_in_json_carry_their_interval_and_verdict(tmp_path):
    path = write_sides(tmp_path, 2e-6)
    document = json.loads(render.render(loader.load_results([str(path)]),
                                        "json"))
    jsonschema.validate(document, SCHEMA)
    (answer,) = [f for f in document["findings"]
                 if f["question"] == QUESTION][0]["answers"]
    assert answer["interpreter"] == "CPython 3.11"
    assert answer["value"] == pytest.approx(2.0)
    assert answer["interval"][0] < 2.0 < answer["interval"][1]
    assert answer["significant"] is True and answer["reason"] is None
    (failed,) = [f for f in document["findings"]
                 if f["question"] == "through cffi?"][0]["answers"]
    assert failed["reason"].startswith("failed: exit code 1")
    assert failed["value"] is None and failed["interval"] is None


@pytest.mark.e2e
def test_report_writes_json_by_its_suffix(tmp_path):
    path = write_sides(tmp_path / "r", 2e-6)
    out = tmp_path / "report.json"
    done = run_harness("report", path, "-o", out)
    assert done.code == 0, done
    jsonschema.validate(json.loads(out.read_text()), SCHEMA)


def test_compare_lists_the_answers_that_changed(tmp_path):
    before = write_sides(tmp_path / "before", 2e-6)
    after = write_sides(tmp_path / "after", 0.5e-6)
    result = compare.compare([str(before)], [str(after)])
    (changed,) = [c for c in result.answers if c.question == QUESTION]
    assert changed.why == "above 1 -> below 1"
    assert changed.pair == "CPython 3.11"
    fastest = [c for c in result.answers if c.question == "fastest?"]
    assert [c.why for c in fastest] == ["gil -> nogil"]
    assert "Answers changed: 2 of the 3 findings" in " ".join(result.intro)
    document = json.loads(compare.render_comparison(result, "json"))
    jsonschema.validate(document, SCHEMA)
    assert compare_answers.TITLE in [t["title"] for t in document["tables"]]


def test_an_unchanged_answer_is_not_listed(tmp_path):
    before = write_sides(tmp_path / "before", 2e-6)
    again = write_sides(tmp_path / "again", 2.02e-6)
    result = compare.compare([str(before)], [str(again)])
    assert result.answers == []
    assert compare_answers.TITLE not in [t.title for t in result.tables]


@pytest.mark.parametrize("kind, base, changed, why", [
    ("ratio", Cell("", 1.5, interval=(1.2, 1.8), significant=True),
     Cell("", 1.1, interval=(0.9, 1.3), significant=False),
     "above 1 -> undecided"),
    ("ratio", Cell("", 1.5, interval=(1.2, 1.8), significant=True),
     Cell("n/a: not run", missing=True), "above 1 -> n/a"),
    ("value", Cell("", 1.0, interval=(0.9, 1.1)),
     Cell("", 2.0, interval=(1.8, 2.2)), "intervals apart"),
    ("value", Cell("", 1.0, interval=(0.9, 1.1)),
     Cell("", 1.05, interval=(1.0, 1.1)), None),
    ("best", Cell("spin, 1.50x ahead", significant=True, winner="spin"),
     Cell("mutex, 1.40x ahead", significant=True, winner="mutex"),
     "spin -> mutex"),
])
def test_what_counts_as_a_changed_answer(kind, base, changed, why):
    assert compare_answers.why_changed(kind, base, changed) == why


def test_a_repeated_question_pairs_with_its_own_asking():
    """timeit asks "... efficiency against this machine's ceiling?" after
    each count's speedup: the k-th asking pairs with the other side's
    k-th, not with the last (a file compared with itself then read its
    2-thread answer against its 3-thread one)."""
    from types import SimpleNamespace
    rows = [SimpleNamespace(family="timeit", question=q) for q in (
        "Speedup at 2 threads?", "... efficiency?", "Speedup at 3 threads?",
        "... efficiency?")]
    assert compare_answers._keys(rows) == [
        ("timeit", "Speedup at 2 threads?", 0),
        ("timeit", "... efficiency?", 0),
        ("timeit", "Speedup at 3 threads?", 0),
        ("timeit", "... efficiency?", 1)]
