"""Where the rounds (gilbench.runner.rounds) keep what they measure: a
run's journal, or an existing result file (``gilbench extend``, which
``refine`` calls).

Both give the rounds the same things: every measured benchmark's runs
with values, its state (looks, decision looks), a result file the judge
can read, a way to measure more worker processes of a benchmark as its
earlier ones were measured (their loops and warmups), and to keep them.
"""
import os
import time

import pyperf

from gilbench.model import design as designs
from gilbench.model.resultformat import (
    BLOCK_KEY,
    DECISION_LOOKS_KEY,
    EXTENDED_KEY,
    LOOKS_KEY,
    ROUND_KEY,
    SECONDS_KEY,
    STOPPED_KEY,
)
from gilbench.runner import blocks, child, results

JUDGED = "judged.json"  # the snapshot a run's judge reads, in its journal


def _runs_of(path):
    """The runs with values of the one benchmark in a pyperf file."""
    return [run for bench in pyperf.BenchmarkSuite.load(path).get_benchmarks()
            for run in bench.get_runs() if run.values]


def _looked(state, decided_by, seconds, look=True, first=None):
    """``state`` after one more look (a decision look when an undecided
    finding asked for it) that took ``seconds``; not a ``look``: one
    more block of a look already counted (its seconds only).  ``first``
    (default: not a look): its seconds price the first look, as the
    first look's duets do although the judge chose them
    (gilbench.runner.laterblocks)."""
    if first is None:
        first = not look
    return {"looks": state.get("looks", 1) + (1 if look else 0),
            "decision_looks": state.get("decision_looks", 1)
            + (1 if decided_by and look else 0),
            "seconds": state.get("seconds", 0.0) + seconds,
            "first_seconds": ((first_seconds(state) or 0.0) + seconds
                              if first else first_seconds(state))}


def first_seconds(state):
    """The seconds a benchmark's first look took (None if not kept)."""
    return state.get("first_seconds", state.get("seconds"))


def _added(number, block):
    """The metadata of runs a later measurement added: their block, and
    their round where a round measured them."""
    said = {BLOCK_KEY: block}
    if number is not None:
        said[ROUND_KEY] = number
    return said


class _Store(object):
    """What both stores share: measuring more worker processes."""

    def __init__(self, benchmarks, args, pyperf_options, token=None):
        self.benchmarks = benchmarks
        self.args = args
        self.pyperf_options = pyperf_options
        # What names this invocation's blocks (blocks.named).
        self.token = token or blocks.token()
        # Whether a round measures two partners in one worker process
        # (gilbench.measure.duet), not --apart.
        self.duets = not getattr(args, "apart", False)
        self.no_duets = set()  # frozensets of two indexes whose duet failed
        # index: (pyperf file of a measurement, attempt, its seconds)
        self._pending = {}

    def measure(self, index, processes, values, attempt):
        """Measure ``processes`` more worker processes of benchmark
        ``index`` with ``values`` each, as its earlier ones were; (their
        runs, None) or (None, why not)."""
        first = self.measured()[index][0]
        sizing = designs.repeat(first.get_metadata()["loops"],
                                len(first.warmups or ()), processes, values)
        began = time.time()
        reason = child.run_one(self.benchmarks[index], sizing, self.args,
                               self.pyperf_options, self, index, echo=False,
                               attempt=attempt)
        if reason is not None:
            return None, reason
        path = self.work_file(index, attempt + "pyperf.json")
        self._pending[index] = (path, attempt, time.time() - began)
        return _runs_of(path), None

    def measure_duet(self, index, partner, values, attempt, timeout):
        """Measure one worker process of benchmarks ``index`` and
        ``partner`` as a duet (gilbench.measure.duet): each at its earlier
        loops, the more warmups of the two, ``values`` each, killed after
        ``timeout`` seconds; ({index: runs, partner: runs}, None) or
        (None, why not).  Each is kept with half the seconds."""
        mine, theirs = (self.measured()[i][0] for i in (index, partner))
        sizing = designs.repeat(
            mine.get_metadata()["loops"],
            max(len(mine.warmups or ()), len(theirs.warmups or ())), 1,
            values)
        paths = dict((i, self.work_file(i, attempt + "pyperf.json"))
                     for i in (index, partner))
        began = time.time()
        reason = child.run_one(
            self.benchmarks[index], sizing, self.args, self.pyperf_options,
            self, index, echo=False, attempt=attempt,
            partner=child.Partner(self.benchmarks[partner],
                                  theirs.get_metadata()["loops"],
                                  paths[partner]), timeout=timeout)
        if reason is not None:
            return None, reason
        seconds = (time.time() - began) / 2.0
        for i, path in paths.items():
            self._pending[i] = (path, attempt, seconds)
        return dict((i, _runs_of(path)) for i, path in paths.items()), None


