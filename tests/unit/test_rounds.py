"""The rounds (gilbench.runner.rounds) on a store that measures from a
model instead of running benchmarks: who gets more worker processes,
when the rounds end, what each benchmark's stop reason says, and the
looks a finding's decision counts."""
import math
import random
import re
import time
from types import SimpleNamespace

import pytest

from gilbench.model import design as designs
from gilbench.model import revisions
from gilbench.runner import judging, rounds, stores


def _run(values, loops=10, duration=0.01, foreign=0.0, round_=0):
    meta = {"loops": loops, "duration": duration, "foreign_cpu": foreign}
    if round_:
        meta["gilbench_round"] = round_
    return SimpleNamespace(values=list(values), warmups=[(loops, 1e-3)],
                           get_metadata=lambda: dict(meta))


class ModelStore(object):
    """Benchmarks whose worker processes draw their mean around ``mean``
    with a relative spread ``between`` and values around it with
    ``within``."""

    def __init__(self, models, seed=3, busy=False, duration=0.01):
        self.rng = random.Random(seed)
        self.models = models
        self.busy = busy
        self.duration = duration
        self.benchmarks = [SimpleNamespace(
            name=name, params={}, spec=SimpleNamespace(base_name=name))
            for name in models]
        self.runs = {}
        self.states = {}
        self.pending = {}
        self.stops = None
        self.rounds = 0
        self.snapshots = 0
        self.measured_in = []  # (round's attempt prefix, name) in order
        self.token = "test"
        self.duets = False
        self.no_duets = set()
        self.args = SimpleNamespace(timeout=600.0)
        self.processes_asked = []
        self.blocks = {}  # index: the blocks of its added processes
        for index, name in enumerate(models):
            self.runs[index] = [self._draw(name, 2) for _ in range(2)]

    def _draw(self, name, values, round_=0, foreign=0.0):
        mean, between, within = self.models[name]
        process = mean * math.exp(self.rng.gauss(0.0, between))
        return _run([process * math.exp(self.rng.gauss(0.0, within))
                     for _ in range(values)], duration=self.duration,
                    foreign=foreign, round_=round_)

    def measured(self):
        return dict(self.runs)

    def state(self, index):
        return self.states.get(index, {})

    def measure(self, index, processes, values, attempt):
        name = self.benchmarks[index].name
        self.measured_in.append((attempt, name))
        self.processes_asked.append(processes)
        new = [self._draw(name, values, foreign=0.9 if self.busy else 0.0)
               for _ in range(processes)]
        self.pending[index] = new
        return new, None

    def add(self, index, number, decided_by, block, look=True, first=None):
        self.runs[index] = self.runs[index] + self.pending.pop(index)
        self.blocks.setdefault(index, []).append(block)
        self.states[index] = stores._looked(self.state(index), decided_by,
                                            self.duration, look, first)

    def snapshot(self):
        self.snapshots += 1
        return "snapshot.json"

    def rounds_done(self):
        return self.rounds

    def round_done(self, number):
        self.rounds = number

    def finish(self, stops):
        self.stops = dict((self.benchmarks[i].name, why)
                          for i, why in stops.items())


class FakeJudge(object):
    """Says ``names`` are read by an undecided finding (``unsure`` by an
    unsure one) until each has ``until`` worker processes."""

    failed = None

    def __init__(self, store, names, until, unsure=()):
        self.store, self.names, self.until = store, names, until
        self.unsure = set(unsure)

    def _waiting(self, names):
        return [name for index, name in enumerate(
            b.name for b in self.store.benchmarks)
            if name in names and len(self.store.runs[index]) < self.until]

    def __call__(self, path):
        open_, unsure = self._waiting(self.names), self._waiting(self.unsure)
        return judging.Verdict(open_, len(open_) + len(unsure), 0, unsure,
                               [open_] if open_ else [])


def _processes(store, name):
    return len(store.runs[[b.name for b in store.benchmarks].index(name)])


def test_only_the_wide_benchmark_gets_more_processes():
    store = ModelStore({"quiet": (1e-6, 0.001, 0.001),
                        "split": (1e-6, 0.3, 0.001)})
    outcome = rounds.spend(store, designs.Design(), time.time() + 60)
    assert _processes(store, "quiet") == 2
    assert _processes(store, "split") > 2
    assert store.stops["quiet"] == designs.NARROW
    assert store.stops["split"] in (designs.NARROW, designs.LIMIT)
    assert outcome.rounds >= 1 and outcome.extended == {1}


