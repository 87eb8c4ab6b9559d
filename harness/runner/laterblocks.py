"""The first look's blocks after the first, and its duets.

The first block (gilbench.runner.run) measures one worker process of
every benchmark, each calibrating its loops; block k of the later ones
holds one more worker process of each, alone, in the registry's order.
What the machine does between two programs seconds apart moves a
process's mean by far more on a shared host than two partners' values
alternating in one process (gilbench.measure.duet) move their ratio
(docs/reading.rst, "Duets", gives the figures).  So under the adaptive design,
each pass also measures pairs of partners as a duet (DUET_VALUES
values each, not the look's two), a block of its own, DUET_PASSES times
in all (LONE_PASSES where too few of its
family's pairs share its shape to lend it a spread): the two an answer
divides, as the judge names them after the second block (a best-of's:
its winner and runner-up), or each two of one case at two axis values
that an efficiency or a best-of of speedups reads -- of each answer the
two blocks leave undecided or wider than its margin both ways
(``gilbench judge``'s ``partners``).  An answer those blocks settle
costs no duets; one they leave open was chosen by that look, so its
duets are a decision look (the report widens its interval for it),
though their seconds still price the first look.
From two duets a pair's ratio has a spread of its own (what their log ratios
varied by, moderated across the family's pairs:
gilbench.report.numbers.pairs), while the processes apart keep telling
each mean's spread, which a mean read alone and a best-of draw from.  A
benchmark several answers divide is in a duet with each partner.  The
fixed design, ``run --apart`` and a run without a judge measure no
duets.  A duet that fails or hangs is not tried again in the run.

Worker side: Python 2.7-compatible.
"""
from __future__ import print_function

from gilbench.model import design as designs
from gilbench.model.resultformat import PARTNER_KEY
from gilbench.runner import blocks, rounds, stores

# A pair's duets in its first look: two give its ratio's spread one
# degree of freedom, which the family's other pairs add to.
DUET_PASSES = 2
# ... where its family has this many pairs of its shape (the concurrencies
# of its two), which lend a prior (gilbench.report.numbers.pairs); with
# fewer, one degree of freedom stretches t by 12.7 and its ratio falls
# back to its means, so it gets LONE_PASSES: two of its own.
SHAPE_PRIOR = 3
LONE_PASSES = 3
# A duet's values of each partner, not the look's two: a pair's log ratio
# varies from duet to duet mostly by its values' scatter within each
# duet, which more values shrink (docs/reading.rst, "Six values a duet").
DUET_VALUES = 6


def measure(benchmarks, design, args, pyperf_options, book, done, clock,
            run_token, judge=None):
    """The first measurement's blocks after the first: block k holds one
    more worker process of each benchmark whose design asks for k or
    more, in the registry's order, then pass k of each pair's duets (see
    the module's doc).  What a resumed run has is not measured again; a
    benchmark whose process fails keeps what it has.  A block measured
    while the machine was busy is kept, as the first is: it is flagged
    (``!``), and the rounds measure more."""
    store = stores.JournalStore(benchmarks, args, pyperf_options, book, done,
                                run_token)
    wanted = dict((index, design.first(benchmarks[index]))
                  for index in store.measured())
    later(store, wanted, judge if design.adaptive else None, clock, args)


def later(store, wanted, judge, clock, args):
    """The later blocks of what ``store`` measured (see :func:`measure`);
    ``wanted``: {index: its first look's Sizing}; ``judge`` names the
    pairs (None: every benchmark alone)."""
    most = max([sizing.processes for sizing in wanted.values()] + [1])
    _block(store, wanted, 2, clock, args)
    # Named after the second block, not the first: a best-of's two
    # leaders ranked from two processes each.
    pairs = _pairs(store, wanted, judge)
    passes = _passes(store, pairs)
    for k in range(2, max([most] + [1 + p for p in passes]) + 1):
        if k > 2:
            _block(store, wanted, k, clock, args)
        for number, pair in enumerate(pairs):
            if (k <= 1 + passes[number] and frozenset(
                    s.index for s in pair) not in store.no_duets):
                _duet(store, pair, k, "%d.d%d" % (k, number), clock, args)


def _block(store, wanted, k, clock, args):
    """Block ``k``: one more worker process, alone, of each benchmark
    whose first look asks for k or more, in the registry's order."""
    block = blocks.named(store.token, str(k))
    for index in sorted(i for i, sizing in wanted.items()
                        if sizing.processes >= k):
        _alone(store, index, wanted[index].values, k, block, clock, args)


