"""Findings (gilbench.model.findings, gilbench.report.tables.questions):
declared questions answered per interpreter with intervals, first on
every page; the best-of cell; twins across drivers; significance from
the values."""
import json
import os
import re
import sys

import numpy
import pytest
from helpers import FIXTURES, dims, plain, run_harness, write_result

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

from gilbench.errors import UsageError  # noqa: E402
from gilbench.model import registry
from gilbench.model.findings import finding  # noqa: E402
from gilbench.model.resultformat import FINDINGS_KEY, ORDER_KEY  # noqa: E402
from gilbench.model.tables import (  # noqa: E402
    best,
    crossover,
    ratio,
    speedup,
    table,
    throughput,
)
from gilbench.report.data import loader
from gilbench.report.pages import render  # noqa: E402
from gilbench.report.tables import pivot
from gilbench.report.tables import questions as findings

USER_MODULE = os.path.join(FIXTURES, "finding_cases.py")
SLOWDOWN = ratio(over="variant", numerator="nogil", denominator="gil")


def spread(mean, rsd, count=6):
    """``count`` values evenly spread +-rsd around ``mean``."""
    return [mean * (1 + rsd * (2.0 * i / (count - 1) - 1))
            for i in range(count)]


def answers(tmp_path, declarations, benchmarks, **kwargs):
    """{question: answer Cell} for one CPython 3.11 file."""
    write_result(tmp_path, "py311.json", "3.11.7", benchmarks, tables=[],
                 extra={FINDINGS_KEY: json.dumps(declarations)}, **kwargs)
    results = loader.load_results([str(tmp_path)])
    found = findings.findings_table(results, pivot.family_order(results))
    return {row.question: row.answers[0] for row in found.rows}


def call(variant, threads=1, **more):
    return dims("syn", "call", variant, "cython", threads=threads, **more)


# -- significance from the values --------------------------------------------

@pytest.mark.e2e
def test_a_difference_within_the_noise_is_not_significant(tmp_path):
    question = "nogil/gil?"
    cell = answers(tmp_path, [finding(question, SLOWDOWN)],
                   [(call("gil"), spread(1.00e-6, 0.12)),
                    (call("nogil"), spread(1.02e-6, 0.12))])[question]
    low, high = cell.interval
    assert low < 1.0 < high
    assert cell.significant is False and "?" in cell.flags
    assert plain(cell.text) == "1.02x"
    assert cell.text == "1.02x [%s-%s]" % tuple(
        re.findall(r"\[(\S+)-(\S+)\]", cell.text)[0])


@pytest.mark.e2e
def test_a_clear_difference_is_significant(tmp_path):
    question = "nogil/gil?"
    cell = answers(tmp_path, [finding(question, SLOWDOWN)],
                   [(call("gil"), spread(1.0e-6, 0.05)),
                    (call("nogil"), spread(3.0e-6, 0.05))])[question]
    # One process each: the values' scatter, as Student's t at 5 degrees
    # of freedom asks (about +-4.5% on the ratio).
    assert 2.8 < cell.interval[0] < 2.95 and 3.05 < cell.interval[1] < 3.2
    assert cell.significant is True and "?" not in cell.flags


@pytest.mark.e2e
def test_one_value_each_cannot_be_called_significant(tmp_path):
    question = "nogil/gil?"
    cell = answers(tmp_path, [finding(question, SLOWDOWN)],
                   [(call("gil"), [1e-6]), (call("nogil"), [3e-6])])[question]
    assert cell.interval is None and cell.significant is False
    assert cell.display == "3.00x ?"


def test_an_answer_below_a_hundredth_is_two_digits_in_the_matrix(tmp_path):
    # PyPy's cffi against Cython reads 0.00576x: its cell keeps to the
    # width of 13.70x (#65), its interval keeps three digits.
    question = "nogil/gil?"
    cell = answers(tmp_path, [finding(question, SLOWDOWN)],
                   [(call("gil"), spread(1.0e-6, 0.01)),
                    (call("nogil"), spread(5.76e-9, 0.01))])[question]
    assert cell.brief == "0.0058x"
    assert re.match(r"0\.00576x \[0\.005\d\d-0\.005\d\d\]$", cell.text), \
        cell.text


