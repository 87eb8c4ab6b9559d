"""An adaptive run's rounds, and ``gilbench extend``'s: more worker
processes where an answer still needs them, within a time budget.

Each round asks the judge (gilbench.runner.judging) which benchmarks an
undecided finding still reads, asks the design (gilbench.model.design)
how many more worker processes, and values each, every benchmark needs
-- one whose mean is wider than the design's target between its
processes, or one a finding needs -- and measures them, within what is
left of the budget: while a finding waits, only what findings need (so
they are judged again sooner), those more processes may decide at their
point before the unsure ones, each step by how much it narrows its
interval for its seconds.  The rounds end when none needs more,
the budget is spent, or the machine is busy: when over half of a round's
measurements read busy (other processes took more than ``BUSY_SHARE`` of
their CPUs), the rest of the budget is left unspent and the run says so.
A measurement that read busy is not kept.

Each benchmark's state goes with its runs (gilbench.model.resultformat):
its looks at the values, its decision looks (the looks at which an
undecided finding kept it going, which the report corrects its interval
for) and, at the end, why it stopped.  Where it is kept -- a run's
journal, or an existing result file -- is the store's business
(gilbench.runner.stores).
"""
from __future__ import print_function

import time

from gilbench.model import design as designs
from gilbench.model import drivers, revisions
from gilbench.model.resultformat import BUSY_SHARE
from gilbench.runner import blocks, judging, remeasure

# Why a benchmark is measured more, in the order the rounds serve it: an
# undecided finding more processes may decide at its point reads it, an
# unsure one (gilbench.report.commands.judge), or its spread alone.
OPEN, UNSURE, SPREAD = 0, 1, 2


class Step(object):
    """One benchmark's part of a round."""

    def __init__(self, index, add, values, cost, tier, gain):
        self.index = index
        self.add = add
        self.values = values
        self.cost = cost
        self.tier = tier  # OPEN, UNSURE or SPREAD
        self.gain = gain  # how much it narrows the interval, per second


class Outcome(object):
    """What the rounds did, for the run's last lines."""

    def __init__(self):
        self.rounds = 0
        self.processes = 0
        self.extended = set()
        self.discarded = 0  # measurements that read busy
        self.failed = {}  # index: why a later measurement failed
        self.ended = None  # why the rounds ended
        self.judged = False  # a judge was asked
        self.judge_failed = None
        self.undecided = None  # the last verdict's counts, if judged
        self.cannot = None

    def lines(self, budget, spent):
        said = ["%d round%s: %d more worker processes for %d benchmarks; "
                "%s (%.0f s of a %.0f s budget spent)" % (
                    self.rounds, "" if self.rounds == 1 else "s",
                    self.processes, len(self.extended), self.ended,
                    spent, budget)]
        if self.undecided is not None:
            said.append("%d answers undecided%s" % (
                self.undecided, ", %d of them reading no measured "
                "benchmark" % self.cannot if self.cannot else ""))
        if self.discarded:
            said.append("%d measurements read busy and were not kept"
                        % self.discarded)
        if self.judge_failed:
            said.append("findings not judged (%s): each benchmark was "
                        "measured by its spread alone" % self.judge_failed)
        elif not self.judged and self.rounds:
            said.append("findings not judged (no report side here; %s "
                        "names one): each benchmark was measured by its "
                        "spread alone, and gilbench refine judges them"
                        % judging.ENVIRONMENT)
        return said


def busy(runs):
    """Whether pyperf ``runs`` (one measurement's) were measured on a busy
    machine (gilbench.runner.remeasure.share_of)."""
    return (remeasure.share_of(runs) or 0.0) > BUSY_SHARE