def _passes(store, pairs):
    """How many duets each of ``pairs`` gets in its first look:
    DUET_PASSES where its family has SHAPE_PRIOR pairs or more of its
    shape, else LONE_PASSES."""
    def shape(pair):
        benchmarks = [store.benchmarks[s.index] for s in pair]
        return (benchmarks[0].spec.family, tuple(sorted(
            b.spec.concurrency(b.params) for b in benchmarks)))
    shapes = [shape(pair) for pair in pairs]
    return [DUET_PASSES if shapes.count(found) >= SHAPE_PRIOR
            else LONE_PASSES for found in shapes]


def _pairs(store, wanted, judge):
    """The pairs an open answer divides (as the judge names them now,
    after the second block; _twos), in the registry's order, where duets
    are measured: a benchmark may be in several."""
    verdict = (judge(store.snapshot()) if judge is not None and store.duets
               else None)
    if verdict is None:
        return []
    steps = [rounds.Step(index, 1, values,
                         _priced(store, index, values), rounds.SPREAD, 0.0)
             for index in sorted(wanted)
             for values in [max(DUET_VALUES, wanted[index].values)]]
    by_name = dict((store.benchmarks[s.index].name, s) for s in steps)
    chosen, seen = [], set()
    for names in verdict.partners:
        for two in _twos(store, [by_name[n] for n in names
                                 if n in by_name]):
            key = frozenset(s.index for s in two)
            if key not in seen and rounds.may_share(store, *two):
                seen.add(key)
                chosen.append(blocks.shuffled(two))
    return sorted(chosen, key=lambda pair: min(s.index for s in pair))


def _twos(store, steps):
    """The pairs of ``steps`` (what one answer reads) its ratios divide:
    the two of a two-benchmark answer (a ratio, a speedup), else each two
    of one case at other axis values (an efficiency's speedup and its
    ceiling's; a best-of's candidates' speedups)."""
    if len(steps) == 2:
        return [steps]
    cases = {}
    for step in steps:
        cases.setdefault(store.benchmarks[step.index].spec.base_name,
                         []).append(step)
    return [two for two in cases.values() if len(two) == 2]


def _priced(store, index, values):
    """The seconds one more worker process of ``index`` takes, priced at
    its slowest value (as the rounds price theirs)."""
    return designs.step_seconds(
        designs.costs(store.measured()[index], slowest=True), 1, values)


def _duet(store, pair, k, label, clock, args):
    """Pass ``k`` of a pair's duets: one worker process holding both, a
    block of its own; not tried again in the run where it fails (its
    two have their processes apart)."""
    if _duets_held(store, pair) >= k - 1:  # a resumed run has it
        return
    block = blocks.named(store.token, label)
    found, why = store.measure_duet(
        pair[0].index, pair[1].index, max(s.values for s in pair),
        "b%s." % label, rounds.duet_timeout(store, pair))
    clock.note()
    if found is None:
        store.no_duets.add(frozenset(s.index for s in pair))
        if not args.quiet:
            print("%s + %s: duet %d: %s; not tried again" % (
                store.benchmarks[pair[0].index].name,
                store.benchmarks[pair[1].index].name, k, why))
        return
    for index in found:
        # The look after the second block chose it: one decision look
        # more, once, however many duets it holds.
        store.add(index, None, decided_by=True, block=block,
                  look=store.state(index).get("looks", 1) < 2, first=True)


def _duets_held(store, pair):
    """How many duets of ``pair``'s two its first already holds."""
    partner = store.benchmarks[pair[1].index].name
    return len([run for run in store.measured()[pair[0].index]
                if run.get_metadata().get(PARTNER_KEY) == partner])


def _alone(store, index, values, k, block, clock, args):
    """Block ``k``'s worker process of benchmark ``index`` alone, unless
    it has its k processes apart already (a resumed run)."""
    if len([run for run in store.measured()[index]
            if PARTNER_KEY not in run.get_metadata()]) >= k:
        return
    _, why = store.measure(index, 1, values, "b%d." % k)
    clock.note()
    if why is not None:
        if not args.quiet:
            print("%s: block %d: %s" % (store.benchmarks[index].name, k,
                                        why))
        return
    store.add(index, None, decided_by=False, block=block, look=False)
