"""Two revisions in one run (gilbench continuous): the revision axis the
registry gives the named case modules, and the report side reading one
file as two sides (compare --sides)."""
import os
import sys

import pytest
from helpers import FIXTURES

from gilbench.errors import UsageError
from gilbench.model import registry, revisions

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

CASES = os.path.join(FIXTURES, "fake_cases.py")


def _axes(monkeypatch, modules):
    monkeypatch.setenv(revisions.ENVIRONMENT, revisions.encode(
        [("base", "/b"), ("head", "/h")], modules))
    for name, module in list(sys.modules.items()):  # imported afresh
        if getattr(module, "__file__", None) == CASES:
            del sys.modules[name]
    found = registry.load_specs([CASES])
    return [[axis.name for axis in spec.axes] for spec, _ in found]


def test_the_named_case_modules_get_the_revision_axis_once(monkeypatch):
    named = _axes(monkeypatch, [CASES])
    assert all(axes[-1] == revisions.AXIS for axes in named)
    again = registry.load_specs([CASES])  # a module is imported once
    assert [[a.name for a in s.axes] for s, _ in again] == named
    assert revisions.path_of({revisions.AXIS: "head"}) == "/h"
    assert revisions.path_of({}) is None


def test_other_modules_keep_their_axes(monkeypatch):
    for axes in _axes(monkeypatch, ["some.other.module"]):
        assert revisions.AXIS not in axes


@pytest.mark.parametrize("text", ["revision", "revision=a", "revision=a,a",
                                  "=a,b"])
def test_sides_are_two_values_of_one_dimension(text):
    from gilbench.report.data import sides
    with pytest.raises(UsageError) as raised:
        sides.parse(text)
    assert "DIM=BASE,CHANGED" in str(raised.value)


def test_a_side_that_was_not_measured_is_named():
    from gilbench.report.data import sides
    from gilbench.report.data.records import Record, ResultFile
    result = ResultFile("r.json", "CPython 3.11", (3, 11), [
        Record("x", {"family": "f", "revision": "base"}),
        Record("c", {"family": "ceiling"})], {}, {"f": {"revision": {}}})
    with pytest.raises(UsageError) as raised:
        sides.split(result, "revision", "base", "head")
    assert str(raised.value) == ("r.json has no benchmark whose revision is "
                                 "head (it has: base)")
    base, = sides.each_side([result], "revision")
    assert base is result  # one value: nothing to split
    result.records.append(Record("x", {"family": "f", "revision": "head"}))
    base, head = sides.each_side([result], "revision")
    assert [r.dims for r in head.records] == [{"family": "ceiling"},
                                              {"family": "f"}]
    assert base.axes == {"f": {}}


@pytest.mark.parametrize("args", [["a.json"], ["a.json", "b.json", "--sides",
                                               "revision=base,head"]])
def test_compare_takes_changed_or_sides(args):
    from gilbench.report.commands import compare
    with pytest.raises(UsageError) as raised:
        compare.main(args)
    assert "give CHANGED, or --sides DIM=BASE,CHANGED" in str(raised.value)


def test_one_revisions_undecided_answer_opens_both_revisions():
    """Rounds measure a benchmark's revisions in the same blocks: the
    judge opens both where one revision's answer is undecided."""
    from gilbench.report.commands import judge
    from gilbench.report.data.records import Record, ResultFile
    base = Record("x[revision=base]", {"family": "f", "case": "c",
                                       "revision": "base"})
    head = Record("x[revision=head]", {"family": "f", "case": "c",
                                       "revision": "head"})
    other = Record("y", {"family": "f", "case": "d"})
    twins = judge._revision_twins([ResultFile(
        "r.json", "CPython 3.11", (3, 11), [base, head, other], {}, {})])
    assert twins[base.name] == twins[head.name] == [base, head]
    assert other.name not in twins


@pytest.mark.parametrize("kind, moved, changed_missing, fails", [
    ("efficiency", (0.60, (0.55, 0.66)), False, True),
    ("efficiency", (0.85, (0.80, 0.92)), False, False),  # within 10%
    ("speedup", (1.40, (1.30, 1.50)), False, False),  # a rise is listed
    ("ratio", (1.38, (1.10, 1.74)), False, False),  # not a scaling answer
    ("ratio", None, True, True),  # became n/a: the head broke it
])
def test_the_check_fails_on_scaling_that_fell_or_broke(kind, moved,
                                                       changed_missing,
                                                       fails):
    from gilbench.report.commands import compare_answers
    from gilbench.report.data.records import Cell
    base = Cell("", 0.9, interval=(0.8, 1.0))
    changed = (Cell("n/a: failed", missing=True) if changed_missing
               else Cell("", 0.5, interval=(0.45, 0.55)))
    found = compare_answers.ChangedAnswer(
        "f", "q?", "CPython 3.11", base, changed, "why", 0.1, kind, moved)
    assert compare_answers.stopped_scaling(found) is fails


