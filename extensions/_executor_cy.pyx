# cython: language_level=3
# cython: freethreading_compatible=True
# cython: subinterpreters_compatible=own_gil
# distutils: extra_compile_args=-include _executor_cy_config.h
# freethreading_compatible: ex_kernel touches only its arguments and stack,
# and this module keeps no state, so it is safe without a GIL (importing it
# on 3.13t does not re-enable the GIL).  subinterpreters_compatible=own_gil
# with module state (CYTHON_USE_MODULE_STATE, set by the header above on
# CPython >= 3.12 with a GIL; Cython keeps no per-module globals in
# C statics then) lets an InterpreterPool's own-GIL subinterpreters import
# it: the interp x native benchmarks (and tests/test_executor.py on 3.12+)
# import it there and check its results.  Cython < 3.1 (2.7) ignores both
# directives.
"""Cython wrapper of executor.c: the kernel with the GIL released."""

cdef extern from "executor.h":
    unsigned long long ex_kernel(unsigned long long seed,
                                 long iterations) nogil


def kernel(unsigned long long seed, long iterations):
    """``iterations`` xorshift64 steps from ``seed``, GIL released."""
    cdef unsigned long long state
    with nogil:
        state = ex_kernel(seed, iterations)
    return state
