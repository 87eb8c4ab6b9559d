"""A duet: two benchmarks an answer divides, measured in one worker
process, value by value (Bulej et al., "Duet Benchmarking", 2020).

The machine on a shared host changes speed in phases of tens of ms to
seconds (docs/reading.rst, "Intervals"); two partners measured in
processes of their own, even back to back, see different phases, and a
ratio of their means carries them.  In a duet both are set up before the
clock and their values alternate -- A B, B A, A B... so neither always
goes first -- each at its own loops, so each pair of values shares the
moment it was measured in.

The worker's own benchmark (``--bench-case``) is pyperf's, measured and
written to pyperf's pipe as any worker's; the partner (``--partner-case``
and ``--partner-params``, at ``--partner-loops``) is measured by the same
TimeFunction class, its per-run facts recorded apart
(gilbench.measure.record.swap), and its run -- as many warmups and values
as the worker's -- is written to ``--partner-output`` as a pyperf file,
its metadata naming the worker's benchmark (``gilbench_partner``): the
i-th values of both were measured next to each other.

Worker side: Python 2.7 compatible.
"""
import time

import pyperf

from gilbench.measure import record
from gilbench.model.resultformat import PARTNER_KEY


class Duet(object):
    """pyperf's time function for a worker with a partner: ``own`` (a
    program.TimeFunction) is what pyperf times; ``partner`` another, run
    beside it at ``loops``."""

    def __init__(self, own, partner, loops):
        self.own = own
        self.partner = partner
        self.loops = loops
        self.walls = []  # the partner's, per call
        self.seconds = 0.0  # what the partner's calls took
        self._state = ({}, {})  # its record() state (record.swap)
        self._calls = 0

    def __call__(self, loops):
        partner_first = self._calls % 2 == 1  # A B, B A, A B, B A...
        self._calls += 1
        if partner_first:
            self._partner()
        wall = self.own(loops)
        if not partner_first:
            self._partner()
        return wall

    def _partner(self):
        replaced = record.swap(self._state)
        began = time.time()
        try:
            self.walls.append(self.partner(self.loops))
        finally:
            self.seconds += time.time() - began
            self._state = record.swap(replaced)

    def record_facts(self, **facts):
        """Facts of the worker (how it started, its layout) for the
        partner's run too."""
        self._state[0].update(facts)

    def sample_why(self, loops):
        self.own.sample_why(loops)

    def close(self):
        self.partner.close()
        self.own.close()

    def run(self, warmups, metadata, collect=True):
        """The partner's pyperf Run: its first ``warmups`` calls as
        warmups, the rest as values, per loop; ``metadata``: its
        benchmark's (name, unit, case metadata), to which its recorded
        facts, loops and duration are added, and pyperf's own (the
        machine's, the Python's) unless not ``collect``."""
        per_loop = [wall / float(self.loops) for wall in self.walls]
        said = dict(metadata, loops=self.loops, duration=self.seconds)
        said.update(self._state[0])
        return pyperf.Run(per_loop[warmups:],
                          warmups=[(self.loops, v)
                                   for v in per_loop[:warmups]],
                          metadata=said, collect_metadata=collect)

    def write(self, path, warmups, metadata, own_name, collect=True):
        """Write the partner's run (:meth:`run`) to ``path``, naming
        ``own_name`` as the benchmark it was measured beside."""
        metadata = dict(metadata, **{PARTNER_KEY: own_name})
        pyperf.Benchmark([self.run(warmups, metadata, collect)]).dump(
            path, replace=True)
