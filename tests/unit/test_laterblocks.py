"""The first look's later blocks (gilbench.runner.laterblocks): the
pairs an open answer divides measured as duets, on a store
that measures from a model."""
from types import SimpleNamespace

import pytest
from test_rounds import DuetStore

from gilbench.model import design as designs
from gilbench.runner import judging, laterblocks

CLOCK = SimpleNamespace(note=lambda: None)
ARGS = SimpleNamespace(quiet=True, timeout=600.0)


class Names(object):
    """A judge that says every answer reads ``partners``."""

    failed = None

    def __init__(self, partners):
        self.partners = partners
        self.asked = 0

    def __call__(self, path):
        self.asked += 1
        return judging.Verdict((), 0, 0, (), (), self.partners)


def _first_block(models, **kwargs):
    store = DuetStore(models, **kwargs)
    for index in store.runs:  # block 1 alone, as the run measured it
        store.runs[index] = store.runs[index][:1]
    wanted = dict((index, designs.Design().first(None))
                  for index in store.runs)
    return store, wanted


MODELS = {"gil.a/t1": (1e-6, 0.1, 0.001), "gil.a/t2": (1e-6, 0.1, 0.001),
          "gil.b/t1": (1e-6, 0.1, 0.001), "gil.c/t1": (1e-6, 0.1, 0.001),
          "gil.d/t1": (1e-6, 0.1, 0.001)}


def test_each_pair_an_answer_divides_gets_its_duets():
    store, wanted = _first_block(MODELS)
    # A speedup (a/t1, a/t2), a ratio (a/t1 over b/t1) and an efficiency
    # whose four names hold one case at two threads: a/t1 is in two
    # pairs, d/t1 in none.
    judge = Names([["gil.a/t1", "gil.a/t2"], ["gil.a/t1", "gil.b/t1"],
                   ["gil.a/t1", "gil.a/t2", "gil.c/t1", "gil.b/t1"]])
    laterblocks.later(store, wanted, judge, CLOCK, ARGS)
    asked = sorted(store.duets_asked)
    # Each pair is its family's only one of its shape: no prior can lend
    # it a spread, so it gets LONE_PASSES duets.
    passes = laterblocks.LONE_PASSES
    assert asked == sorted([["gil.a/t1", "gil.a/t2"]] * passes
                           + [["gil.a/t1", "gil.b/t1"]] * passes)
    counts = dict((b.name, len(store.runs[i]))
                  for i, b in enumerate(store.benchmarks))
    # Blocks 1 and 2 alone, as the first look measures every benchmark,
    # then a duet per pair and pass; c/t1 (no pair of its case in the
    # efficiency's names) and d/t1 are in none.
    assert counts == {"gil.a/t1": 2 + 2 * passes, "gil.a/t2": 2 + passes,
                      "gil.b/t1": 2 + passes, "gil.c/t1": 2, "gil.d/t1": 2}
    # Each duet is a block of its own, shared by its two alone.
    duets = set(store.blocks[0]) & set(store.blocks[2]) - {"test.2"}
    assert len(duets) == passes
    assert all(".d" in block for block in duets)
    assert not duets & set(store.blocks[1])
    assert store.blocks[3] == store.blocks[4] == ["test.2"]


def test_without_a_judge_or_apart_every_benchmark_is_alone():
    for judge, duets in ((None, True), (Names([["gil.a/t1", "gil.a/t2"]]),
                                        False)):
        store, wanted = _first_block(MODELS)
        store.duets = duets  # run --apart: False
        laterblocks.later(store, wanted, judge, CLOCK, ARGS)
        assert not store.duets_asked
        assert all(len(runs) == 2 for runs in store.runs.values())


def test_a_failed_duet_is_not_tried_again():
    store, wanted = _first_block(MODELS, fails="gil.a/t2")
    laterblocks.later(store, wanted, Names([["gil.a/t1", "gil.a/t2"]]),
                      CLOCK, ARGS)
    assert store.duets_asked == [["gil.a/t1", "gil.a/t2"]]
    assert all(len(runs) == 2 for runs in store.runs.values())