def test_a_finding_keeps_a_narrow_benchmark_going_and_counts_its_looks():
    store = ModelStore({"asked": (1e-6, 0.001, 0.001),
                        "alone": (1e-6, 0.001, 0.001)})
    judge = FakeJudge(store, {"asked"}, until=6)
    rounds.spend(store, designs.Design(), time.time() + 60, judge)
    assert _processes(store, "asked") >= 6
    assert _processes(store, "alone") == 2
    assert store.stops == {"asked": designs.DECIDED,
                           "alone": designs.NARROW}
    asked = store.states[0]
    assert asked["decision_looks"] == asked["looks"] > 1
    assert store.snapshots >= 2  # judged after the first look and a round


def test_while_a_finding_waits_a_round_is_its_alone():
    store = ModelStore({"asked": (1e-6, 0.001, 0.001),
                        "split": (1e-6, 0.3, 0.001)})
    judge = FakeJudge(store, {"asked"}, until=6)
    rounds.spend(store, designs.Design(), time.time() + 60, judge)
    first_split = min(i for i, (_, name) in enumerate(store.measured_in)
                      if name == "split")
    asked = [attempt for attempt, name in store.measured_in[:first_split]]
    # 2 -> 4 -> 6 processes, a block each, then the rest.
    assert asked == ["r1.1.", "r1.2.", "r2.1.", "r2.2."]
    assert _processes(store, "split") > 2


def test_an_unsure_finding_waits_for_those_more_processes_may_decide():
    store = ModelStore({"unsure": (1e-6, 0.001, 0.001),
                        "sure": (1e-6, 0.001, 0.001),
                        "split": (1e-6, 0.3, 0.001)})
    judge = FakeJudge(store, {"sure"}, until=6, unsure={"unsure"})
    rounds.spend(store, designs.Design(), time.time() + 60, judge)
    order = [name for _, name in store.measured_in]
    # A process a block: 2 -> 4 -> 6 each, sure first.
    assert order[:8] == ["sure"] * 4 + ["unsure"] * 4
    assert order.index("split") == 8  # the spread's turn comes last
    # The unsure finding's looks are decision looks too.
    assert store.states[0]["decision_looks"] == store.states[0]["looks"] > 1
    assert store.stops["unsure"] == designs.DECIDED


def _on_a_clock(monkeypatch, store, seconds):
    """The rounds read a clock of their own, which each measurement of
    ``store`` moves on by ``seconds(processes)``: the clock ([now])."""
    clock = [1000.0]
    monkeypatch.setattr(rounds, "time", SimpleNamespace(
        time=lambda: clock[0]))
    measure = store.measure

    def timed(index, processes, values, attempt):
        clock[0] += seconds(processes)
        return measure(index, processes, values, attempt)
    store.measure = timed
    return clock


def _past_the_deadline_in_one_measurement(monkeypatch):
    """A store of one narrow benchmark whose every measurement takes 30 s
    of a clock the rounds read: (store, clock)."""
    store = ModelStore({"asked": (1e-6, 0.001, 0.001)})
    return store, _on_a_clock(monkeypatch, store, lambda processes: 30.0)


def test_what_a_finding_still_waited_on_stopped_for_the_budget(monkeypatch):
    store, clock = _past_the_deadline_in_one_measurement(monkeypatch)
    judge = FakeJudge(store, {"asked"}, until=1000)
    outcome = rounds.spend(store, designs.Design(), clock[0] + 10.0, judge)
    assert outcome.rounds == 1 and outcome.ended == "the budget is spent"
    # Narrow, but the last judgement still read it: not "narrow".
    assert store.stops == {"asked": designs.BUDGET}


def test_the_budget_ends_the_rounds_and_says_so():
    store = ModelStore({"split": (1e-6, 0.3, 0.001)}, duration=5.0)
    outcome = rounds.spend(store, designs.Design(), time.time() + 1.0)
    assert outcome.rounds == 0 and outcome.ended == "the budget is spent"
    assert store.stops == {"split": designs.BUDGET}


def test_a_busy_machine_ends_the_rounds_and_nothing_busy_is_kept():
    store = ModelStore({"split": (1e-6, 0.3, 0.001),
                        "other": (1e-6, 0.3, 0.001)}, busy=True)
    outcome = rounds.spend(store, designs.Design(), time.time() + 60)
    assert outcome.rounds == 1
    assert outcome.ended.startswith("the machine is busy")
    assert outcome.discarded == 4  # two blocks of both
    assert _processes(store, "split") == _processes(store, "other") == 2
    assert set(store.stops.values()) == {designs.BUSY}
    assert any("read busy" in line for line in outcome.lines(60, 1))


