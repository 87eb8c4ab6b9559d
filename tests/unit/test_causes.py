"""causes.diagnose names each cause from its signals, and names none
where they sit between waiting and running; tables.why asks only of
answers that fall short of the ceiling by more than the margin."""
import pytest

from gilbench.report.data.records import Cell
from gilbench.report.numbers import causes


def cell(value, low, high):
    significant = not low <= 1 <= high
    return Cell("%.2fx [%.2f-%.2f]" % (value, low, high), value,
                interval=(low, high), significant=significant)


def signals(**given):
    found = dict(count=2, axis="threads", speedup=cell(1.0, 0.95, 1.05),
                 ceiling=1.9, cpu_ratio=1.0, gil="enabled")
    found.update(given)
    return causes.Signals(**found)


@pytest.mark.parametrize("given, name, said", [
    ({"reenabled_by": ("legacy_ext",)}, causes.GIL_REENABLED,
     "re-enabled by importing legacy_ext"),
    ({}, causes.GIL_OR_LOCK, "1.00x the CPU of one"),
    ({"gil": "disabled"}, causes.LOCK, "no GIL stands between them"),
    ({"axis": "processes"}, causes.LOCK, "2 processes used"),
    ({"gil": "disabled", "cpu_ratio": 1.9,
      "sharing": cell(2.0, 1.7, 2.3)}, causes.SHARED,
     "shared objects take 2.00x"),
    # A shared object's lock makes its threads wait: still the object.
    ({"gil": "disabled", "cpu_ratio": 1.3,
      "sharing": cell(2.0, 1.7, 2.3)}, causes.SHARED, "at 2 threads"),
    ({"cpu_ratio": 1.8, "speedup": cell(1.1, 1.02, 1.2),
      "memory": cell(1.14, 1.03, 1.26)}, causes.MEMORY,
     "the memory ceiling gains 1.14x"),
    ({"cpu_ratio": 1.8, "speedup": cell(1.1, 1.02, 1.2)},
     causes.CONTENTION, "the GIL passed between them"),
    ({"cpu_ratio": 1.8, "gil": "disabled",
      "speedup": cell(1.1, 1.02, 1.2)}, causes.CONTENTION,
     "a spinning lock"),
    ({"cpu_ratio": 1.5}, causes.UNCLEAR, "between waiting and running"),
    ({"samples": {"gil": 0.4, "lock": 0.0, "samples": 200}}, causes.GIL,
     "holds the GIL: 2 threads used 1.00x the CPU of one; 40% of 200 "
     "samples waiting for the GIL"),
    ({"cpu_ratio": 1.5, "samples": {"gil": 0.3, "lock": 0.05,
                                    "samples": 200}}, causes.GIL,
     "waits for the GIL"),
    ({"cpu_ratio": 1.5, "samples": {"gil": 0.07, "lock": 0.28,
                                    "samples": 200}}, causes.LOCK,
     "28% on a lock"),
    ({"samples": {"gil": 0.2, "lock": 0.15, "samples": 200}},
     causes.UNCLEAR, "the signals disagree"),
    # Too few samples, or too few waiting: the CPU tells.
    ({"samples": {"gil": 0.4, "lock": 0.0, "samples": 20}},
     causes.GIL_OR_LOCK, "--why samples would tell which"),
    ({"samples_unavailable": "n/a: py-spy not found"}, causes.GIL_OR_LOCK,
     "(n/a: py-spy not found)"),
    ({"cpu_ratio": 1.8, "speedup": cell(1.1, 1.02, 1.2),
      "memory": cell(1.14, 1.03, 1.26),
      "samples": {"gil": 0.02, "lock": 0.0, "samples": 200}},
     causes.MEMORY, "memory-bound"),
    # Memory stalls in a short value: not waiting, within the memory
    # ceiling's reach.
    ({"cpu_ratio": 1.5, "gil": "disabled", "speedup": cell(1.1, 1.02, 1.2),
      "memory": cell(1.14, 1.03, 1.26)}, causes.MEMORY, "memory-bound"),
    ({"cpu_ratio": None}, causes.UNCLEAR, "no CPU time"),
])
def test_each_cause_from_its_signals(given, name, said):
    found = causes.diagnose(signals(**given))
    assert found.name == name and said in found.text, found


@pytest.mark.parametrize("speedup, memory", [
    # A memory ceiling as high as compute's tells nothing.
    (cell(1.1, 1.02, 1.2), cell(1.85, 1.7, 2.0)),
    # A trivial call gaining 0.3x where memory allows 1.16x: something
    # else holds it back.
    (cell(0.3, 0.23, 0.4), cell(1.16, 0.93, 1.47)),
    # A call gaining more than memory allows is not held back by it.
    (cell(1.6, 1.5, 1.7), cell(1.14, 1.03, 1.26)),
])
def test_a_call_not_reading_as_the_memory_ceiling_is_not_memory_bound(
        speedup, memory):
    found = causes.diagnose(signals(cpu_ratio=1.8, speedup=speedup,
                                    memory=memory))
    assert found.name == causes.CONTENTION


def test_sharing_within_the_margin_names_nothing_shared():
    found = causes.diagnose(signals(gil="disabled", cpu_ratio=1.9,
                                    speedup=cell(1.1, 1.02, 1.2),
                                    sharing=cell(1.05, 1.01, 1.09)))
    assert found.name == causes.CONTENTION


def test_every_name_is_listed_for_the_schema():
    import json
    import os
    schema = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir,
                          "docs", "report-schema.json")
    with open(schema) as stream:
        names = json.load(stream)["$defs"]["cause"]["properties"]["name"]
    assert set(names["enum"]) == set(causes.NAMES)


def test_an_answer_failed_by_an_import_that_reenabled_the_gil_names_it():
    from gilbench.measure import gilguard
    from gilbench.report.tables import why
    failed = Cell(gilguard.REENABLED + "legacy_ext, other", missing=True)
    found = why.finding_cause(failed, {"cell": {"kind": "efficiency"}},
                              None, None, None, {}, "enabled")
    assert found.name == causes.GIL_REENABLED
    assert found.text == ("the GIL is on: re-enabled by importing "
                          "legacy_ext, other")


def test_a_speedup_short_of_the_ceiling_that_may_yet_reach_it_says_so():
    """A "does not scale" answer whose speedup reads short of the ceiling
    but whose interval reaches within the margin of it names no cause,
    and says why (the main job's 3.15 "scales worst" winner did not)."""
    from gilbench.report.tables import why
    unsure = why.short_of_ceiling(0.81, (0.441, 1.44), 1.39, 0.10)
    assert unsure.name == causes.UNCLEAR
    assert unsure.text == ("no cause is named: the speedup, 0.81x "
                           "[0.441-1.44], may yet reach the ceiling's 1.39x "
                           "(within the 10% margin)")
    # Within the margin at its point: it may scale; no cause, no excuse.
    assert why.short_of_ceiling(1.3, (1.1, 1.5), 1.39, 0.10) is None
    # Short by its whole interval: scaling_cause names the cause.
    assert why.short_of_ceiling(0.5, (0.4, 0.6), 1.8, 0.10) is None
    assert why.short_of_ceiling(0.5, None, 1.8, 0.10) is None
