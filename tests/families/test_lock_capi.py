"""The lock family's C-API locks (cases/_lock_capi.py, lock.c's new kinds,
extensions/_lock_cy31.pyx): every kind excludes, where it is built; where
it is not, the case says why; critical sections refuse a detached thread;
the sharing modes spread the calls as declared; the fairness window
counts every acquisition, records Jain's index and the per-thread counts,
and fails a lock that loses updates.  On a free-threaded build (where
PyMutex and critical sections really lock) the same in a subprocess."""
import errno
import sys

import pytest
from helpers import drive
from test_free_threading import cc, cython_tree, ft_python, guarded  # noqa: F401  (fixtures)
from test_lock import hammer

from gilbench.api import Unavailable

lock_case = pytest.importorskip("gilbench.cases.lock")
capi = pytest.importorskip("gilbench.cases._lock_capi")
_lock_cy = pytest.importorskip("gilbench.extensions._lock_cy",
                               reason="Cython extension not built")
HAS_CY31 = sys.version_info[0] >= 3
NTHREADS = 4
CALLS = 5000
CS_ITERS = 20  # widens the counter's read-modify-write window


def built(kind):
    try:
        capi.check_kind({"kind": kind})
    except Unavailable:
        return False
    return True


EVERY_KIND = ["atomic", "pythread", "pymutex", "critical_section",
              "critical_section2", "cython_pymutex",
              "cython_critical_section"]
CALLS_OF = [(kind, method) for kind in EVERY_KIND
            for method in ("call_gil", "call_nogil")
            if not (kind in capi.NEEDS_GIL and method == "call_nogil")]


@pytest.mark.parametrize("kind,method", CALLS_OF)
def test_every_built_kind_counts_exactly_across_threads(kind, method):
    if not built(kind):
        pytest.skip("%s is n/a here (test_unbuilt_kinds_say_why; the "
                    "free-threaded test below runs it)" % kind)
    lock = capi.make_lock(kind, CS_ITERS)
    hammer(getattr(lock, method), NTHREADS, CALLS)
    capi.check_counter(lock.counter(), NTHREADS * CALLS)


def test_kinds_every_interpreter_3x_builds_are_built():
    for kind in ("atomic", "pythread"):
        assert built(kind), kind
    assert built("cython_pymutex") == HAS_CY31


@pytest.mark.parametrize("kind,words", [
    ("pymutex", "PyMutex is public from CPython 3.13"),
    ("critical_section", "critical sections are public from CPython 3.13"),
    ("critical_section2", "critical sections are public from CPython 3.13"),
])
def test_unbuilt_kinds_say_why(kind, words):
    import platform
    expected = (platform.python_implementation() == "CPython"
                and sys.version_info >= (3, 13))
    assert built(kind) == expected
    if expected:
        return
    with pytest.raises(Unavailable) as raised:
        capi.check_kind({"kind": kind})
    assert str(raised.value) == "%s (this is %s)" % (
        words, capi.this_interpreter())
    with pytest.raises(ValueError):  # lk_new refuses what it lacks
        _lock_cy.Lock(_lock_cy.CONSTANTS[capi.C_CONSTANTS[kind]], 0)


def test_this_interpreter_names_pypy_but_not_cpython(monkeypatch):
    monkeypatch.setattr(capi.platform, "python_implementation",
                        lambda: "PyPy")
    assert capi.this_interpreter() == "PyPy %d.%d" % sys.version_info[:2]
    monkeypatch.setattr(capi.platform, "python_implementation",
                        lambda: "CPython")
    assert capi.this_interpreter() == "%d.%d" % sys.version_info[:2]


def test_critical_sections_are_declared_with_the_gil_held_only():
    for spec in lock_case.CASES:
        if spec.case in ("choice", "fairness") and spec.variant != "gil":
            kinds = spec.axis("kind").values + spec.axis("kind").extra
            assert not set(kinds) & set(capi.NEEDS_GIL), spec.base_name


def test_cffi_has_the_kinds_lock_c_has():
    cffi = pytest.importorskip("gilbench.extensions._lock_cffi")
    lib = cffi.lib
    for kind in ("atomic", "pythread", "pymutex"):
        constant = _lock_cy.CONSTANTS[capi.C_CONSTANTS[kind]]
        assert lib.lk_kind_built(constant) == _lock_cy.kind_built(constant)
    made = lib.lk_new(lib.LK_PYTHREAD, 0)
    try:
        assert lib.lk_call(made) == 0 and lib.lk_counter(made) == 1
    finally:
        lib.lk_free(made)


@pytest.mark.parametrize("jain,counts", [(1.0, [5, 5, 5]), (0.5, [10, 0]),
                                         (0.8, [3, 1])])
def test_jain_index(jain, counts):
    assert capi.jain_index(counts) == pytest.approx(jain)


def spec_of(base_name):
    (spec,) = [s for s in lock_case.CASES if s.base_name == base_name]
    return spec


@pytest.mark.parametrize("sharing,expected", [
    ("per_thread", [300, 300]),                # one lock each
    ("striped", [150] * capi.STRIPES),         # every stripe in rotation
    ("shared", [600]),
])
def test_sharing_modes_spread_the_calls(sharing, expected):
    spec = spec_of("lock.choice.gil.cython")
    params = {"kind": "pythread", "sharing": sharing, "cs_ns": 0,
              "work_ns": 0, "threads": 2}
    work = spec.prepare(dict(params))
    from gilbench.measure import fanout
    fanout.run_threads(work, 2, 300)
    assert [lock.counter() for lock in work.locks] == expected


