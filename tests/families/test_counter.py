"""The native counter is exact under contention: N threads x M calls of
locked_increment_nogil() (GIL released, pthread mutex held) give N*M."""
import threading

import pytest

_gil_cy = pytest.importorskip("gilbench.extensions._gil_cy",
                              reason="Cython extension not built")

NTHREADS = 4
CALLS = 200000


def _hammer(increment, nthreads, calls):
    barrier = threading.Barrier(nthreads + 1, timeout=30)
    errors = []

    def body():
        try:
            barrier.wait()
            for _ in range(calls):
                increment()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=body) for _ in range(nthreads)]
    for thread in threads:
        thread.start()
    barrier.wait()  # all threads released together
    for thread in threads:
        thread.join(120)
    assert not any(t.is_alive() for t in threads)
    assert errors == []


def test_reset_and_value():
    _gil_cy.counter_reset()
    assert _gil_cy.counter_value() == 0
    for _ in range(3):
        _gil_cy.locked_increment_nogil()
    assert _gil_cy.counter_value() == 3
    _gil_cy.counter_reset()
    assert _gil_cy.counter_value() == 0


def test_locked_increment_nogil_is_exact_across_threads():
    _gil_cy.counter_reset()
    _hammer(_gil_cy.locked_increment_nogil, NTHREADS, CALLS)
    assert _gil_cy.counter_value() == NTHREADS * CALLS
    _gil_cy.counter_reset()


def test_cffi_locked_increment_shares_the_counter():
    _gil_cffi = pytest.importorskip("gilbench.extensions._gil_cffi",
                                    reason="cffi extension not built")
    lib = _gil_cffi.lib
    lib.gb_counter_reset()
    _hammer(lib.gb_locked_increment, NTHREADS, CALLS // 4)
    assert lib.gb_counter_value() == NTHREADS * (CALLS // 4)
    assert lib.gb_locked_increment() == NTHREADS * (CALLS // 4) + 1
    lib.gb_counter_reset()
    assert lib.gb_counter_value() == 0


def test_wrappers_return_none():
    for name in ("trivial_gil", "trivial_nogil", "lock_gil", "lock_nogil"):
        assert getattr(_gil_cy, name)() is None