def test_intervals_are_the_same_on_every_render(tmp_path):
    write_result(tmp_path, "py311.json", "3.11.7",
                 [(call("gil"), spread(1.0e-6, 0.1)),
                  (call("nogil"), spread(1.5e-6, 0.1))],
                 tables=[table("t", rows="threads", cell=SLOWDOWN)])
    first = render.render(loader.load_results([str(tmp_path)]), "rst")
    again = render.render(loader.load_results([str(tmp_path)]), "rst")
    assert first == again and re.search(r"1\.50 \[[\d.]+-[\d.]+\]", first)


# -- the point a finding is computed at ---------------------------------------

@pytest.mark.e2e
def test_the_point_is_completed_where_the_benchmarks_agree(tmp_path):
    question = "slowdown at 2 threads?"
    found = answers(
        tmp_path, [finding(question, SLOWDOWN, at={"threads": 2}),
                   finding("which size?", SLOWDOWN)],
        [(call("gil", 2, size=10), spread(1e-6, 0.01)),
         (call("nogil", 2, size=10), spread(2e-6, 0.01)),
         (call("gil", 1, size=10), spread(1e-6, 0.01)),
         (call("nogil", 1, size=10), spread(4e-6, 0.01))])
    assert plain(found[question].text) == "2.00x"  # size=10: one value
    assert found["which size?"].text == "n/a: ambiguous, name threads"


def test_a_finding_never_compares_interpreters():
    with pytest.raises(UsageError, match="comparison of interpreters"):
        finding("2.7 vs 3.11?", ratio(over="interpreter", numerator="a",
                                      denominator="b"))
    with pytest.raises(UsageError, match="cell must be"):
        finding("what?", {"kind": "nonsense"})


def test_the_registry_refuses_a_finding_naming_no_axis(tmp_path):
    module = tmp_path / "typo_cases.py"
    module.write_text(
        "from gilbench.api import CaseSpec, finding, ratio, threads\n"
        "CASES = [CaseSpec('typo', 'c', 'v', 'python', lambda p: None,\n"
        "                  'x', axes=[threads()])]\n"
        "FINDINGS = [finding('q?', ratio(over='variant', numerator='a',\n"
        "                    denominator='b'), at={'thraeds': 2})]\n")
    with pytest.raises(UsageError, match="finding 'q\\?' names thraeds"):
        registry.load_specs([str(module)])


def test_a_precision_is_a_share_at_most_the_margin():
    assert finding("q?", SLOWDOWN, precision=0.02)["precision"] == 0.02
    assert "precision" not in finding("q?", SLOWDOWN)  # older files' shape
    for wrong in (0, 0.2):
        with pytest.raises(UsageError, match="precision must be above 0"):
            finding("q?", SLOWDOWN, precision=wrong)


# -- a contrast: the same question at another value of a dimension ----------

def test_a_contrast_names_another_value_of_a_dimension_at_names():
    with pytest.raises(UsageError, match="another value of a dimension at "
                       "names \\(argument\\)"):
        finding("q?", SLOWDOWN, contrast={"argument": "shared"})
    with pytest.raises(UsageError, match="\\(argument\\)"):
        finding("q?", SLOWDOWN, at={"argument": "own"},
                contrast={"argument": "own"})
    declared = finding("q?", SLOWDOWN, at={"argument": "own"},
                       contrast={"argument": "shared"})
    assert declared["contrast"] == {"argument": "shared"}
    assert "contrast" not in finding("q?", SLOWDOWN)  # older files' shape


def _contrasted(tmp_path, shared_nogil):
    """The answer at argument=own (nogil/gil 1.00) of a finding contrasting
    argument=shared, where shared's nogil takes ``shared_nogil``."""
    question = "nogil/gil, own argument?"
    found = answers(
        tmp_path, [finding(question, SLOWDOWN, at={"argument": "own"},
                           contrast={"argument": "shared"})],
        [(call("gil", argument="own"), spread(1.0e-6, 0.02)),
         (call("nogil", argument="own"), spread(1.0e-6, 0.02)),
         (call("gil", argument="shared"), spread(1.0e-6, 0.02)),
         (call("nogil", argument="shared"), spread(shared_nogil, 0.02))])
    return found[question]


def test_an_answer_differing_at_its_contrast_gives_both(tmp_path):
    cell = _contrasted(tmp_path, 3.0e-6)
    # The answer is still at ``at``: the same within the margin.
    assert plain(cell.text) == "1.00x, the same within 2%"
    assert cell.same is not None and "=" in cell.flags
    assert re.match(r"^\(argument=own: 1\.00x; differs from "
                    r"argument=shared: 3\.00x \[[\d.]+-[\d.]+\]\)$",
                    cell.note), cell.note
    assert cell.display.startswith(cell.text + " (argument=own")


