"""Blocks: benchmarks measured side by side, so that what the machine
does over minutes is in every one of them and a ratio cancels it.

A block is one worker process of each benchmark it holds, measured one
after another in a fresh random order (Abedi and Brecht, "Conducting
Repeatable Experiments in Highly Variable Cloud Computing Environments",
ICPE 2017: randomized multiple interleaved trials).  A run's first
measurement of every benchmark is its first blocks -- as many as the
design's processes, the first calibrating each benchmark's loops -- and
each round of the rounds (gilbench.runner.rounds) measures in blocks of
what it chose.  Each run says its block in ``gilbench_block``
(resultformat.BLOCK_KEY): the run's token and the block's label, so two
runs' blocks never share a name.  The report takes each block's shift
out and draws it shared (gilbench.report.numbers.variance).

The order comes from the runner's own ``random`` (seeded by the
interpreter from the OS at its start; the benchmark programs are forks
that re-seed theirs, gilbench.measure.forking).
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
