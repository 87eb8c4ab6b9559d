# cython: language_level=3
# cython: freethreading_compatible=True
# Safe without a GIL: each object's lock is its cython.pymutex or its own
# critical section, and lock.c's section state is touched only inside it.
"""The locks Cython 3.1 gives an extension author, around lock.c's
critical section (``lk_section``): ``cython.pymutex`` and ``with
cython.critical_section(obj)``, exactly as an author would write them, so
what is measured is what Cython generates for them on this interpreter.

Cython 3.1+ only (setup.py builds ``_<family>_cy31.pyx`` where the Cython
building has them; 2.7 builds with Cython 3.0, which has neither).

* ``cython.pymutex``: a ``PyMutex`` on CPython 3.13+, a
  ``PyThread_type_lock`` before (and on PyPy), which Cython then takes
  without blocking first and otherwise releases the GIL to wait for;
* ``cython.critical_section(obj)``: ``Py_BEGIN_CRITICAL_SECTION`` on
  CPython 3.13+, which locks ``obj`` on a free-threaded build and is an
  empty block on a default one (and before 3.13).
"""
cimport cython

include "lock.pxi"


cdef class _Section:
    """lock.c's critical section state (an LK_NONE lock's counter and
    work), which the subclasses guard with Cython's constructs."""
    cdef lk_lock *state

    def __cinit__(self, long cs_iters=0):
        self.state = lk_new(LK_NONE, cs_iters)
        if self.state is NULL:
            raise ValueError("lk_new(LK_NONE, %d) failed" % cs_iters)

    def __dealloc__(self):
        lk_free(self.state)

    def counter(self):
        return lk_counter(self.state)

    def reset(self):
        lk_counter_reset(self.state)

    def set_outside(self, long iters):
        """Work after each call's release: outside the lock."""
        lk_set_outside(self.state, iters)

    def fair_reset(self):
        lk_fair_reset(self.state)

    def fair_arm(self, long quota):
        lk_fair_arm(self.state, quota)


cdef class PyMutexLock(_Section):
    """``cdef cython.pymutex mutex`` and ``with self.mutex:``."""
    cdef cython.pymutex mutex

    def call_gil(self):
        with self.mutex:
            lk_section(self.state)
        lk_outside(self.state)

    def call_nogil(self):
        with nogil:
            with self.mutex:
                lk_section(self.state)
            lk_outside(self.state)

    def fair_call_gil(self):
        if lk_stopped(self.state):
            return False
        with self.mutex:
            lk_fair_section(self.state)
        lk_outside(self.state)
        return True

    def fair_run_nogil(self):
        cdef long count = 0
        with nogil:
            while not lk_stopped(self.state):
                with self.mutex:
                    lk_fair_section(self.state)
                lk_outside(self.state)
                count += 1
        return count


cdef class CriticalSection(_Section):
    """``with cython.critical_section(self):`` -- needs the GIL (an
    attached thread state), so it has no nogil calls."""

    def call_gil(self):
        with cython.critical_section(self):
            lk_section(self.state)
        lk_outside(self.state)

    def fair_call_gil(self):
        if lk_stopped(self.state):
            return False
        with cython.critical_section(self):
            lk_fair_section(self.state)
        lk_outside(self.state)
        return True