def test_an_answer_within_reach_of_its_contrast_has_no_note(tmp_path):
    cell = _contrasted(tmp_path, 1.02e-6)
    assert cell.note == "" and plain(cell.text).startswith("1.00x")


def test_two_intervals_are_apart_only_when_they_do_not_overlap():
    assert findings.apart((0.8, 1.1), (0.4, 0.7))
    assert not findings.apart((0.8, 1.1), (0.4, 0.85))
    assert not findings.apart((0.8, 1.1), None)


# -- best-of -----------------------------------------------------------------

def kind(name, threads=1):
    return dims("syn", "lock", "nogil", "cython", threads=threads, kind=name)


@pytest.mark.e2e
def test_best_of_names_the_winner_and_its_margin(tmp_path):
    decl = best(over="kind", among=["mutex", "spin"])
    found = answers(tmp_path, [finding("cheapest?", decl),
                               finding("dearest?", best(over="kind",
                                                        pick="highest"))],
                    [(kind("none"), spread(0.5e-6, 0.01)),
                     (kind("mutex"), spread(1.0e-6, 0.01)),
                     (kind("spin"), spread(1.5e-6, 0.01))])
    cheapest = found["cheapest?"]
    # "none" is left out by `among`; spin / mutex = 1.5.
    assert plain(cheapest.text) == "mutex, 1.50x ahead"
    assert cheapest.significant is True
    # One process each, values within +-1%: the margin's interval is
    # tight around 1.5 and names no tie.
    assert 1.45 < cheapest.interval[0] < 1.5 < cheapest.interval[1] < 1.55
    assert cheapest.same is None
    assert plain(found["dearest?"].text) == "spin, 1.50x the next"


@pytest.mark.e2e
def test_best_of_is_not_significant_when_the_runner_up_overlaps(tmp_path):
    cell = answers(tmp_path, [finding("cheapest?", best(over="kind"))],
                   [(kind("mutex"), spread(1.00e-6, 0.1)),
                    (kind("spin"), spread(1.01e-6, 0.1))])["cheapest?"]
    assert cell.significant is False and "?" in cell.flags
    assert cell.interval[0] <= 1.0


def test_best_of_throughput_and_as_a_table_cell(tmp_path):
    declared = table("fastest", rows="threads", cell=best(
        over="kind", of=throughput("ops"), pick="highest"))
    write_result(tmp_path, "py311.json", "3.11.7",
                 [(kind("mutex"), spread(1.0e-6, 0.01)),
                  (kind("spin"), spread(2.0e-6, 0.01))], tables=[declared])
    (shown,) = pivot.all_tables(loader.load_results([str(tmp_path)]))[:-4]
    assert plain(shown.rows[0][1].display) == "mutex, 2.00x ahead of spin"
    assert shown.rows[0][1].value is None  # a margin is not plotted


# -- twins across drivers, and missing twins ----------------------------------

def by_driver(variant, count, driver):
    axis = "threads" if driver == "threads" else "processes"
    return (dims("hash", "digest", variant, "python", **{axis: count}),
            spread(1e-6 * (2 if variant == "threads" else 1), 0.01),
            {"driver": driver})


@pytest.mark.e2e
def test_a_ratio_pairs_threads_and_processes_by_their_count(tmp_path):
    question = "threads over processes, 2 each?"
    decl = finding(question, ratio(over="variant", numerator="threads",
                                   denominator="processes"),
                   at={"threads": 2})
    found = answers(tmp_path, [decl],
                    [by_driver("threads", 2, "threads"),
                     by_driver("processes", 2, "processes"),
                     by_driver("processes", 1, "processes")])
    assert plain(found[question].text) == "2.00x"


@pytest.mark.e2e
def test_a_missing_twin_is_named_never_not_run(tmp_path):
    question = "threads over processes, 2 each?"
    decl = finding(question, ratio(over="variant", numerator="threads",
                                   denominator="processes"),
                   at={"threads": 2})
    found = answers(tmp_path, [decl], [by_driver("threads", 2, "threads"),
                                       by_driver("processes", 1,
                                                 "processes")])
    assert found[question].text == "n/a: no variant=processes benchmark"


# -- crossovers that rise, with intervals -------------------------------------

