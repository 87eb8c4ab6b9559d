import pytest

from gilbench.errors import UsageError
from gilbench.model import axes


def test_threads_axis_parses_lists_and_ranges_in_a_fixed_order():
    axis = axes.threads()
    assert axis.parse("1-5") == [1, 2, 3, 4, 5]
    assert axis.parse("4,1,2") == [1, 2, 4]
    assert axis.parse("1,4-8") == [1, 4, 5, 6, 7, 8]
    assert axis.parse(" 2 , 2 ") == [2]


@pytest.mark.parametrize("text, message", [
    ("", "empty value"), ("1,", "empty value"), ("x", "whole number"),
    ("0", "below 1"), ("1025", "above 1024"), ("5-2", "backwards"),
    ("1.5", "whole number"), ("-1", "below 1"),
])
def test_threads_axis_refuses(text, message):
    with pytest.raises(UsageError, match=message):
        axes.threads().parse(text)


def test_closed_axis_keeps_declaration_order_and_knows_what_it_declares():
    axis = axes.Axis("cs_ns", [0, 100, 1000], quick=[0, 100], unit="ns",
                     log=True)
    assert axis.parse("1000,0") == [0, 1000]
    assert axis.declares(100) and not axis.declares(50)
    assert axis.profile(quick=True) == [0, 100]
    assert axis.profile(quick=False) == [0, 100, 1000]
    assert axis.describe() == {
        "name": "cs_ns", "type": "int", "values": [0, 100, 1000],
        "quick": [0, 100], "extra": [], "unit": "ns", "log": True,
        "open": False}


def test_extra_values_run_only_when_named():
    axis = axes.Axis("workers", [1, 4], quick=[1], extra=[8, 16])
    assert axis.profile(quick=False) == [1, 4]
    assert axis.declares(16) and not axis.declares(2)
    assert axis.parse("16,1") == [1, 16]


def test_float_and_str_axes():
    assert axes.Axis("p", [0.0, 0.001, 0.1]).parse("0.1,0.001") == [0.001,
                                                                    0.1]
    assert axes.Axis("kind", ["spin", "mutex"]).parse("mutex") == ["mutex"]
    assert axes.format_value(0.001) == "0.001"


@pytest.mark.parametrize("args, kwargs, message", [
    (("Bad", [1]), {}, "lower-case"),
    (("k", []), {}, "no values"),
    (("k", [1, "a"]), {}, "must all be int"),
    (("k", [True]), {}, "must all be int"),
    (("k", [1, 2]), {"quick": [3]}, "quick values"),
    (("k", [1, 1]), {}, "repeats"),
    (("k", ["a b"]), {}, "letters"),
    (("k", [float("inf")]), {}, "not finite"),
])
def test_bad_axis_declarations(args, kwargs, message):
    with pytest.raises(UsageError, match=message):
        axes.Axis(*args, **kwargs)