def test_no_benchmark_gets_more_than_the_most():
    store = ModelStore({"asked": (1e-6, 0.5, 0.001)})
    judge = FakeJudge(store, {"asked"}, until=1000)
    rounds.spend(store, designs.Design(), time.time() + 60, judge)
    assert _processes(store, "asked") == designs.MOST_PROCESSES
    assert store.stops == {"asked": designs.LIMIT}


def test_a_failed_judge_leaves_the_spread_to_decide():
    store = ModelStore({"quiet": (1e-6, 0.001, 0.001)})

    class Broken(object):
        failed = "no module named numpy"

        def __call__(self, path):
            return None
    outcome = rounds.spend(store, designs.Design(), time.time() + 60,
                           Broken())
    assert outcome.judge_failed == "no module named numpy"
    assert any("findings not judged" in line
               for line in outcome.lines(60, 1))
    assert store.stops == {"quiet": designs.NARROW}


def test_the_cheapest_answer_a_finding_waits_on_goes_first():
    store = ModelStore({"dear": (1e-6, 0.3, 0.001),
                        "cheap": (1e-6, 0.3, 0.001)})
    store.runs[0] = [_run(r.values, duration=3.0) for r in store.runs[0]]
    store.runs[1] = [_run(r.values, duration=0.01) for r in store.runs[1]]
    judge = FakeJudge(store, {"dear"}, until=4)
    steps, _ = rounds._wanted(store, designs.Design(),
                              {"dear": rounds.OPEN}, {})
    assert [step.index for step in steps] == [0, 1]  # the finding's first
    steps, _ = rounds._wanted(store, designs.Design(), {}, {})
    assert [step.index for step in steps] == [1, 0]  # then the cheapest
    assert judge  # (used by the other tests; here the order alone)


def test_the_interval_that_narrows_most_goes_first():
    # Two processes' interval counts their spread 42 times (Student's t
    # with 1 degree of freedom); eight processes' 1.4 times.  So two more
    # narrow the first far more, though the second's spread is larger.
    store = ModelStore({"two": (1e-6, 0.3, 0.001),
                        "eight": (1e-6, 0.3, 0.001)})
    store.runs[0] = [_run([1.00e-3] * 2, duration=1.0),
                     _run([1.02e-3] * 2, duration=1.0)]
    store.runs[1] = [_run([(1.0 + 0.2 * (i % 2)) * 1e-3] * 2)
                     for i in range(8)]
    steps, _ = rounds._wanted(store, designs.Design(), dict.fromkeys(
        ("two", "eight"), rounds.OPEN), {})
    assert [step.index for step in steps] == [0, 1]
    assert steps[0].cost > steps[1].cost  # not the cheapest first
    assert designs.between_processes(designs.logged(
        [r.values for r in store.runs[1]])) > 10 * \
        designs.between_processes(designs.logged(
            [r.values for r in store.runs[0]]))


def test_a_round_measures_in_blocks_of_one_process_each():
    store = ModelStore({"a": (1e-6, 0.3, 0.001), "b": (1e-6, 0.3, 0.001)})
    judge = FakeJudge(store, {"a", "b"}, until=4)
    rounds.spend(store, designs.Design(), time.time() + 60, judge)
    assert all(processes == 1 for processes in store.processes_asked)
    # Partners (one answer reads both) share each of round 1's blocks,
    # measured back to back; one look each round.
    assert store.blocks[0][:2] == store.blocks[1][:2] == [
        "test.r1.1.0", "test.r1.2.0"]
    order = [name for _, name in store.measured_in]
    assert sorted(order[:2]) == sorted(order[2:4]) == ["a", "b"]
    assert store.states[0]["looks"] == 1 + len(
        {block.split(".")[1] for block in store.blocks[0]})


def _revisions(store, case="fastsum.call"):
    """``store``'s benchmarks as one case's revisions (gilbench
    continuous), at the revision each name ends with."""
    for bench in store.benchmarks:
        if "-" not in bench.name:
            continue
        bench.params = {"threads": 2,
                        revisions.AXIS: bench.name.rsplit("-", 1)[1]}
        bench.spec = SimpleNamespace(base_name=case)