@pytest.mark.e2e
def test_a_rising_crossover_with_its_interval(tmp_path):
    decl = crossover(along="write_frac", over="variant", numerator="grwl",
                     denominator="gil", fallback={"write_frac": 0.0},
                     rises=True)
    rows = [(dims("g", "core", "gil", "c", threads=2, write_frac=0.0),
             spread(1e-6, 0.02))]
    for frac, ratio_ in ((0.0, 0.5), (0.001, 0.8), (0.01, 2.0)):
        rows.append((dims("g", "core", "grwl", "c", threads=2,
                          write_frac=frac), spread(ratio_ * 1e-6, 0.02)))
    question = "from which write fraction does the GRWL lose?"
    cell = answers(tmp_path, [finding(question, decl)], rows)[question]
    # gil/grwl falls through 1 between 0.001 (1.25) and 0.01 (0.5), a
    # third of the way: log-interpolated, 0.001 * 10 ** (1/3).
    assert cell.value == pytest.approx(0.001 * 10 ** (1 / 3))
    assert cell.interval[0] < cell.value < cell.interval[1]


# -- built-in families and a user's family, end to end ------------------------

def test_the_built_in_families_declare_the_seed_questions():
    found = [(spec.family, declared) for spec, declared
             in registry.load_specs(None)]
    per_family = {}
    for family, declared in found:
        per_family[family] = declared.findings
    assert sum(len(f) for f in per_family.values()) >= 15
    assert set(per_family) >= {"gil", "lock", "executor", "grwl", "service"}
    assert all(per_family.values())


@pytest.fixture(scope="module")
def user_run(tmp_path_factory):
    directory = tmp_path_factory.mktemp("user")
    output = directory / "user.json"
    result = run_harness("run", "--module", USER_MODULE, "-p", "1", "-n",
                         "3", "-w", "0", "-l", "1", "-o", output,
                         timeout=300)
    assert result.code == 0, result
    return output


@pytest.mark.e2e
def test_a_user_module_declares_findings_that_open_every_page(user_run,
                                                              tmp_path):
    for suffix in ("rst", "md", "html"):
        out = tmp_path / ("report." + suffix)
        result = run_harness("report", user_run, "-o", out)
        assert result.code == 0, result
        text = out.read_text(encoding="utf-8")
        first_table = min(text.find("Digest time"),
                          text.find("Threads over processes"))
        assert -1 < text.find("Findings") < first_table
        assert "Threads over processes, sha256, 2 of each?" in text
        assert "Fastest algorithm, 1 thread?" in text
    results = loader.load_results([str(user_run)])
    found = findings.findings_table(results, pivot.family_order(results))
    pairing, fastest = [row.answers[0] for row in found.rows]
    # The threads case is divided by its processes twin at the same count
    # (a run this small may be too noisy for an answer, and says so).
    assert re.match(r"(\d\.\d\dx|too noisy to tell) \[[\d.]+-[\d.]+\]$",
                    pairing.text), pairing
    assert re.match(r"((sha256|md5), \d\.\d\dx ahead|too noisy to tell) \[",
                    fastest.text), fastest
    assert pivot.family_order(results) == ["hashing"]
    assert results[0].order == {"hashing": 1}


def test_family_order_follows_order_then_name(tmp_path):
    for family, order in (("b", 5), ("a", None), ("c", 1)):
        extra = {} if order is None else {ORDER_KEY: order}
        write_result(tmp_path, "%s.json" % family, "3.11.7",
                     [(dims(family, "x", "v", "py", threads=1), [1e-6])],
                     tables=[], extra=extra)
        results = loader.load_results([str(tmp_path / ("%s.json" % family))])
        assert results[0].order == ({family: order} if order else {})
    results = []
    for family in "abc":
        results += loader.load_results([str(tmp_path / ("%s.json" % family))])
    assert pivot.family_order(results) == ["c", "b", "a"]


def test_old_results_without_findings_render_without_the_section(tmp_path):
    write_result(tmp_path, "py311.json", "3.11.7",
                 [(call("gil"), spread(1e-6, 0.01)),
                  (call("nogil"), spread(2e-6, 0.01))],
                 tables=[table("t", rows="threads", cell=SLOWDOWN)])
    text = render.render(loader.load_results([str(tmp_path)]), "rst")
    assert "Findings" not in text and render.rst_problems(text) == ""


@pytest.mark.e2e
def test_speedup_finding_and_its_baseline(tmp_path):
    question = "interp over serial?"
    decl = finding(question, speedup(over="method", baseline="serial"),
                   at={"method": "interp"})
    cell = answers(tmp_path, [decl], [
        (dims("ex", "batch", "p", "py", method="serial"), spread(4e-3, .01)),
        (dims("ex", "batch", "p", "py", method="interp"), spread(1e-3, .01))],
    )[question]
    assert plain(cell.text) == "4.00x" and cell.significant is True