def test_a_custom_driver_is_never_in_a_duet():
    store, wanted = _first_block(MODELS, driver="custom")
    laterblocks.later(store, wanted, Names([["gil.a/t1", "gil.a/t2"]]),
                      CLOCK, ARGS)
    assert not store.duets_asked
    assert all(len(runs) == 2 for runs in store.runs.values())


def test_pairs_of_a_shape_their_family_shares_get_fewer_duets():
    # Three ratios at 1 thread share their shape: the family's prior
    # lends each a spread from DUET_PASSES duets.  The one speedup (1 and
    # 2 threads) has no such pairs beside it, and gets LONE_PASSES.
    models = dict((name, (1e-6, 0.1, 0.001)) for name in (
        "gil.a/t1", "gil.b/t1", "gil.c/t1", "gil.d/t1", "gil.e/t1",
        "gil.f/t1", "gil.a/t2"))
    store, wanted = _first_block(models)
    judge = Names([["gil.a/t1", "gil.b/t1"], ["gil.c/t1", "gil.d/t1"],
                   ["gil.e/t1", "gil.f/t1"], ["gil.a/t1", "gil.a/t2"]])
    laterblocks.later(store, wanted, judge, CLOCK, ARGS)
    asked = [tuple(names) for names in store.duets_asked]
    assert laterblocks.DUET_PASSES < laterblocks.LONE_PASSES
    for pair in (("gil.a/t1", "gil.b/t1"), ("gil.c/t1", "gil.d/t1"),
                 ("gil.e/t1", "gil.f/t1")):
        assert asked.count(pair) == laterblocks.DUET_PASSES
    assert asked.count(("gil.a/t1", "gil.a/t2")) == laterblocks.LONE_PASSES


def test_the_judge_names_the_pairs_after_the_second_block():
    """A best-of's two leaders are named from two processes of each
    candidate, not one: the judge reads the store once block 2 is in,
    before any duet."""
    store, wanted = _first_block(MODELS)
    seen = []

    class Counting(Names):
        def __call__(self, path):
            seen.append(sorted(len(runs) for runs in store.runs.values()))
            return Names.__call__(self, path)

    judge = Counting([["gil.a/t1", "gil.a/t2"]])
    laterblocks.later(store, wanted, judge, CLOCK, ARGS)
    assert judge.asked == 1
    assert seen == [[2] * len(MODELS)]
    assert store.duets_asked


def test_a_duet_measures_more_values_than_the_look_alone():
    # A pair's log ratio varies from duet to duet by about what its
    # values' scatter within the duet gives: more values, a narrower one.
    store, wanted = _first_block(MODELS)
    laterblocks.later(store, wanted, Names([["gil.a/t1", "gil.a/t2"]]),
                      CLOCK, ARGS)
    assert max(sizing.values for sizing in wanted.values()) < (
        laterblocks.DUET_VALUES)
    assert store.values_asked
    assert set(store.values_asked) == {laterblocks.DUET_VALUES}


def test_duets_the_second_block_chose_are_one_decision_look_more():
    """The judge after the second block chose which pairs get duets: a
    benchmark in one gets one decision look more (the report widens its
    interval for it), once however many duets it holds, and their seconds
    still price its first look; a benchmark in none keeps one look."""
    store, wanted = _first_block(MODELS)
    judge = Names([["gil.a/t1", "gil.a/t2"], ["gil.a/t1", "gil.b/t1"]])
    laterblocks.later(store, wanted, judge, CLOCK, ARGS)
    states = dict((b.name, store.state(i))
                  for i, b in enumerate(store.benchmarks))
    for name in ("gil.a/t1", "gil.a/t2", "gil.b/t1"):
        assert states[name]["looks"] == 2
        assert states[name]["decision_looks"] == 2
    # a/t1's second block alone and its 2 pairs x LONE_PASSES duets are
    # each priced with the first look.
    duets = 2 * laterblocks.LONE_PASSES
    assert states["gil.a/t1"]["first_seconds"] == pytest.approx(
        (1 + duets) * store.duration)
    assert states["gil.d/t1"].get("decision_looks", 1) == 1