def test_a_benchmarks_revisions_get_one_step_together():
    # The base's processes agree; the head's disagree, which alone would
    # take one value each in more processes: both get the head's
    # processes, at the most values either wants, in the same blocks.
    store = ModelStore({"x-base": (1e-6, 0.001, 0.3),
                        "x-head": (1e-6, 0.3, 0.001),
                        "other": (1e-6, 0.001, 0.3)})
    alone = dict((step.index, (step.add, step.values)) for step in
                 rounds._wanted(store, designs.Design(), {}, {})[0])
    _revisions(store)
    store.benchmarks[2].params = {"threads": 2, revisions.AXIS: "base"}
    steps, _ = rounds._wanted(store, designs.Design(), {}, {})
    together = dict((step.index, (step.add, step.values)) for step in steps)
    assert alone[1][1] < alone[0][1]
    assert together[0] == together[1] == (
        max(alone[1][0], alone[0][0]), max(alone[1][1], alone[0][1]))
    assert together.get(2) == alone.get(2)  # not a revision of theirs
    rounds._round(store, [s for s in steps if s.index in (0, 1)], 1, {}, [],
                  time.time() + 60, rounds.Outcome(), None)
    assert store.blocks[0] == store.blocks[1]
    order = [name for _, name in store.measured_in]
    assert all(sorted(order[k:k + 2]) == ["x-base", "x-head"]
               for k in range(0, len(order), 2))


def test_a_revision_at_the_most_processes_leaves_its_twin_to_go_on():
    store = ModelStore({"x-base": (1e-6, 0.3, 0.001),
                        "x-head": (1e-6, 0.3, 0.001)})
    _revisions(store)
    store.runs[0] = [store._draw("x-base", 2)
                     for _ in range(designs.MOST_PROCESSES)]
    steps, limited = rounds._wanted(store, designs.Design(), {}, {})
    assert [step.index for step in steps] == [1]
    assert limited == [0]


def test_a_step_is_priced_at_its_slowest_value():
    # Values in two modes a hundred times apart: a round priced on their
    # mean would overrun the budget when it draws the slow mode.
    store = ModelStore({"modes": (1e-6, 0.3, 0.001)})
    store.runs[0] = [_run([1e-4, 1e-2]), _run([1e-4, 1e-4])]
    steps, _ = rounds._wanted(store, designs.Design(),
                              {"modes": rounds.OPEN}, {})
    slowest = 1e-2 * 10  # its loops
    assert steps[0].cost >= steps[0].add * steps[0].values * slowest


@pytest.mark.parametrize("ended, expected", [
    ("the budget is spent", designs.BUDGET),
    ("the machine is busy: ...", designs.BUSY)])
def test_what_still_needed_more_says_why_it_stopped(ended, expected):
    store = ModelStore({"split": (1e-6, 0.3, 0.001)})
    outcome = rounds.Outcome()
    outcome.ended = ended
    steps, limited = rounds._wanted(store, designs.Design(), {}, {})
    assert rounds._stops(store, outcome, steps, limited) == {0: expected}


def test_runs_too_short_to_tell_alone_tell_busy_together():
    def run(others, capacity):
        return SimpleNamespace(get_metadata=lambda: {
            "foreign_seconds": others, "foreign_capacity": capacity})
    assert not rounds.busy([run(0.05, 0.1)])  # too short alone
    assert rounds.busy([run(0.05, 0.1), run(0.06, 0.1), run(0.05, 0.1)])
    assert not rounds.busy([run(0.0, 0.1), run(0.01, 0.1), run(0.0, 0.1)])


class DuetStore(ModelStore):
    """A ModelStore whose rounds measure partners as duets; its
    benchmarks are ``family.case`` specs at ``threads``; a duet of
    ``fails`` (a name) fails."""

    def __init__(self, models, fails=None, driver="threads"):
        ModelStore.__init__(self, models)
        self.duets = True
        self.fails = fails
        self.duets_asked = []
        self.values_asked = []
        self.timeouts = []
        self.benchmarks = [SimpleNamespace(
            name=name, params={"threads": int(name[-1])},
            spec=SimpleNamespace(family=name.split(".")[0],
                                 base_name=name[:-3], driver=driver,
                                 concurrency=lambda params: params["threads"]))
            for name in models]

    def measure_duet(self, index, partner, values, attempt, timeout):
        names = [self.benchmarks[i].name for i in (index, partner)]
        self.duets_asked.append(sorted(names))
        self.values_asked.append(values)
        self.timeouts.append(timeout)
        if self.fails in names:
            return None, "failed: exit code 1"
        found = {}
        for i in (index, partner):
            found[i], _ = self.measure(i, 1, values, attempt)
        return found, None