class JournalStore(_Store):
    """A run's journal (gilbench.runner.journal): ``done`` its committed
    entries, updated in place."""

    def __init__(self, benchmarks, args, pyperf_options, book, done,
                 token=None):
        _Store.__init__(self, benchmarks, args, pyperf_options, token)
        self.book = book
        self.done = done
        self._loaded = {}  # pyperf file name: its runs

    def work_file(self, index, suffix):
        return self.book.work_file(index, suffix)

    def measured(self):
        found = {}
        for index, entry in self.done.items():
            if entry["reason"] is not None:
                continue
            if entry["pyperf"] not in self._loaded:
                self._loaded[entry["pyperf"]] = _runs_of(
                    self.book.pyperf_path(entry))
            found[index] = self._loaded[entry["pyperf"]]
        return found

    def state(self, index):
        return self.done[index].get("state") or {}

    def add(self, index, number, decided_by, block, look=True, first=None):
        """Commit the pending measurement of ``index`` (of round
        ``number``, None for the first look's later blocks; in ``block``)
        with its earlier runs, as one pyperf file; a ``look`` more
        (``first``: as _looked)."""
        path, attempt, seconds = self._pending.pop(index)
        entry = self.done[index]
        merged = self.book.pyperf_path(entry)
        bench = pyperf.BenchmarkSuite.load(merged).get_benchmarks()[0]
        said = _added(number, block)
        for new in pyperf.BenchmarkSuite.load(path).get_benchmarks():
            for run in new.get_runs():
                bench.add_run(pyperf.Run(
                    run.values, warmups=run.warmups,
                    metadata=dict(run.get_metadata(), **said),
                    collect_metadata=False))
        bench.dump(self.work_file(index, attempt + "all.pyperf.json"),
                   replace=True)
        self.done[index] = self.book.commit(
            index, entry["name"], None, attempt=attempt + "all.",
            state=_looked(self.state(index), decided_by, seconds, look,
                          first))
        for superseded in (path, merged):  # the new entry holds their runs
            os.remove(superseded)

    def snapshot(self):
        path = os.path.join(self.book.path, JUDGED)
        results.merge_journal(self.benchmarks, self.book, self.done, path)
        return path

    def rounds_done(self):
        return self.book.progress().get("rounds", 0)

    def round_done(self, number):
        self.book.save_progress(rounds=number)

    def finish(self, stops):
        self.book.save_progress(stops=dict(
            (str(index), why) for index, why in stops.items()))


class ResultStore(_Store):
    """A result file (gilbench.runner.results.Runs), written back after
    every round; ``names`` the registry's benchmarks it measured, in the
    file's order; ``work`` where the measurements go."""

    def __init__(self, benchmarks, args, pyperf_options, runs, work):
        _Store.__init__(self, benchmarks, args, pyperf_options)
        self.runs = runs
        self.work = work
        self._changed = False  # since the file was last written

    def work_file(self, index, suffix):
        return os.path.join(self.work, "%04d.%s" % (index, suffix))

    def measured(self):
        found = {}
        for index, bench in enumerate(self.benchmarks):
            runs = self.runs.measured(bench.name)
            if runs:
                found[index] = runs
        return found

    def state(self, index):
        meta = self.measured()[index][0].get_metadata()
        return {"looks": meta.get(LOOKS_KEY, 1),
                "decision_looks": meta.get(DECISION_LOOKS_KEY, 1),
                "seconds": meta.get(SECONDS_KEY, 0.0)}

    def add(self, index, number, decided_by, block, look=True, first=None):
        path, _, seconds = self._pending.pop(index)
        name = self.benchmarks[index].name
        state = _looked(self.state(index), decided_by, seconds, look, first)
        self.runs.add(name, path, dict(_added(number, block),
                                       **{EXTENDED_KEY: 1}))
        self.runs.update(name, results.cost_metadata(state))
        self._changed = True

    def _write(self):
        if self._changed:
            self.runs.write()
            self._changed = False

    def snapshot(self):
        self._write()
        return self.runs.output

    def rounds_done(self):
        return max([run.get_metadata().get(ROUND_KEY, 0)
                    for runs in self.measured().values() for run in runs]
                   + [0])

    def round_done(self, number):
        self._write()

    def finish(self, stops):
        for index, why in stops.items():
            runs = self.measured()[index]
            if runs[-1].get_metadata().get(STOPPED_KEY) != why:
                self.runs.update(self.benchmarks[index].name,
                                 {STOPPED_KEY: why})
                self._changed = True
        self._write()