@pytest.mark.parametrize("base_flags, changed_flags, low, high, fails", [
    ("", "", 0.52, 0.90, True),  # the change's shared draws decide
    ("", "#", 0.52, 0.90, False),  # the two intervals overlap: listed
    ("", "#", 0.50, 0.62, True),  # every process slower: apart, fails
    ("#", "", 0.52, 0.90, True),  # the base split: the draws decide
    ("#", "#", 0.52, 0.90, True),
])
def test_where_only_the_changed_sides_processes_split_each_interval_decides(
        base_flags, changed_flags, low, high, fails):
    """The one A/A false alarm of bench/continuous_aa.py: the head's
    processes fell into two modes (a GIL convoy in some), the base's not,
    and the efficiency's change, from shared draws of one mode a side,
    read 0.70x [0.59-0.83].  A head that holds the GIL may split too (a
    slower phase of the machine in some processes), its whole interval
    below the base's."""
    from gilbench.report.commands import compare_answers
    from gilbench.report.data.records import Cell
    found = compare_answers.ChangedAnswer(
        "f", "q?", "CPython 3.11",
        Cell("", 0.93, interval=(0.88, 1.0), flags=base_flags),
        Cell("", 0.65, interval=(low, high), flags=changed_flags),
        "moved", 0.1, "efficiency", (0.70, (0.59, 0.83)))
    assert compare_answers.stopped_scaling(found) is fails


@pytest.mark.parametrize("kind, base_flags, changed_flags, moved, blind", [
    ("efficiency", "", "!", (0.97, (0.85, 1.10)), True),
    ("speedup", "!", "", (1.02, (0.90, 1.15)), True),
    ("efficiency", "", "", (0.97, (0.85, 1.10)), False),  # quiet: passes
    ("efficiency", "!", "!", (0.60, (0.55, 0.66)), False),  # fell: fails
    ("ratio", "!", "!", (1.00, (0.90, 1.10)), False),  # not scaling
])
def test_a_busy_side_leaves_a_scaling_answer_untold(kind, base_flags,
                                                    changed_flags, moved,
                                                    blind):
    """Beside other processes the ceiling cannot rise either: a head
    that holds the GIL reads as a base that scales (tests/e2e/
    test_continuous.py measures it), so the check cannot pass it."""
    from gilbench.report.commands import compare_answers
    from gilbench.report.data.records import Cell
    found = compare_answers.ChangedAnswer(
        "f", "q?", "CPython 3.11",
        Cell("", 0.95, interval=(0.85, 1.05), flags=base_flags),
        Cell("", 0.93, interval=(0.83, 1.03), flags=changed_flags),
        "unchanged", 0.1, kind, moved)
    assert compare_answers.cannot_tell(found) is blind


def test_the_ceiling_both_sides_share_is_no_answer_of_the_change():
    """compare --sides gives the ceiling's benchmarks, measured once for
    both revisions, to each side: busy or not, the change cannot move
    them."""
    from gilbench.report.commands import compare_answers
    from gilbench.report.data.records import Cell, Record
    ceiling = Record("ceiling.spin/t2", {"family": "ceiling"})
    work = [Record("w[revision=%s]" % side, {"family": "f"})
            for side in ("base", "head")]

    def answer(base_read, changed_read):
        return compare_answers.ChangedAnswer(
            "f", "q?", "CPython 3.11",
            Cell("", 1.2, interval=(0.7, 2.0), flags="!", read=base_read),
            Cell("", 1.2, interval=(0.7, 2.0), flags="!",
                 read=changed_read),
            "unchanged", 0.1, "speedup", (1.0, (1.0, 1.0)))
    shared = answer((ceiling,), (ceiling,))
    own = answer((work[0], ceiling), (work[1], ceiling))
    assert compare_answers.one_measurement(shared.base, shared.changed)
    assert not compare_answers.one_measurement(own.base, own.changed)
