"""Every use of pyperf's private names, in one module (but for pyperf's t
table, which gilbench.model.design reads, a layer below: listed in USED).

gilbench forks its benchmark programs and their workers, keeps a fork's
answers, and adds per-run metadata: pyperf has no public hook for any of
these.  Each private name used is listed in :data:`USED`, and
:func:`missing` says which of them the installed pyperf lacks
(tests/e2e/test_fork_state.py runs it on every interpreter the CI smoke
builds: a pyperf release that moves one fails there, not in a benchmark).

Checked against the pyperf each interpreter installs: 1.7.1 on Python
2.7 (the last 1.x, which calls the manager ``_master.Master``), 2.8.0 on
3.8, 2.10.0 on 3.9 and newer, PyPy and free-threaded builds included.

Worker side: Python 2.7 compatible.  The report side's two statistics
helpers are here too, imported lazily.
"""
import pyperf

try:  # pyperf >= 2.0
    from pyperf import _manager as _manager_module
    _MANAGER_CLASS, _RUNNER_MANAGE = "Manager", "_manager"
except ImportError:  # pyperf 1.x, the last on Python 2.7
    from pyperf import _master as _manager_module
    _MANAGER_CLASS, _RUNNER_MANAGE = "Master", "_master"

try:  # pyperf >= 2.7
    from pyperf import _hooks
except ImportError:
    _hooks = None

Manager = getattr(_manager_module, _MANAGER_CLASS, None)

_MANAGER_WHERE = "%s.%s" % (_manager_module.__name__, _MANAGER_CLASS)

# (where, name) for every private name below; "runner" is an instance's.
USED = [
    ("pyperf.Runner", "_created"),
    ("pyperf.Runner", "_worker"),
    ("pyperf.Runner", _RUNNER_MANAGE),
    ("pyperf.Runner", "_display_result"),
    ("runner", "_worker_task"),
    (_MANAGER_WHERE, "spawn_worker"),
    (_MANAGER_WHERE, "worker_cmd"),
    (_MANAGER_WHERE, "create_bench"),
    (_MANAGER_WHERE, "python"),
    (_MANAGER_WHERE, "bench"),
    (_MANAGER_WHERE, "nprocess"),
    # Used by gilbench.model.design, a layer below this module's: its t
    # table (the worker side has no scipy).
    ("pyperf._utils", "tdist95conf_level"),
]
if _hooks is not None:
    USED.append(("pyperf._hooks", "get_hooks"))
if _RUNNER_MANAGE == "_manager":  # pyperf 2.x: the report side's
    USED += [("pyperf._compare", "format_normalized_mean"),
             ("pyperf._utils", "geometric_mean")]


def missing(runner):
    """The names of :data:`USED` the installed pyperf lacks, as
    ``where.name`` strings; ``runner``: a Runner made for the check (an
    instance's names and a manager's exist only once one is made)."""
    owners = {"pyperf.Runner": pyperf.Runner, "runner": runner,
              "pyperf._hooks": _hooks}
    if Manager is not None:
        owners[_MANAGER_WHERE] = Manager(runner)
    gone = []
    for where, name in USED:
        owner = owners.get(where)
        if owner is None and where not in owners:
            owner = _module(where)
        if owner is None or not hasattr(owner, name):
            gone.append("%s.%s" % (where, name))
    return gone


def _module(name):
    try:
        return __import__(name, fromlist=["_"])
    except ImportError:
        return None


def forget_runners():
    """Empty pyperf's once-per-process watchdog.

    pyperf.Runner adds ``id(cls)`` of every Runner class it makes to the
    class-level set ``_created`` and never removes it.  A fork is a new
    process but inherits the set: a class that died in the parent leaves
    its id there, and a class of the fork's that the allocator puts at the
    same address is refused ("only one ... instance must be created per
    process") -- heap-layout luck.  Every fork starts with the set empty."""
    pyperf.Runner._created.clear()


def forget_runner(runner_class):
    """Take one class's id out of the watchdog, for a Runner made only to
    read its options: nothing of it may outlive the call."""
    pyperf.Runner._created.discard(id(runner_class))


class Runner(pyperf.Runner):
    """pyperf.Runner whose private worker and master steps call methods a
    subclass overrides by public names: :meth:`run_worker` and
    :meth:`manage`."""

    def _worker(self, task):
        return self.run_worker(task)

    def run_worker(self, task):
        """pyperf's own worker loop for ``task``."""
        return pyperf.Runner._worker(self, task)

    def manage(self):
        """pyperf's own master."""
        return manage_as_pyperf(self)


setattr(Runner, _RUNNER_MANAGE, lambda self: self.manage())


def manage_as_pyperf(runner):
    """pyperf's own master: workers started as fresh interpreters."""
    return getattr(pyperf.Runner, _RUNNER_MANAGE)(runner)


def manage_with(runner, spawn_worker, first_runs=()):
    """What pyperf's Runner does as a benchmark's master, with
    ``spawn_worker(manager, calibrate_loops, calibrate_warmups)`` in place
    of the manager's own (which starts an interpreter); ``first_runs``
    (pyperf Runs with values, measured before) count as its first worker
    processes."""
    manager = Manager(runner)
    manager.spawn_worker = (lambda loops, warmups:
                            spawn_worker(manager, loops, warmups))
    if first_runs:
        manager.bench = pyperf.Benchmark(list(first_runs))
        manager.nprocess = len(first_runs)
    if runner.args.verbose and runner._worker_task > 0:
        print("")
    bench = manager.create_bench()
    if not runner.args.quiet:
        print("")
    runner._display_result(bench)
    return bench


def worker_command(manager, calibrate_loops, calibrate_warmups, pipe_fd):
    """The command line pyperf would start the worker with."""
    return manager.worker_cmd(calibrate_loops, calibrate_warmups,
                              str(pipe_fd))


def remember_hooks():
    """Make pyperf's list of installed hooks an answer forks inherit.

    Every pyperf Runner lists them (importlib.metadata's entry points:
    every installed distribution's metadata read), and a benchmark makes
    one Runner in its program and one in each worker."""
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


def compare_helpers():
    """(format_normalized_mean, geometric_mean): pyperf 2.x keeps its
    comparison wording and geometric mean in private modules.  Report
    side only (Python >= 3.9, pyperf >= 2.8)."""
    from pyperf._compare import format_normalized_mean
    from pyperf._utils import geometric_mean
    return format_normalized_mean, geometric_mean