def test_intervals_hold_the_processes_spread():
    """Two processes that disagree widen the interval of the mean to
    about their span and beyond (Student's t at 1 degree of freedom);
    values that agree leave nothing to draw."""
    from gilbench.report.data.records import Record
    from gilbench.report.numbers import intervals
    runs = ((1.0, 1.01, 0.99), (2.0, 2.01, 1.99))
    flat = sum(runs, ())
    split = Record("x", {"family": "x"}, mean=1.5, values=flat,
                   run_values=runs)
    low, high = intervals.bounds(intervals.Resampler().means(split))
    assert low < 1.0 and high > 2.0
    steady = ((1.0, 1.0, 1.0), (1.0, 1.0, 1.0))
    same = Record("y", {"family": "y"}, mean=1.0, values=sum(steady, ()),
                  run_values=steady)
    assert intervals.Resampler().means(same).std() == 0.0


def test_a_mean_read_alone_draws_as_in_a_ratio():
    """intervals.alone: the blocks' shifts are in every draw (shared by
    the benchmarks of a block), so alone is SHARED's draws."""
    from gilbench.model.resultformat import INTERPRETER
    from gilbench.report.data.records import Record
    from gilbench.report.numbers import intervals
    runs = ((1.0, 1.02), (1.05, 1.03))
    one = Record("one", {"family": "x", INTERPRETER: "CPython 3.11"},
                 mean=1.025, values=sum(runs, ()), run_values=runs)
    assert intervals.alone(one) == pytest.approx(intervals.SHARED.means(one))


def test_two_files_benchmarks_of_one_name_draw_independently():
    """compare's two sides hold the same name and label: their draws must
    not be the same normal numbers (their ratio's interval would shrink
    to the difference of their spreads); the same values draw the same
    numbers, so a re-render prints the same interval."""
    from gilbench.model.resultformat import INTERPRETER
    from gilbench.report.data.records import Record
    from gilbench.report.numbers import intervals
    at = {"family": "x", INTERPRETER: "CPython 3.11"}
    base = ((1.0, 1.02), (1.1, 1.12))
    changed = ((2.0, 2.02), (2.3, 2.32))
    first, second = (Record("same", at, mean=sum(sum(r, ())) / 4,
                            values=sum(r, ()), run_values=r)
                     for r in (base, changed))
    draws = [numpy.log(intervals.Resampler().means(r)) for r in
             (first, second)]
    standard = [(d - d.mean()) / d.std() for d in draws]
    assert abs(numpy.corrcoef(*standard)[0, 1]) < 0.1
    again = numpy.log(intervals.Resampler().means(first))
    assert (again == draws[0]).all()


@pytest.mark.parametrize("runs, split", [
    # Two modes, each process steady: the processes measured two things.
    (((1.0, 1.01, 0.99), (2.0, 2.01, 1.99)), True),
    (((1.0, 1.01), (1.2, 1.21), (1.0, 0.99), (1.21, 1.2)), True),
    # Apart by less than SPLIT_RATIO, however steady: one thing.
    (((1.0, 1.001, 0.999), (1.05, 1.051, 1.049)), False),
    # Apart, but within what each process's own scatter gives.
    (((1.0, 1.5, 0.7), (1.3, 0.9, 1.6)), False),
    # One process, or one value each: nothing to tell a mode by.
    (((1.0, 1.01, 0.99),), False),
    (((1.0,), (2.0,)), False),
    # Constant within each process, apart: split (no scatter at all).
    (((1.0, 1.0), (2.0, 2.0)), True),
])
def test_processes_split_when_they_disagree_beyond_their_scatter(runs,
                                                                 split):
    from gilbench.report.data.records import Record
    from gilbench.report.numbers import cells
    record = Record("x", {"family": "x"}, mean=1.0, values=sum(runs, ()),
                    run_values=runs)
    assert record.split is split
    assert (cells.SPLIT_MARK in cells.flags(record)) is split


def test_a_recorded_count_that_can_be_zero_gets_an_interval():
    from gilbench.report.data.records import Record
    from gilbench.report.numbers import intervals
    record = Record("z", {"family": "z"}, mean=0.25)
    low, high = intervals.bounds(
        intervals.Resampler().means(record, (0, 0, 1, 0)))
    assert low < 0.25 < high


