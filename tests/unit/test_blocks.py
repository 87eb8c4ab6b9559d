"""Blocks (gilbench.runner.blocks): partners kept together in a fresh
random order, and every run of a block said in its metadata."""
import random

import pyperf

from gilbench.model.resultformat import BLOCK_KEY
from gilbench.runner import blocks


def test_answers_that_share_a_benchmark_are_one_group_of_partners():
    groups = blocks.partner_groups([["a", "b"], ["b", "c"], ["d", "e"],
                                    ["f"]])
    assert sorted(sorted(g) for g in groups) == [
        ["a", "b", "c"], ["d", "e"], ["f"]]


def test_a_group_stays_together_in_a_fresh_order():
    random.seed(7)
    items = list(range(12))
    orders = set()
    for _ in range(20):
        order = blocks.grouped(items, lambda i: i % 3)
        assert sorted(order) == items
        # Each group's members are next to each other.
        for start in range(0, 12, 4):
            assert len({i % 3 for i in order[start:start + 4]}) == 1
        orders.add(tuple(order))
    assert len(orders) > 10


def test_every_run_of_a_file_says_its_block(tmp_path):
    path = str(tmp_path / "one.json")
    runs = [pyperf.Run([1.0, 1.1], metadata={"name": "x", "loops": 4},
                       collect_metadata=False) for _ in range(2)]
    pyperf.Benchmark(runs).dump(path)
    blocks.tag(path, blocks.named("abcd", "1"))
    loaded = pyperf.Benchmark.load(path)
    assert [run.get_metadata()[BLOCK_KEY] for run in loaded.get_runs()] \
        == ["abcd.1", "abcd.1"]
    assert loaded.get_values() == (1.0, 1.1, 1.0, 1.1)
    assert blocks.token() != blocks.token()
