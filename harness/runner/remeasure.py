"""Measuring again, once, each benchmark whose values were taken on a
busy machine: a run whose ``foreign_cpu`` (the share of its CPUs other
processes took, gilbench.measure.foreign) is above
``resultformat.BUSY_SHARE``.  At the end of the run, when whatever
disturbed it may have passed; the quieter measurement is kept, and one
still busy is flagged by the report.  The first measurement stays
committed until the second is, so an interrupted re-measurement loses
nothing.
"""
from __future__ import print_function

import sys
import time

import pyperf

from gilbench.model import resultformat
from gilbench.model.resultformat import BUSY_SHARE
from gilbench.runner import blocks, child

AGAIN = "again."  # the second measurement's work files


def busiest_share(path):
    """share_of the measured runs of a pyperf file."""
    bench = pyperf.Benchmark.load(path)
    return share_of([run for run in bench.get_runs() if run.values])


def share_of(runs):
    """resultformat.busiest_share of pyperf ``runs``."""
    return resultformat.busiest_share(run.get_metadata() for run in runs)


def busy_entries(book, done):
    """{index: share} of the committed entries measured while busy."""
    found = {}
    for index, entry in done.items():
        if entry["reason"] is None:
            share = busiest_share(book.pyperf_path(entry))
            if share is not None and share > BUSY_SHARE:
                found[index] = share
    return found


def remeasure(benchmarks, design, args, pyperf_options, book, done, block):
    """Measure each busy benchmark of ``done`` once more, as the
    ``design`` first measures it in its first block; commit the second
    measurement, in ``block``, where it has values and was quieter."""
    busy = busy_entries(book, done)
    if busy and not args.quiet:
        print("gilbench: measuring %d benchmark(s) again: other processes "
              "took over %d%% of their CPUs" % (len(busy), BUSY_SHARE * 100),
              file=sys.stderr)
    for index in sorted(busy):
        bench = benchmarks[index]
        sizing = design.first(bench,
                              args.calibrated.get(bench.name)).first_block()
        began = time.time()
        reason = child.run_one(bench, sizing, args, pyperf_options, book,
                               index, echo=not args.quiet, attempt=AGAIN)
        state = dict(done[index].get("state") or {})
        state["seconds"] = state.get("seconds", 0.0) + time.time() - began
        # A measurement whose share is unknown is not known to be quieter.
        share = None if reason is not None else busiest_share(
            book.work_file(index, AGAIN + "pyperf.json"))
        quieter = share is not None and share < busy[index]
        if quieter:
            blocks.tag(book.work_file(index, AGAIN + "pyperf.json"), block)
        done[index] = book.commit(
            index, bench.name, None, attempt=AGAIN if quieter else "",
            state=state, pyperf=None if quieter else done[index]["pyperf"])
