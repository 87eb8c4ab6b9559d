"""The lock family's C-API locks: making them, sharing them between
threads, and the fairness window (cases/lock.py declares the cases).

Kinds beside lock.c's pthread ones: ``atomic`` (no lock, one atomic
increment), ``pythread`` (PyThread_type_lock), ``pymutex`` (PyMutex),
``critical_section`` and ``critical_section2`` (Py_BEGIN_CRITICAL_SECTION
on one object, or two), all in lock.c; ``cython_pymutex`` and
``cython_critical_section``, what Cython 3.1 generates for
``cython.pymutex`` and ``with cython.critical_section(obj)``
(extensions/_lock_cy31.pyx).  Every kind guards the same critical section
(lock.c's ``lk_section``).
"""
import platform
import sys
from itertools import cycle, islice

from gilbench.api import (
    Unavailable,
    import_extension,
    record,
    record_per_value,
    worker_index,
)

CYTHON_MODULE = "gilbench.extensions._lock_cy"
CYTHON31_MODULE = "gilbench.extensions._lock_cy31"
C_CONSTANTS = {"none": "LK_NONE", "mutex": "LK_MUTEX",
               "recursive": "LK_RECURSIVE", "spin": "LK_SPIN",
               "pshared": "LK_PSHARED", "broken": "LK_BROKEN",
               "atomic": "LK_ATOMIC", "pythread": "LK_PYTHREAD",
               "pymutex": "LK_PYMUTEX",
               "critical_section": "LK_CRITICAL_SECTION",
               "critical_section2": "LK_CRITICAL_SECTION2"}
CYTHON31_CLASSES = {"cython_pymutex": "PyMutexLock",
                    "cython_critical_section": "CriticalSection"}
# Why a kind lock.c was built without is missing here.
NOT_BUILT = {
    "pymutex": "PyMutex is public from CPython 3.13 (this is %s)",
    "critical_section": "critical sections are public from CPython 3.13 "
                        "(this is %s)",
    "critical_section2": "critical sections are public from CPython 3.13 "
                         "(this is %s)",
}
NO_CYTHON31 = ("cython.pymutex and cython.critical_section are Cython "
               "3.1's, and Python 2.7 builds with Cython 3.0")
# Kinds that need an attached thread state: no nogil calls.
NEEDS_GIL = ("critical_section", "critical_section2",
             "cython_critical_section")
SHARING = ("shared", "per_thread", "striped")
STRIPES = 4


class LostUpdates(AssertionError):
    """A lock let two holders in: the counter missed updates."""


def check_counter(counted, expected):
    """Raise LostUpdates, with how many, unless counted == expected."""
    if counted != expected:
        raise LostUpdates("lost %d of %d updates (counted %d)"
                          % (expected - counted, expected, counted))


def this_interpreter():
    """'3.12', or 'PyPy 3.11': what a reason's '(this is ...)' names."""
    version = "%d.%d" % sys.version_info[:2]
    if platform.python_implementation() == "CPython":
        return version
    return "%s %s" % (platform.python_implementation(), version)


def check_kind(params):
    """A CaseSpec ``check``: Unavailable, with the reason, where the
    kind's API (or the module holding it) is missing here."""
    kind = params["kind"]
    if kind in CYTHON31_CLASSES:
        if sys.version_info[0] < 3:
            raise Unavailable(NO_CYTHON31)
        import_extension(CYTHON31_MODULE)
        return
    module = import_extension(CYTHON_MODULE)
    if not module.kind_built(module.CONSTANTS[C_CONSTANTS[kind]]):
        raise Unavailable(NOT_BUILT[kind] % this_interpreter())


def make_lock(kind, cs_iters=0, outside_iters=0):
    """A lock of ``kind`` around ``cs_iters`` of work, then
    ``outside_iters`` of work after it: ``call_gil``, ``call_nogil``
    (not for NEEDS_GIL kinds), ``fair_*``, ``counter``, ``reset``."""
    if kind in CYTHON31_CLASSES:
        module = import_extension(CYTHON31_MODULE)
        lock = getattr(module, CYTHON31_CLASSES[kind])(cs_iters)
    else:
        module = import_extension(CYTHON_MODULE)
        lock = module.Lock(module.CONSTANTS[C_CONSTANTS[kind]], cs_iters)
    lock.set_outside(outside_iters)
    return lock


def lock_set(kind, sharing, nthreads, cs_iters=0, outside_iters=0):
    """The locks a sharing mode needs: one shared by every thread, one per
    thread, or STRIPES locks."""
    count = {"shared": 1, "per_thread": nthreads,
             "striped": STRIPES}[sharing]
    return [make_lock(kind, cs_iters, outside_iters) for _ in range(count)]


class SharedCalls(object):
    """``work(loops)`` for a threads case: ``loops`` calls, each on the
    next lock of the thread's rotation (its own lock, or every stripe
    starting at its own), the loop the same whatever the sharing."""

    def __init__(self, locks, variant):
        self.locks = locks
        self.calls = [getattr(lock, "call_" + variant) for lock in locks]

    def rotation(self):
        index = worker_index() or 0
        if len(self.calls) == 1:
            return self.calls
        if len(self.calls) == STRIPES:
            start = index % STRIPES
            return self.calls[start:] + self.calls[:start]
        return [self.calls[index]]

    def __call__(self, loops):
        for call in islice(cycle(self.rotation()), loops):
            call()


def jain_index(counts):
    """Jain's fairness index (sum x)^2 / (n sum x^2): 1 when every thread
    made as many acquisitions, 1/n when one made them all."""
    total = float(sum(counts))
    squares = float(sum(c * c for c in counts))
    return total * total / (len(counts) * squares) if squares else 0.0


class FairnessWindow(object):
    """``work(loops)`` of the fairness case: every thread takes one shared
    lock until the stop flag, counting its own acquisitions; the flag goes
    up at ``loops`` x threads acquisitions, so pyperf's loop calibration
    sizes the window and a value stays wall seconds per loop of N
    acquisitions.  ``gil``: a Python loop of calls that hold the GIL;
    ``nogil_loop``: the thread's whole loop in C with the GIL released
    (CPython's Tools/lockbench's threads).

    ``after_value`` checks the counts add up to the lock's counter, then
    records ``fairness`` (Jain's index of each value's per-thread counts,
    per value: the run keeps their mean over its measured values, not the
    loop calibration's short windows nor its warmups) and
    ``acquisitions_per_thread`` (each thread's acquisitions over the
    run's values, in thread order).
    """

    def __init__(self, lock, nthreads, variant):
        self.lock = lock
        self.nthreads = nthreads
        self.variant = variant
        self.totals = [0] * nthreads
        lock.fair_reset()

    def __call__(self, loops):
        lock = self.lock
        lock.fair_arm(loops * self.nthreads)
        if self.variant == "nogil_loop":
            return lock.fair_run_nogil()
        call, count = lock.fair_call_gil, 0
        while call():
            count += 1
        return count

    def after_value(self, wall, returns):
        counted = self.lock.counter()
        self.lock.fair_reset()  # before the check: the next value's window
        check_counter(counted, sum(returns))
        self.totals = [t + r for t, r in zip(self.totals, returns)]
        record_per_value(fairness=jain_index(returns))
        record(acquisitions_per_thread=" ".join(str(t)
                                                for t in self.totals))

    def close(self):
        self.lock = None
