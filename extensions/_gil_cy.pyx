# cython: language_level=3
# cython: freethreading_compatible=True
# Safe without a GIL: the wrappers keep no Python-level state, gb_trivial
# touches only its own stack, and the one shared C object (gil.c's counter)
# is read and written only under gil.c's pthread mutex.  Without this
# directive, importing the module on 3.13t/3.14t enables the GIL for the
# whole process.  (Cython < 3.1, used on 2.7, ignores it in this header.)
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
