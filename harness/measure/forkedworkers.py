"""pyperf's workers as forks of the benchmark program.

pyperf starts each worker as a fresh interpreter, which then imports
pyperf, psutil, gilbench and the case again, the most of what a default
benchmark spends outside its values (docs/operations.rst).  The
benchmark program (the pyperf master) has all of that loaded and has
not set the case up (that happens in its calibration fork and in each
worker), so a fork of it is a worker minus the start.  The fork runs the
very command line pyperf would have started (``worker_cmd``), through the
same ``main``; pyperf's manager does everything else as before, and the
worker's exit code and output reach it as a started worker's would.

A fork starts with the program's memory layout and hash seed, which
pyperf randomises per worker by starting each afresh
(``--fresh-workers`` keeps that); with ``GILBENCH_WORKER_LAYOUT=renew``
each fork draws a layout of its own before loading the case
(gilbench.measure.layout).  Each run's ``worker_start`` metadata says
which it was, and a renewing fork's ``worker_heap_objects`` and
``worker_reimported`` what it drew.

Worker side: Python 2.7 compatible (pyperf 1.x calls its manager Master).
"""
from __future__ import print_function

import os
import sys

import pyperf

from gilbench.measure import forking, layout, pyperfinternals

FORK = "fork"
FRESH = "fresh interpreter"


def wanted(args):
    """Whether a master with these options forks its workers: it can,
    they are not asked fresh, and they run this very interpreter."""
    return (hasattr(os, "fork") and not args.fresh_workers
            and os.path.realpath(args.python)
            == os.path.realpath(sys.executable))


def manage(runner, worker_main, first_runs=()):
    """What pyperf's Runner does as the master of a benchmark, with each
    worker ``worker_main(cmd)`` in a fork when :func:`wanted`, ``cmd``
    the worker's command line as pyperf would start it; ``first_runs``:
    the runs of the calibration fork that measured on."""
    if not wanted(runner.args):
        return pyperfinternals.manage_as_pyperf(runner)

    def spawn_worker(manager, calibrate_loops, calibrate_warmups):
        def worker(writable):
            if layout.wanted():
                layout.renew(runner.args.module)
            return worker_main(pyperfinternals.worker_command(
                manager, calibrate_loops, calibrate_warmups, writable))
        said, code = forking.call(worker)
        if code:
            # pyperf's words, so run names a signal or says the worker's
            raise RuntimeError("%s failed with exit code %s"
                               % (manager.python, code))
        return pyperf.BenchmarkSuite.loads(said) if said.strip() else None
    return pyperfinternals.manage_with(runner, spawn_worker, first_runs)
