"""pyperf's workers as forks of the benchmark program.

pyperf starts each worker as a fresh interpreter, which then imports
pyperf, psutil, gilbench and the case again, the most of what a default
benchmark spends outside its values (docs/operations.rst).  The benchmark program (the pyperf master) has all of that loaded and has
not set the case up (that happens in its calibration fork and in each
worker), so a fork of it is a worker minus the start.  The fork runs the
very command line pyperf would have started (``worker_cmd``), through the
same ``main``; pyperf's manager does everything else as before, and the
worker's exit code and output reach it as a started worker's would.

What a fork does not give: the workers share the program's hash seed
and address-space layout, which pyperf randomises per worker by starting
each afresh (``--fresh-workers`` keeps that).  Each run's ``worker_start``
metadata says which it was.

Worker side: Python 2.7 compatible (pyperf 1.x calls its manager Master).
"""
from __future__ import print_function

import os
import sys

import pyperf

from gilbench.measure import forking

try:  # pyperf >= 2.0
    from pyperf._manager import Manager
    _PYPERF_MANAGE = pyperf.Runner._manager
except ImportError:  # pyperf 1.x, the last on Python 2.7
    from pyperf._master import Master as Manager
    _PYPERF_MANAGE = pyperf.Runner._master

try:  # pyperf >= 2.7
    from pyperf import _hooks
except ImportError:
    _hooks = None

FORK = "fork"
FRESH = "fresh interpreter"


def remember_hooks():
    """Make pyperf's list of installed hooks an answer forks inherit.

    Every pyperf Runner lists them (importlib.metadata's entry points:
    every installed distribution's metadata read), and a benchmark
    makes one Runner in its program and one in each worker."""
    if _hooks is None or getattr(_hooks.get_hooks, "remembered", False):
        return
    try:
        hooks = list(_hooks.get_hooks())
    except Exception:  # noqa: BLE001 -- pyperf will say it when it asks
        return

    def get_hooks():
        return hooks
    get_hooks.remembered = True
    _hooks.get_hooks = get_hooks


def wanted(args):
    """Whether a master with these options forks its workers: it can,
    they are not asked fresh, and they run this very interpreter."""
    return (hasattr(os, "fork") and not args.fresh_workers
            and os.path.realpath(args.python)
            == os.path.realpath(sys.executable))


def manage(runner, worker_main):
    """What pyperf's Runner does as the master of a benchmark, with each
    worker ``worker_main(cmd)`` in a fork when :func:`wanted`, ``cmd``
    the worker's command line as pyperf would start it."""
    if not wanted(runner.args):
        return _PYPERF_MANAGE(runner)
    manager = Manager(runner)

    def spawn_worker(calibrate_loops, calibrate_warmups):
        said, code = forking.call(lambda writable: worker_main(
            manager.worker_cmd(calibrate_loops, calibrate_warmups,
                               str(writable))))
        if code:
            # pyperf's words, so run names a signal or says the worker's
            raise RuntimeError("%s failed with exit code %s"
                               % (manager.python, code))
        return pyperf.BenchmarkSuite.loads(said) if said.strip() else None

    manager.spawn_worker = spawn_worker
    # The rest as pyperf's own Runner._manager has it.
    if runner.args.verbose and runner._worker_task > 0:
        print()
    bench = manager.create_bench()
    if not runner.args.quiet:
        print()
    runner._display_result(bench)
    return bench
