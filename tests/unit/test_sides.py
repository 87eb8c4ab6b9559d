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