def test_choice_records_the_work_inside_and_outside():
    facts = drive(spec_of("lock.choice.nogil.cython"),
                  {"kind": "atomic", "sharing": "shared", "cs_ns": 100,
                   "work_ns": 1000, "threads": 2}, 100)
    assert facts["cs_iters"] == _lock_cy.iters_for_ns(100)
    assert facts["outside_iters"] == _lock_cy.iters_for_ns(1000)


@pytest.mark.parametrize("variant,kind", [("gil", "pythread"),
                                          ("nogil_loop", "pythread"),
                                          ("gil", "cython_pymutex"),
                                          ("nogil_loop", "cython_pymutex"),
                                          ("gil", "cython_critical_section")])
def test_fairness_window_records_counts_and_index(variant, kind):
    if not built(kind):
        pytest.skip("%s is n/a here" % kind)
    loops = 2000
    facts = drive(spec_of("lock.fairness.%s.cython" % variant),
                  {"kind": kind, "cs_ns": 0, "threads": 2}, loops)
    counts = [int(c) for c in facts["acquisitions_per_thread"].split()]
    assert len(counts) == 2
    # The quota, and at most one acquisition more per other thread.
    assert 2 * loops <= sum(counts) <= 2 * loops + 1
    assert 0.5 <= facts["fairness"] <= 1.0
    assert facts["fairness"] == pytest.approx(capi.jain_index(counts))


def test_fairness_window_resets_between_values():
    window = capi.FairnessWindow(capi.make_lock("pythread"), 2, "gil")
    from gilbench.measure import fanout
    from gilbench.measure import record as record_module
    recorded, indexes = {}, []
    record_module.set_sink(recorded)
    record_module._per_value.clear()
    try:
        for loops in (500, 1000):
            result = fanout.run_threads(window, 2, loops)
            window.after_value(result.wall, result.returns)
            indexes.append(capi.jain_index(result.returns))
            assert 2 * loops <= sum(result.returns) <= 2 * loops + 1
        record_module.settle(2)
    finally:
        record_module.set_sink(None)
        record_module._per_value.clear()
    totals = [int(c) for c in recorded["acquisitions_per_thread"].split()]
    assert 3000 <= sum(totals) <= 3002
    # Each value's own window's index, the run's mean of them.
    assert recorded["fairness"] == pytest.approx(sum(indexes) / 2)


def test_fairness_window_fails_a_lock_that_loses_updates():
    """LK_BROKEN takes no lock: two threads' loops in C, GIL released,
    interleave inside the read-modify-write (within a few attempts)."""
    from gilbench.measure import fanout
    for _ in range(20):
        window = capi.FairnessWindow(capi.make_lock("broken", 200), 2,
                                     "nogil_loop")
        result = fanout.run_threads(window, 2, 20000)
        try:
            window.after_value(result.wall, result.returns)
        except capi.LostUpdates as lost:
            assert "updates" in str(lost)
            return
    pytest.fail("20 windows of an unlocked counter lost no update")


# -- free-threaded CPython: PyMutex and critical sections really lock ----

FREE_THREADED = """
    import errno, threading
    from gilbench.extensions import _lock_cy as cy, _lock_cy31 as cy31
    C = cy.CONSTANTS
    def hammer(call, n=4, calls=5000):
        ts = [threading.Thread(target=lambda: [call() for _ in range(calls)])
              for _ in range(n)]
        [t.start() for t in ts]; [t.join() for t in ts]
    counts = {}
    for kind in ("LK_ATOMIC", "LK_PYTHREAD", "LK_PYMUTEX",
                 "LK_CRITICAL_SECTION", "LK_CRITICAL_SECTION2"):
        lock = cy.Lock(C[kind], 20)
        hammer(lock.call_gil)
        counts[kind + " gil"] = lock.counter()
        lock.reset()
        try:
            lock.call_nogil()
        except OSError as exc:
            counts[kind + " nogil"] = errno.errorcode[exc.errno]
            continue
        hammer(lock.call_nogil)
        counts[kind + " nogil"] = lock.counter() - 1
    for name, made in (("cython_pymutex", cy31.PyMutexLock(20)),
                       ("cython_critical_section", cy31.CriticalSection(20))):
        hammer(made.call_gil)
        counts[name] = made.counter()
    fair = cy.Lock(C["LK_PYMUTEX"], 0)
    fair.fair_reset()
    fair.fair_arm(200000)
    got = []
    ts = [threading.Thread(target=lambda: got.append(fair.fair_run_nogil()))
          for _ in range(2)]
    [t.start() for t in ts]; [t.join() for t in ts]
    counts["fair"] = [sum(got), fair.counter()]
    """


@pytest.mark.e2e
def test_free_threaded_locks_exclude_and_keep_the_gil_off(
        ft_python, cc, tmp_path_factory):
    tree = cython_tree(ft_python, cc, tmp_path_factory.mktemp("lock_cy"),
                       "lock", modules=("cy", "cy31"))
    report, stderr = guarded(ft_python, tree, FREE_THREADED,
                             files="counts")
    counts = report["files"]
    for kind in ("LK_ATOMIC", "LK_PYTHREAD", "LK_PYMUTEX"):
        assert counts[kind + " gil"] == counts[kind + " nogil"] == 20000
    for kind in ("LK_CRITICAL_SECTION", "LK_CRITICAL_SECTION2"):
        assert counts[kind + " gil"] == 20000
        # No attached thread state: lock.c refuses rather than crash.
        assert counts[kind + " nogil"] == errno.errorcode[errno.EPERM]
    assert counts["cython_pymutex"] == 20000
    assert counts["cython_critical_section"] == 20000
    total, counter = counts["fair"]
    assert total == counter and 200000 <= total <= 200001
    assert report["state"]["python_gil"] == "disabled", stderr
    assert report["reason"] is None
