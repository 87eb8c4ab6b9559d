"""The ``processes`` driver: N worker processes that start together.

The workers are forked once, before the first value (so they inherit what
the case's prepare() built: shared memory, a process-shared mutex), and
reused for every value of one pyperf worker.  For a value each worker gets
``loops``, parks on a start gate in shared memory (a multiprocessing Event:
POSIX semaphores) and, once all have parked, all are released together.
The value is the wall time from the first worker's start to the last one's
finish, read from the system-wide monotonic clock in each worker.  With
``keep_returns`` (the case has an ``after_value``), what ``work(loops)``
returns is sent back (pickled) after the worker's finish; otherwise it is
dropped, so a case that returns something unpicklable by accident still
runs.

A worker that dies fails the benchmark with its signal or exit code; the
rest are killed.  Workers (a :class:`gilbench.measure.team.Team`) die
with their parent (PR_SET_PDEATHSIG on Linux) and are daemonic, so none
outlives the pyperf worker that made them.

Where fork is missing, workers are spawned and each calls the case's
prepare() itself (``GILBENCH_START_METHOD=spawn`` forces that, for tests).
"""
import multiprocessing
import os

from gilbench.measure.metrics import process_cpu_seconds
from gilbench.measure.team import Team
from gilbench.measure.workerindex import set_index
from gilbench.model.casehelpers import perf_counter


class WorkerProcessError(RuntimeError):
    """A worker process of the team died or raised."""


def _worker_main(member, work, factory, pin, keep):
    """A worker process: set up, then one value per ``loops`` received."""
    index = member.index
    set_index(index)

    def set_up():
        made = work if work is not None else factory()
        return made, (pin.pin_current(index) if pin is not None else None)
    made = member.set_up(set_up)
    if made is None:
        return
    for loops in member.orders():
        _one_value(member, made, loops, keep)


def _one_value(member, work, loops, keep):
    cpu_before = process_cpu_seconds()
    member.park()
    start = perf_counter()
    try:
        returned = work(loops)
    except BaseException:
        member.fail()
        return
    end = perf_counter()
    member.reply((start, end, process_cpu_seconds() - cpu_before,
                  returned if keep else None))


def _context():
    method = os.environ.get("GILBENCH_START_METHOD")
    if not hasattr(multiprocessing, "get_context"):  # Python 2.7: fork
        return multiprocessing, "fork"
    if method is None:
        method = ("fork" if "fork" in multiprocessing.get_all_start_methods()
                  else "spawn")
    return multiprocessing.get_context(method), method


class ProcessTeam(object):
    """N parked worker processes; :meth:`run` times one value."""

    def __init__(self, work, count, pin=None, respawn=None,
                 keep_returns=False):
        context, self.start_method = _context()
        # Keep what prepare() built alive in this process: multiprocessing
        # drops a started Process's arguments, and a shared mutex freed
        # here would be destroyed under the workers.
        self.work = work
        self.count = count
        forked = self.start_method == "fork"
        # A spawned worker shares nothing with this process: it makes its
        # work again with ``respawn``, a picklable callable.
        args = (work if forked else None, None if forked else respawn, pin,
                keep_returns)
        self.team = Team(_worker_main, [args] * count, "worker",
                         WorkerProcessError, context=context)
        try:
            self.pinned = self.team.ready()
        except BaseException:
            self.close()
            raise

    def run(self, loops):
        """(wall seconds, CPU utilisation of the team, what each worker's
        work(loops) returned, in worker order) for one value."""
        self.team.park(loops)
        cpu_before, wall_before = process_cpu_seconds(), perf_counter()
        results = self.team.release()
        wall_after = perf_counter()
        cpu = process_cpu_seconds() - cpu_before
        starts, ends, cpus, returns = zip(*results)
        wall = max(ends) - min(starts)
        utilisation = (cpu + sum(cpus)) / (wall_after - wall_before)
        return wall, utilisation, list(returns)

    def close(self):
        """Stop every worker; none may outlive the team."""
        self.team.close()