def _wanted(store, design, needed, failed):
    """[Step] of every benchmark that needs more, and the indexes at the
    most processes that would still need more; ``needed``: {name: OPEN or
    UNSURE} of those a finding reads."""
    measured = dict((index, runs) for index, runs in store.measured().items()
                    if index not in failed)
    wants, tiers, limited = {}, {}, []
    for index, runs in measured.items():
        groups = [run.values for run in runs]
        name = store.benchmarks[index].name
        tiers[index] = needed.get(name, SPREAD)
        want = design.more(groups, designs.costs(runs), name in needed,
                           len(runs))
        if want is not None:
            wants[index] = want
        elif len(runs) >= designs.MOST_PROCESSES and (
                name in needed or not designs.narrow(groups)):
            limited.append(index)
    _twinned(store, measured, wants, tiers)
    steps = []
    for index, (add, values) in wants.items():
        runs = measured[index]
        # Priced at its slowest value: some cases' values split into modes
        # far apart, and a mean lets a round overrun.
        cost = designs.step_seconds(designs.costs(runs, slowest=True), add,
                                    values)
        steps.append(Step(index, add, values, cost, tiers[index],
                          designs.benefit([run.values for run in runs], add,
                                          values) / cost))
    # Answers a finding waits on first; each tier by what narrows an
    # interval most for its seconds.
    steps.sort(key=lambda step: (step.tier, -step.gain))
    return steps, limited


def _twinned(store, measured, wants, tiers):
    """Give a benchmark's revisions (gilbench continuous) one step: where
    one wants more, each gets the most processes and values any of them
    wants, at the first tier any is in.  A case's values are not
    always alike within a process (the first after the warmup can read a
    machine state the later ones do not), so two revisions measured with
    different values per process would differ by that alone."""
    for group in revisions.twins(
            (index, store.benchmarks[index]) for index in measured):
        asked = [wants[index] for index in group if index in wants]
        if not asked:
            continue
        add = max(want[0] for want in asked)
        values = max(want[1] for want in asked)
        tier = min(tiers[index] for index in group)
        for index in group:
            room = designs.MOST_PROCESSES - len(measured[index])
            if room > 0:
                wants[index] = (min(add, room), values)
                tiers[index] = tier
            else:
                wants.pop(index, None)


def spend(store, design, deadline, judge=None, say=None):
    """Rounds until none needs more, ``deadline`` (a time.time()) passes,
    or the machine is busy; every benchmark's stop reason recorded, and
    the judge closed.  Returns an Outcome."""
    try:
        return _spend(store, design, deadline, judge, say)
    finally:
        if judge is not None and hasattr(judge, "close"):
            judge.close()


def _spend(store, design, deadline, judge, say):
    outcome = Outcome()
    number = store.rounds_done()
    steps, limited, needed, answers = [], [], {}, []
    unjudged = False  # a round measured since the last judgement
    while True:
        # No judgement is worth its seconds once the budget is spent; the
        # last one still says which benchmarks stopped for the budget.
        if time.time() < deadline:
            needed, answers = _judged(store, judge, outcome)
            unjudged = False
        steps, limited = _wanted(store, design, needed, outcome.failed)
        if not steps:
            outcome.ended = "every answer narrow or decided"
            break
        chosen = _affordable(steps, deadline - time.time())
        if not chosen:
            outcome.ended = "the budget is spent"
            break
        # While findings wait, a round is theirs alone, the first tier's
        # that has any: the judge reads them again sooner, and what they
        # no longer need is not bought.
        first = min(step.tier for step in chosen)
        chosen = [step for step in chosen if step.tier == first]
        number += 1
        measured, read_busy = _round(store, chosen, number, needed,
                                     answers, deadline, outcome, say)
        outcome.rounds += 1
        unjudged = unjudged or bool(measured)
        store.round_done(number)
        if measured and read_busy * 2 > measured:
            outcome.ended = ("the machine is busy: %d of %d measurements "
                             "of round %d read over %d%% of the CPUs "
                             "taken by other processes; the rest of the "
                             "budget is left" % (read_busy, measured,
                                                 number, BUSY_SHARE * 100))
            break
        if not measured:
            outcome.ended = "the budget is spent"
            break
    if unjudged and judge is not None:
        # A family's shifts are fitted over every benchmark, so a round
        # can move answers it did not measure: the summary's count is the
        # file's, not the last round's.
        _judged(store, judge, outcome)
    store.finish(_stops(store, outcome, steps, limited))
    return outcome


