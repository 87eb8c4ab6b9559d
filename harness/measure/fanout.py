"""Runs one work function in N threads that start together.

Threads are created and parked before the clock starts; a start gate
releases them together; the value is the wall time from the first thread's
start to the last thread's finish, so thread creation and joining are never
timed.  Python 2.7 has no threading.Barrier, hence the small gate.
"""
import threading

from gilbench.measure.metrics import process_cpu_seconds
from gilbench.measure.workerindex import set_index
from gilbench.model.casehelpers import perf_counter


class StartGate(object):
    """Lets the controller wait until all parties are parked, then open.

    The parties and the controller wait on conditions of their own (over
    one lock): with one shared condition, each arrival's notify woke the
    parties already parked, and one still waking when the gate opened
    started late (docs/reading.rst, "What one value means")."""

    def __init__(self, parties):
        self._parties = parties
        self._arrived = 0
        self._open = False
        lock = threading.Lock()
        self._all_parked = threading.Condition(lock)
        self._opened = threading.Condition(lock)

    def arrive_and_wait(self):
        with self._opened:
            self._arrived += 1
            if self._arrived == self._parties:
                self._all_parked.notify()
            while not self._open:
                self._opened.wait()

    def wait_for_all(self):
        with self._all_parked:
            while self._arrived < self._parties:
                self._all_parked.wait()

    def open(self):
        with self._opened:
            self._open = True
            self._opened.notify_all()


class FanOutResult(object):
    def __init__(self, wall, cpu_seconds, controller_wall, returns,
                 probes=()):
        self.wall = wall
        self.returns = returns  # what each thread's work(loops) returned
        self.probes = probes  # what each thread's ``probe()`` returned
        # CPU time of the whole process over the timed region divided by its
        # wall time: 1.0 is one busy core, 2.0 two (a "200%" in top).
        self.cpu_utilisation = (cpu_seconds / controller_wall
                                if controller_wall > 0 else 0.0)


def run_threads(work, nthreads, loops, pin=None, probe=None):
    """Call ``work(loops)`` in ``nthreads`` threads; return a FanOutResult
    (with what each call returned, in thread order).

    ``pin`` (a gilbench.measure.pinning.Pinning): each thread pins itself to
    its CPU before it parks.  ``probe``: each thread calls it once pinned,
    one thread at a time (on a GIL build they would time each other), before
    it parks.  An exception in any thread (pinning included) is re-raised
    here after all have finished.
    """
    gate = StartGate(nthreads)
    starts = [None] * nthreads
    ends = [None] * nthreads
    returns = [None] * nthreads
    probes = [None] * nthreads
    one_at_a_time = threading.Lock()
    errors = []

    def body(index):
        set_index(index)
        pinned = True
        try:
            if pin is not None:
                pin.pin_current(index)
        except BaseException as exc:  # still arrive, or the gate never opens
            errors.append(exc)
            pinned = False
        if probe is not None and pinned:
            with one_at_a_time:
                probes[index] = probe()
        gate.arrive_and_wait()
        starts[index] = perf_counter()
        try:
            if pinned:
                returns[index] = work(loops)
        except BaseException as exc:  # reported by the controller
            errors.append(exc)
        ends[index] = perf_counter()

    threads = [threading.Thread(target=body, args=(i,))
               for i in range(nthreads)]
    for thread in threads:
        thread.daemon = True
        thread.start()
    gate.wait_for_all()
    cpu_before, wall_before = process_cpu_seconds(), perf_counter()
    gate.open()
    for thread in threads:
        thread.join()
    cpu_after, wall_after = process_cpu_seconds(), perf_counter()
    if errors:
        raise errors[0]
    return FanOutResult(max(ends) - min(starts), cpu_after - cpu_before,
                        wall_after - wall_before, returns,
                        [p for p in probes if p is not None])
