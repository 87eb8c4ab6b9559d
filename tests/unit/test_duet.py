"""A duet (gilbench.measure.duet): two benchmarks in one worker process,
their values alternating, each run's facts its own."""
import pyperf
import pytest

from gilbench.measure import duet, record
from gilbench.model.resultformat import PARTNER_KEY


class Timed(object):
    """A time function that says when it was called and records a fact
    and a per-value number, as a case's does."""

    def __init__(self, name, wall, calls):
        self.name = name
        self.wall = wall
        self.calls = calls
        self.closed = False

    def __call__(self, loops):
        self.calls.append(self.name)
        record.record_facts(who=self.name)
        record.record_per_value(share=len(self.calls))
        return self.wall * loops

    def close(self):
        self.closed = True


def test_partners_alternate_and_keep_their_own_facts(tmp_path):
    calls = []
    own_run = {}
    record.set_sink(own_run)
    pair = duet.Duet(Timed("own", 2e-6, calls), Timed("partner", 5e-6, calls),
                     loops=1000)
    pair.record_facts(worker_start="fork")
    walls = [pair(100) for _ in range(4)]
    # A B, B A, A B, B A: neither always goes first.
    assert calls == ["own", "partner", "partner", "own",
                     "own", "partner", "partner", "own"]
    assert walls == pytest.approx([2e-4] * 4)  # pyperf times its own only
    record.settle(3)
    assert own_run["who"] == "own"
    assert own_run["share"] == (4 + 5 + 8) / 3.0  # its values', not B's
    # (Without pyperf's own metadata: collecting it starts processes.)
    run = pair.run(1, {"name": "b", "unit": "second"}, collect=False)
    assert run.warmups == ((1000, pytest.approx(5e-6)),)
    assert run.values == pytest.approx((5e-6,) * 3)
    meta = run.get_metadata()
    assert meta["who"] == "partner" and meta["loops"] == 1000
    assert meta["worker_start"] == "fork"
    path = str(tmp_path / "partner.json")
    pair.write(path, 1, {"name": "b", "unit": "second"}, "a",
               collect=False)
    kept = pyperf.Benchmark.load(path)
    assert kept.get_name() == "b"
    assert kept.get_runs()[0].get_metadata()[PARTNER_KEY] == "a"
    pair.close()
    assert pair.own.closed and pair.partner.closed
    record.set_sink(None)