def _affordable(steps, left):
    """The first of ``steps`` (in their order) whose seconds together fit
    in ``left``, skipping any that would not: a round ends within the
    budget instead of being cut short by it, its processes a whole
    round's, not those the deadline happened to reach."""
    chosen, spent = [], 0.0
    for step in steps:
        if spent + step.cost <= left:
            chosen.append(step)
            spent += step.cost
    return chosen


def _judged(store, judge, outcome):
    """({name: OPEN or UNSURE} of the benchmarks an undecided finding
    reads, [the names each undecided answer reads]), from the judge."""
    if judge is None:
        return {}, []
    outcome.judged = True
    verdict = judge(store.snapshot())
    if verdict is None:
        outcome.judge_failed = judge.failed
        return {}, []
    outcome.undecided, outcome.cannot = verdict.undecided, verdict.cannot
    needed = dict((name, UNSURE) for name in verdict.unsure)
    needed.update((name, OPEN) for name in verdict.open)
    return needed, verdict.answers


def _round(store, chosen, number, needed, answers, deadline, outcome,
           say):
    """Measure ``chosen`` in blocks (gilbench.runner.blocks): the j-th
    block of each group of partners (the names undecided ``answers``
    read together, and a benchmark's revisions, blocks.partner_groups; a
    benchmark in none is a group of its own) holds one worker process of
    each of its steps adding j or more, back to back in a fresh random
    order, the groups too in a random order -- two of a group at a time
    as a duet (gilbench.measure.duet), a block of its own, where they
    can; (measured, of them busy)."""
    tally = _Tally()
    if say:
        say("round %d: up to %d more worker processes for %d benchmarks "
            "(about %.0f s; %.0f s left)" % (
                number, sum(step.add for step in chosen), len(chosen),
                sum(step.cost for step in chosen), deadline - time.time()))
    looked = set()  # the benchmarks this round counted a look for
    twins = [[store.benchmarks[index].name for index in found]
             for found in revisions.twins(
                 (step.index, store.benchmarks[step.index])
                 for step in chosen)]
    group = _grouping(store, chosen,
                      blocks.partner_groups(list(answers) + twins))
    for j in range(max(step.add for step in chosen)):
        order = blocks.grouped([s for s in chosen if s.add > j],
                               lambda s: group[s.index])
        for k, unit in enumerate(_units(store, order, group, answers)):
            label = "r%d.%d.%d" % (number, j + 1, group[unit[0].index])
            if time.time() + sum(s.cost / s.add for s in unit) > deadline:
                continue
            attempt = "r%d.%d." % (number, j + 1)
            found = None
            if len(unit) == 2:
                found, _ = store.measure_duet(
                    unit[0].index, unit[1].index,
                    max(s.values for s in unit), attempt + "duet.",
                    duet_timeout(store, unit))
                label += ".d%d" % k
                if found is None:  # nor again in this run
                    store.no_duets.add(frozenset(s.index for s in unit))
            if found is None:  # alone, or a duet that failed: apart
                found = {}
                for step in unit:
                    runs, why = store.measure(step.index, 1, step.values,
                                              attempt)
                    if why is not None:
                        outcome.failed[step.index] = why
                    else:
                        found[step.index] = runs
            for index, runs in found.items():
                block = blocks.named(store.token, label)
                _keep(store, index, runs, number, needed, block, looked,
                      outcome, tally)
    return tally.measured, tally.busy


# A duet is killed at this many times what its two processes were priced
# at (at least DUET_LEAST_TIMEOUT seconds; never past --timeout), and its
# partners measured apart: two set-ups in one process can hang where
# neither alone does.
DUET_TIMEOUT_FACTOR = 5.0
DUET_LEAST_TIMEOUT = 10.0


def duet_timeout(store, unit):
    priced = sum(step.cost / step.add for step in unit)
    return min(store.args.timeout, max(DUET_LEAST_TIMEOUT,
                                       DUET_TIMEOUT_FACTOR * priced))


class _Tally(object):
    def __init__(self):
        self.measured = self.busy = 0


