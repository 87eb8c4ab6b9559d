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
rest are killed.  Workers die with their parent (PR_SET_PDEATHSIG on Linux)
and are daemonic, so none outlives the pyperf worker that made them.

Where fork is missing, workers are spawned and each calls the case's
prepare() itself (``GILBENCH_START_METHOD=spawn`` forces that, for tests).
"""
import multiprocessing
import os
import signal
import time
import traceback

from gilbench.measure.lifelines import die_with_parent
from gilbench.measure.metrics import process_cpu_seconds
from gilbench.measure.workerindex import set_index
from gilbench.signals import signal_name

try:
    from time import perf_counter
except ImportError:  # Python 2.7: pyperf's is time.time, system-wide too
    from pyperf import perf_counter

POLL_SECONDS = 0.05


class WorkerProcessError(RuntimeError):
    """A worker process of the team died or raised."""


def _worker_main(index, conn, arrived, go, work, factory, pin, keep):
    """A worker process: set up, then one value per ``loops`` received."""
    die_with_parent()
    set_index(index)
    try:
        if work is None:
            work = factory()
        cpu = pin.pin_current(index) if pin is not None else None
        conn.send(("ready", cpu))
    except BaseException:
        conn.send(("error", _last_line()))
        return
    while True:
        try:
            loops = conn.recv()
        except EOFError:  # the controller is gone
            return
        if loops is None:
            return
        conn.send(_one_value(work, loops, arrived, go, keep))


def _one_value(work, loops, arrived, go, keep):
    cpu_before = process_cpu_seconds()
    arrived.release()
    go.wait()
    start = perf_counter()
    try:
        returned = work(loops)
    except BaseException:
        return ("error", _last_line())
    end = perf_counter()
    return ("value", (start, end, process_cpu_seconds() - cpu_before,
                      returned if keep else None))


def _last_line():
    lines = traceback.format_exc().strip().splitlines()
    return lines[-1] if lines else "unknown error"


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
        self.arrived = context.Semaphore(0)
        self.go = context.Event()
        self.conns, self.processes = [], []
        forked = self.start_method == "fork"
        # A spawned worker shares nothing with this process: it makes its
        # work again with ``respawn``, a picklable callable.
        factory = None if forked else respawn
        try:
            for index in range(count):
                parent_end, child_end = context.Pipe()
                process = context.Process(
                    target=_worker_main,
                    args=(index, child_end, self.arrived, self.go,
                          work if forked else None, factory, pin,
                          keep_returns))
                process.daemon = True
                process.start()
                child_end.close()
                self.conns.append(parent_end)
                self.processes.append(process)
            self.pinned = [self._receive(i, "ready") for i in range(count)]
        except BaseException:
            self.close()
            raise

    def run(self, loops):
        """(wall seconds, CPU utilisation of the team, what each worker's
        work(loops) returned, in worker order) for one value."""
        for conn in self.conns:
            conn.send(loops)
        for _ in range(self.count):
            self._wait_arrival()
        cpu_before, wall_before = process_cpu_seconds(), perf_counter()
        self.go.set()
        results = [self._receive(i, "value") for i in range(self.count)]
        wall_after = perf_counter()
        cpu = process_cpu_seconds() - cpu_before
        self.go.clear()  # every worker is past the gate: it has answered
        starts, ends, cpus, returns = zip(*results)
        wall = max(ends) - min(starts)
        utilisation = (cpu + sum(cpus)) / (wall_after - wall_before)
        return wall, utilisation, list(returns)

    def _wait_arrival(self):
        while not self.arrived.acquire(True, POLL_SECONDS):
            self._check_alive()

    def _receive(self, index, expected):
        conn = self.conns[index]
        while not conn.poll(POLL_SECONDS):
            self._check_alive()
        try:
            kind, payload = conn.recv()
        except EOFError:  # it died: say how, once it has been reaped
            kind, payload = "died", None
        if kind == "died":
            self.processes[index].join(1.0)
            self._check_alive()
            raise WorkerProcessError("worker process %d closed its pipe"
                                     % index)
        if kind == "error":
            raise WorkerProcessError("worker process %d of %d raised %s"
                             % (index, self.count, payload))
        assert kind == expected, (kind, expected)
        return payload

    def _check_alive(self):
        for index, process in enumerate(self.processes):
            code = process.exitcode
            if code is not None:
                raise WorkerProcessError("worker process %d of %d %s"
                                 % (index, self.count, _how(code)))

    def close(self):
        """Stop every worker; none may outlive the team."""
        for conn in self.conns:
            try:
                conn.send(None)
            except (IOError, OSError, ValueError):
                pass
        deadline = time.time() + 1.0
        for process in self.processes:
            process.join(max(0.0, deadline - time.time()))
            if process.is_alive():
                process.terminate()
                process.join(1.0)
            if process.is_alive():
                os.kill(process.pid, signal.SIGKILL)
                process.join()
        self.processes, self.conns = [], []


def _how(code):
    if code < 0:
        return "was killed by %s" % signal_name(-code)
    return "exited with code %d" % code
