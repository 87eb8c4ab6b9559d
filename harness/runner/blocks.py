"""Blocks: benchmarks measured side by side, so that what the machine
does over minutes is in every one of them and a ratio cancels it.

A block is one worker process of each benchmark it holds, each a program
of its own (Abedi and Brecht, ICPE 2017: randomized multiple interleaved
trials; Bulej et al., "Duet Benchmarking", 2020).  A run's first
measurement of every benchmark is its first blocks -- as many as the
design's processes, the first calibrating each benchmark's loops -- each
a pass in the order the families register their benchmarks, which puts a
question's partners next to each other: programs forked from the runner
one after another share more of its state and of the machine's than
programs a shuffle puts apart (docs/reading.rst, "Intervals", has the
figures).  Each round (gilbench.runner.rounds) measures what it chose in
blocks of partners -- the benchmarks undecided answers read together --
back to back, in a fresh random order; two partners of one family go
into one worker process as a *duet* (gilbench.measure.duet), their
values alternating, a block of their own (``run --apart``: each its own
process, as before duets).  Each run says its block in
``gilbench_block`` (resultformat.BLOCK_KEY): the run's token and the
block's label, so two runs' blocks never share a name.  The report takes
each block's shift out and draws it shared
(gilbench.report.numbers.variance).

A round's order comes from the runner's own ``random`` (seeded from the
OS at its start; the benchmark programs are forks that re-seed theirs,
gilbench.measure.forking).
"""
import binascii
import os
import random

import pyperf

from gilbench.model.resultformat import BLOCK_KEY


def token():
    """A name for this invocation's blocks, unlike any other run's."""
    return binascii.hexlify(os.urandom(4)).decode("ascii")


def named(run_token, label):
    return "%s.%s" % (run_token, label)


def shuffled(items):
    """``items`` in a fresh random order."""
    order = list(items)
    random.shuffle(order)
    return order


def grouped(items, group_of):
    """``items`` in a fresh random order that keeps each group (by
    ``group_of``) together: groups in a random order, each shuffled.
    Partners measured back to back share more of what the machine did."""
    groups = {}
    for item in items:
        groups.setdefault(group_of(item), []).append(item)
    return [item for key in shuffled(sorted(groups))
            for item in shuffled(groups[key])]


def partner_groups(answers):
    """The connected sets of benchmark names that ``answers`` (each a list
    of the names one answer reads) join: what must be measured side by
    side for every one of them to cancel what the machine did."""
    group = {}
    for names in answers:
        found = set(names)
        for name in names:
            if name in group:
                found |= group[name]
        for name in found:
            group[name] = found
    unique = []
    for found in group.values():
        if not any(found is seen for seen in unique):
            unique.append(found)
    return unique


def tag(path, block):
    """Say in every run of the pyperf file ``path`` that it was measured
    in ``block`` (the file is written again in place)."""
    suite = pyperf.BenchmarkSuite.load(path)
    tagged = []
    for bench in suite.get_benchmarks():
        runs = [pyperf.Run(run.values, warmups=run.warmups,
                           metadata=dict(run.get_metadata(),
                                         **{BLOCK_KEY: block}),
                           collect_metadata=False)
                for run in bench.get_runs()]
        tagged.append(pyperf.Benchmark(runs))
    pyperf.BenchmarkSuite(tagged).dump(path, replace=True)
