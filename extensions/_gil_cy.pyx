# cython: language_level=3
"""Cython wrappers of gil.c: each native function once with the GIL held
for the whole call and once inside ``with nogil:``.

Every wrapper takes no argument and returns None so that the only
difference between a ``_gil`` and a ``_nogil`` function is the release and
re-acquisition of the GIL around the C call.
"""

cdef extern from "gil.h":
    long gb_trivial() nogil
    long gb_lock_trivial() nogil
    long gb_locked_increment() nogil
    long gb_counter_value() nogil
    void gb_counter_reset() nogil


def trivial_gil():
    gb_trivial()


def trivial_nogil():
    with nogil:
        gb_trivial()


def lock_gil():
    gb_lock_trivial()


def lock_nogil():
    with nogil:
        gb_lock_trivial()


def locked_increment_nogil():
    with nogil:
        gb_locked_increment()


def counter_value():
    return gb_counter_value()


def counter_reset():
    gb_counter_reset()