def test_partners_an_answer_divides_are_measured_as_duets():
    store = DuetStore({"gil.a/t1": (1e-6, 0.3, 0.001),
                       "gil.a/t2": (1e-6, 0.3, 0.001),
                       "gil.b/t2": (1e-6, 0.3, 0.001),
                       "ceiling.c/t2": (1e-6, 0.3, 0.001)})
    names = ["gil.a/t1", "gil.a/t2", "gil.b/t2", "ceiling.c/t2"]

    class Judge(FakeJudge):
        def __call__(self, path):
            waiting = self._waiting(self.names)
            # One answer divides a/t2 by b/t2; another reads all four.
            return judging.Verdict(waiting, 2, 0, (), [
                ["gil.a/t2", "gil.b/t2"], names] if waiting else [])
    rounds.spend(store, designs.Design(), time.time() + 60,
                 Judge(store, set(names), until=4))
    # The answer's two first; a/t1 has no partner of its case left, and
    # a duet of two families would cancel nothing: alone.
    assert store.duets_asked and all(
        pair == ["gil.a/t2", "gil.b/t2"] for pair in store.duets_asked)
    # Each duet is a block of its own, both partners in it; a/t1 and the
    # ceiling, measured apart, share their group's.
    duets = [block for block in store.blocks[1] if block.startswith(
        "test.r1.")]
    assert len(duets) == 2 and duets == store.blocks[2][:2]
    assert not set(duets) & set(store.blocks[0] + store.blocks[3])
    assert _processes(store, "ceiling.c/t2") >= 4


def test_a_duet_that_fails_measures_its_partners_apart_and_not_again():
    store = DuetStore({"gil.a/t1": (1e-6, 0.3, 0.001),
                       "gil.a/t2": (1e-6, 0.3, 0.001)}, fails="gil.a/t2")
    judge = FakeJudge(store, {"gil.a/t1", "gil.a/t2"}, until=6)
    outcome = rounds.spend(store, designs.Design(), time.time() + 60, judge)
    # A speedup's two (one case, two threads) tried once, within a
    # timeout of its own: a hang costs seconds, not --timeout.
    assert store.duets_asked == [["gil.a/t1", "gil.a/t2"]]
    assert store.timeouts == [rounds.DUET_LEAST_TIMEOUT]
    assert _processes(store, "gil.a/t1") >= 6
    assert _processes(store, "gil.a/t2") >= 6
    assert not outcome.failed


def test_only_benchmarks_driven_by_threads_share_a_process():
    store = DuetStore({"executor.a/t1": (1e-6, 0.3, 0.001),
                       "executor.a/t2": (1e-6, 0.3, 0.001)},
                      driver="custom")
    judge = FakeJudge(store, {"executor.a/t1", "executor.a/t2"}, until=4)
    rounds.spend(store, designs.Design(), time.time() + 60, judge)
    assert not store.duets_asked
    assert _processes(store, "executor.a/t2") >= 4


def test_a_round_plans_no_more_than_the_time_left(monkeypatch):
    """A round takes the steps whose seconds together fit in what is left
    of the budget: it ends within it, not cut short by the deadline with
    some of its processes measured (a family's fit reads them all)."""
    store = ModelStore({"a": (1e-6, 0.3, 0.001), "b": (1e-6, 0.3, 0.001),
                        "c": (1e-6, 0.3, 0.001)}, duration=1.0)
    clock = _on_a_clock(monkeypatch, store,
                        lambda processes: processes * store.duration)
    said = []
    outcome = rounds.spend(store, designs.Design(), clock[0] + 5.0,
                           say=said.append)
    planned = [re.search(r"about ([\d.]+) s; ([\d.]+) s left", line)
               for line in said if line.startswith("round ")]
    assert planned and outcome.rounds == len(planned)
    for found in planned:
        assert float(found.group(1)) <= float(found.group(2)), said
    assert clock[0] <= 1000.0 + 5.0 + 1e-9


def test_the_summary_counts_what_the_last_round_left_undecided(monkeypatch):
    """A round the deadline ended is judged once more: the count of
    undecided answers the run prints is its file's."""
    store, clock = _past_the_deadline_in_one_measurement(monkeypatch)

    class Counting(object):
        failed = None
        calls = 0

        def __call__(self, path):
            self.calls += 1
            # Each judgement finds one more answer undecided.
            return judging.Verdict(["asked"], self.calls, 0, [],
                                   [["asked"]])
    judge = Counting()
    outcome = rounds.spend(store, designs.Design(), clock[0] + 10.0, judge)
    assert outcome.rounds == 1 and judge.calls == 2
    assert outcome.undecided == 2
