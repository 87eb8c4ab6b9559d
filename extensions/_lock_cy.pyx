# cython: language_level=3
# cython: freethreading_compatible=True
# Safe without a GIL: Lock and Map objects never change after __cinit__;
# every shared C object (a lock's counter and recovery count, the map) is
# touched only while holding that object's lock, and the calibration runs
# under pthread_once.  Without this directive, importing the module on
# 3.13t/3.14t enables the GIL for the whole process.  (Cython < 3.1, used
# on 2.7, ignores it in this header.)
"""Cython wrappers of lock.c: every call once with the GIL held for the
whole call (``*_gil``) and once inside ``with nogil:`` (``*_nogil``).

The two wrappers of a pair differ only in releasing and re-acquiring the
GIL around the C call.
"""

include "lock.pxi"

import os

# The enum values by their C names, as cffi's lib gives them.
CONSTANTS = {"LK_NONE": LK_NONE, "LK_MUTEX": LK_MUTEX,
             "LK_RECURSIVE": LK_RECURSIVE, "LK_SPIN": LK_SPIN,
             "LK_PSHARED": LK_PSHARED, "LK_BROKEN": LK_BROKEN,
             "LK_ATOMIC": LK_ATOMIC, "LK_PYTHREAD": LK_PYTHREAD,
             "LK_PYMUTEX": LK_PYMUTEX,
             "LK_CRITICAL_SECTION": LK_CRITICAL_SECTION,
             "LK_CRITICAL_SECTION2": LK_CRITICAL_SECTION2}


def kind_built(int kind):
    """Whether this build has the kind (PyMutex and critical sections are
    CPython 3.13's)."""
    return bool(lk_kind_built(kind))


def ns_per_iter():
    """Calibrated nanoseconds per lk_work iteration (calibrates once)."""
    return lk_ns_per_iter()


def calibration_ms():
    return lk_calibration_ms()


def iters_for_ns(double ns):
    return lk_iters_for_ns(ns)


def robust_supported():
    return bool(lk_robust_supported())


def work(long iters):
    """lk_work (GIL held): for tests."""
    return lk_work(iters)


cdef int _failed(int rc) except -1:
    raise OSError(rc, "acquiring the lock failed: %s" % os.strerror(rc))


cdef class Lock:
    """One lk_lock; ``call_gil``/``call_nogil`` may run in many threads at
    once (and, for LK_PSHARED and LK_SPIN, in forked processes).  A
    critical-section kind locks this object (and, for the two-object form,
    a dict it keeps)."""
    cdef lk_lock *lock
    cdef object other

    def __cinit__(self, int kind, long cs_iters=0):
        self.lock = lk_new(kind, cs_iters)
        if self.lock is NULL:
            raise ValueError("lk_new(%d, %d) failed" % (kind, cs_iters))
        self.other = {}
        lk_set_objects(self.lock, <void *>self, <void *>self.other)

    def __dealloc__(self):
        lk_free(self.lock)

    def call_gil(self):
        cdef int rc = lk_call(self.lock)
        if rc:
            _failed(rc)

    def call_nogil(self):
        cdef int rc
        with nogil:
            rc = lk_call(self.lock)
        if rc:
            _failed(rc)

    def set_outside(self, long iters):
        """Work after each call's release: outside the lock."""
        lk_set_outside(self.lock, iters)

    def fair_reset(self):
        lk_fair_reset(self.lock)

    def fair_arm(self, long quota):
        lk_fair_arm(self.lock, quota)

    def fair_call_gil(self):
        """One acquisition of the fairness window with the GIL held: True,
        or False once the stop flag is up."""
        cdef int rc = lk_fair_call(self.lock)
        if rc < 0:
            _failed(-rc)
        return rc == 1

    def fair_run_nogil(self):
        """The thread's whole fairness window in C, the GIL released: how
        many acquisitions it made."""
        cdef long count
        with nogil:
            count = lk_fair_run(self.lock)
        if count < 0:
            _failed(<int>-count)
        return count

    def nested_nogil(self, int depth):
        cdef int held
        with nogil:
            held = lk_nested_call(self.lock, depth)
        return held

    def acquire(self):
        return lk_acquire(self.lock)

    def release(self):
        return lk_release(self.lock)

    def counter(self):
        return lk_counter(self.lock)

    def reset(self):
        lk_counter_reset(self.lock)

    def recoveries(self):
        return lk_recoveries(self.lock)


cdef class Map:
    """One lk_map behind its mutex."""
    cdef lk_map *map

    def __cinit__(self, long nkeys, long write_pct):
        self.map = lk_map_new(nkeys, write_pct)
        if self.map is NULL:
            raise ValueError("lk_map_new(%d, %d) failed" % (nkeys, write_pct))

    def __dealloc__(self):
        lk_map_free(self.map)

    def op_gil(self, long seq):
        lk_map_op(self.map, seq)

    def op_nogil(self, long seq):
        with nogil:
            lk_map_op(self.map, seq)

    def updates(self):
        return lk_map_updates(self.map)

    def hits(self):
        return lk_map_hits(self.map)