def _keep(store, index, runs, number, needed, block, looked, outcome,
          tally):
    """Keep one new worker process of benchmark ``index`` unless it read
    busy."""
    tally.measured += 1
    if busy(runs):
        tally.busy += 1
        outcome.discarded += 1
        return
    name = store.benchmarks[index].name
    store.add(index, number, decided_by=name in needed, block=block,
              look=index not in looked)
    looked.add(index)
    outcome.processes += 1
    outcome.extended.add(index)


def _units(store, order, group, answers):
    """``order`` (steps, each group's together) as what is measured at
    once: each group's steps two at a time, as duets (_paired) in a random
    order, the rest alone; each step alone where the store measures
    apart (``run --apart``)."""
    units, run = [], []
    for position, step in enumerate(order):
        run.append(step)
        ends = (position + 1 == len(order)
                or group[order[position + 1].index] != group[step.index])
        if not ends:
            continue
        if not store.duets:
            units.extend([s] for s in run)
        else:
            units.extend(blocks.shuffled(_paired(store, run, answers)))
        run = []
    return units


def _paired(store, steps, answers):
    """One group's ``steps`` as units: the two an undecided answer divides
    (of ``answers``, each the names one reads; the two-name ones first)
    as a duet, then two of one case at other axis values (a speedup's
    threads; an efficiency's work, and its ceiling's) as duets, each in a
    random order; the rest alone -- and alone any that cannot join a duet
    (a revision of its own: gilbench continuous).  Never two families: a
    family's blocks are fitted apart (gilbench.report.numbers.variance),
    so such a duet would cancel nothing."""
    def bench(step):
        return store.benchmarks[step.index]

    unpaired = dict((bench(s).name, s) for s in steps)
    units = []
    for names in sorted(answers, key=len):
        pair = [unpaired.get(name) for name in names]
        if len(pair) == 2 and None not in pair and may_share(store, *pair):
            units.append(blocks.shuffled(pair))
            for name in names:
                del unpaired[name]
    rest = sorted(unpaired.values(), key=lambda s: s.index)
    while rest:
        step = rest.pop(0)
        mate = next((s for s in rest
                     if bench(s).spec.base_name == bench(step).spec.base_name
                     and may_share(store, step, s)), None)
        if mate is not None:
            rest.remove(mate)
            units.append(blocks.shuffled([step, mate]))
        else:
            units.append([step])
    return units


def may_share(store, one, other):
    """Whether steps ``one`` and ``other`` may be measured as a duet: no
    duet of theirs failed in this run, neither is a revision of its own
    (gilbench continuous), and :func:`_may_pair`."""
    first, second = (store.benchmarks[s.index] for s in (one, other))
    return (frozenset((one.index, other.index)) not in store.no_duets
            and revisions.path_of(first.params) is None
            and revisions.path_of(second.params) is None
            and _may_pair(first, second))


def _may_pair(one, other):
    """Whether benchmarks ``one`` and ``other`` may share a worker process:
    one family's, each driven by threads.  A set-up that starts
    processes (a pool that forks, the processes driver) or whatever a
    custom driver does may not coexist with another's threads or pools
    (docs/reading.rst, "Duets")."""
    return (one.spec.family == other.spec.family
            and one.spec.driver == other.spec.driver == drivers.THREADS)


def _grouping(store, chosen, partners):
    """{step index: the number of its group of ``partners``}, a group of
    its own where no set of partners names it."""
    group = {}
    for step in chosen:
        name = store.benchmarks[step.index].name
        found = [k for k, names in enumerate(partners) if name in names]
        group[step.index] = found[0] if found else len(partners) + step.index
    return group


def _stops(store, outcome, steps, limited):
    """{index: why its measurement stopped} of every measured benchmark."""
    still = set(step.index for step in steps)
    over = (designs.BUSY if outcome.ended and outcome.ended.startswith(
        "the machine is busy") else designs.BUDGET)
    stops = {}
    for index in store.measured():
        if index in outcome.failed:
            stops[index] = designs.FAILED
        elif index in still:
            stops[index] = over
        elif index in limited:
            stops[index] = designs.LIMIT
        elif store.state(index).get("decision_looks", 1) > 1:
            stops[index] = designs.DECIDED
        else:
            stops[index] = designs.NARROW
    return stops