# -- what cannot be answered here ---------------------------------------------

@pytest.mark.e2e
def test_a_question_about_more_threads_than_cpus_says_so(tmp_path):
    asked = "nogil/gil at 4 threads?"
    meant = "nogil/gil oversubscribed?"
    found = answers(tmp_path, [
        finding(asked, SLOWDOWN, at={"threads": 4}),
        finding(meant, SLOWDOWN, at={"threads": 4}, oversubscribed=True)],
        [(call("gil", threads=4), spread(1.0e-6, 0.01)),
         (call("nogil", threads=4), spread(2.0e-6, 0.01))], cpus_usable=2)
    assert found[asked].text == ("n/a: the question reads 4 workers at "
                                 "once; this machine has 2 usable CPUs")
    assert found[meant].text.startswith("2.00x [")


@pytest.mark.e2e
def test_a_best_of_with_a_failed_member_names_the_failure(tmp_path):
    question = "fastest variant?"
    cell = answers(tmp_path, [finding(question, best(over="variant"))],
                   [(call("gil"), spread(1.0e-6, 0.01)),
                    (call("nogil"), spread(2.0e-6, 0.01))],
                   missing=[(call("spin"), "failed: worker killed by "
                             "SIGSEGV")])[question]
    assert cell.missing and cell.text == "failed: worker killed by SIGSEGV"


def test_a_best_of_whose_rival_is_na_is_na_with_its_reason(tmp_path):
    question = "fairer of gil and nogil?"
    reason = "n/a: PyMutex is public from CPython 3.13 (this is 3.11)"
    cell = answers(tmp_path, [finding(question, best(
        over="variant", among=["gil", "nogil"]))],
        [(call("gil"), spread(1.0e-6, 0.01))],
        missing=[(call("nogil"), reason)])[question]
    assert cell.missing and cell.text == reason
    # With no rival declared or recorded at all, the one measured wins
    # nothing either way.
    alone = answers(tmp_path / "alone", [finding(question, best(
        over="variant"))], [(call("gil"), spread(1.0e-6, 0.01))])[question]
    assert alone.text == "gil (only one measured)"


def test_a_best_of_inside_the_margin_is_a_tie(tmp_path):
    question = "fastest variant?"
    cell = answers(tmp_path, [finding(question, best(over="variant"))],
                   [(call("gil"), spread(1.00e-6, 0.002, count=8)),
                    (call("nogil"), spread(1.02e-6, 0.002, count=8))]
                   )[question]
    assert cell.same is not None and not cell.significant
    assert plain(cell.text).startswith("gil and nogil tied (within ")
    assert cell.brief == "tied" and "=" in cell.flags


@pytest.mark.e2e
def test_a_user_family_reading_the_ceiling_measures_it_too(tmp_path):
    module = os.path.join(FIXTURES, "ceiling_user_cases.py")
    output = tmp_path / "mine.json"
    made = run_harness("run", "-o", output, "--module", module,
                       "--threads", "1,2", "-p", "1", "-n", "2", "-w", "0",
                       "--min-time", "0.002")
    assert made.code == 0, made
    results = loader.load_results([str(output)])
    families = {r.dims["family"] for r in results[0].records}
    assert families == {"usersum", "ceiling"}
    (row,) = findings.findings_table(results, ["usersum"]).rows
    answer = row.answers[0]
    assert not answer.missing, answer
    assert re.match(r"(\d\.\d\d|too noisy to tell) \[", answer.text), answer


def test_splits_judged_at_once_are_judged_as_one_by_one():
    """Many benchmarks' splits are judged in one scipy call per shape
    (processes x values); each answer is the one judged alone."""
    from gilbench.report.numbers import intervals
    generator = numpy.random.default_rng(7)
    many = []
    for shape in [(2, 2), (3, 3, 3), (2, 2, 5, 5), (4,), (1, 1)] * 6:
        modes = generator.choice([1.0, 1.3], size=len(shape))
        many.append(tuple(
            tuple(mode * (1 + 0.02 * generator.standard_normal(n)))
            for mode, n in zip(modes, shape)))
    intervals._SPLITS.clear()
    intervals.judge_splits(many)
    at_once = [intervals.processes_split(groups) for groups in many]
    alone = []
    for groups in many:
        intervals._SPLITS.clear()
        alone.append(intervals.processes_split(groups))
    assert at_once == alone
    assert 0 < sum(at_once) < len(many)
