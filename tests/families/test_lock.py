"""The lock family (cases/lock.py, extensions/lock.c): every lock kind
excludes (N threads x M increments of a plain counter give N*M, and N
processes for the locks in shared memory), a lock that does not exclude
fails with the lost count, the recursive mutex survives nesting, a process
that dies holding the robust mutex does not deadlock the next owner, the
work is calibrated in real nanoseconds, and the cases record it."""
import os
import subprocess
import sys
import textwrap
import threading

import pytest
from helpers import ROOT, drive

from gilbench.api import Unavailable
from gilbench.measure import procs, workerindex

lock_case = pytest.importorskip("gilbench.cases.lock")
_lock_cy = pytest.importorskip("gilbench.extensions._lock_cy",
                               reason="Cython extension not built")

C_LOCKS = ("mutex", "recursive", "spin", "pshared")
SHARED_LOCKS = ("pshared", "spin")
NTHREADS = 4
CALLS = 20000
CS_ITERS = 20  # widens the read-modify-write window of the counter
TIMEOUT = 60


def backends():
    found = [("cython", "call_gil"), ("cython", "call_nogil")]
    try:
        import gilbench.extensions._lock_cffi  # noqa: F401
        found.append(("cffi", "call_nogil"))
    except ImportError:
        pass
    return found


def make_lock(backend, kind, cs_iters=CS_ITERS):
    maker = {"cython": lock_case.CythonLock, "cffi": lock_case.CffiLock}
    return maker[backend](kind, cs_iters)


def hammer(call, nthreads=NTHREADS, calls=CALLS):
    """``calls`` calls of ``call`` in each of ``nthreads`` threads released
    together; all must end within TIMEOUT."""
    gate = threading.Event()
    errors = []

    def body():
        gate.wait()
        try:
            for _ in range(calls):
                call()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=body) for _ in range(nthreads)]
    for thread in threads:
        thread.daemon = True
        thread.start()
    gate.set()
    for thread in threads:
        thread.join(TIMEOUT)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert errors == []


@pytest.mark.parametrize("backend,method", backends())
@pytest.mark.parametrize("kind", C_LOCKS)
def test_every_c_lock_counts_exactly_across_threads(backend, method, kind):
    lock = make_lock(backend, kind)
    hammer(getattr(lock, method))
    lock_case.check_counter(lock.counter(), NTHREADS * CALLS)


@pytest.mark.parametrize("kind", ["pylock", "pyrlock"])
def test_python_locks_count_exactly_across_threads(kind):
    lock, counter = lock_case.PY_KINDS[kind](), [0]

    def increment():
        with lock:
            seen = counter[0]
            _lock_cy.work(CS_ITERS)
            counter[0] = seen + 1
    hammer(increment)
    lock_case.check_counter(counter[0], NTHREADS * CALLS)


@pytest.mark.parametrize("kind", SHARED_LOCKS)
def test_shared_locks_count_exactly_across_processes(kind):
    """Through the processes driver itself: 3 forked workers, twice."""
    work = lock_case.SharedWork(lock_case.CythonLock(kind, CS_ITERS))
    team = procs.ProcessTeam(work, 3)
    try:
        team.run(CALLS)
        team.run(CALLS)
    finally:
        team.close()
    lock_case.check_counter(work.lock.counter(), 3 * 2 * CALLS)


def test_a_lock_that_loses_updates_fails_with_the_count():
    """LK_BROKEN takes no lock: with the GIL released, threads on two CPUs
    interleave inside the read-modify-write (within a few attempts)."""
    lock = make_lock("cython", "broken", 200)
    for _ in range(20):
        lock.reset()
        hammer(lock.call_nogil, 4, 5000)
        if lock.counter() != 4 * 5000:
            break
    with pytest.raises(lock_case.LostUpdates) as raised:
        lock_case.check_counter(lock.counter(), 4 * 5000)
    lost = 4 * 5000 - lock.counter()
    assert lost > 0
    assert ("lost %d of 20000 updates" % lost) in str(raised.value)


def test_check_counter_accepts_an_exact_count():
    lock_case.check_counter(7, 7)


def test_recursive_mutex_survives_a_nested_acquire():
    lock = _lock_cy.Lock(_lock_cy.CONSTANTS["LK_RECURSIVE"], 0)
    assert lock.nested_nogil(3) == 3
    assert lock.counter() == 1
    hammer(lambda: lock.nested_nogil(2), 3, 2000)
    assert lock.counter() == 1 + 3 * 2000


def test_plain_mutex_refuses_nothing_at_depth_one():
    lock = _lock_cy.Lock(_lock_cy.CONSTANTS["LK_MUTEX"], 0)
    assert lock.nested_nogil(1) == 1
    assert lock.counter() == 1


DIES_HOLDING = textwrap.dedent("""
    import os
    from gilbench.extensions import _lock_cy
    lock = _lock_cy.Lock(_lock_cy.CONSTANTS["LK_PSHARED"], 0)
    lock.call_gil()
    pid = os.fork()
    if pid == 0:
        assert lock.acquire() == 0
        os._exit(0)  # dies holding the robust mutex
    os.waitpid(pid, 0)
    lock.call_gil()  # EOWNERDEAD, made consistent: no deadlock
    lock.call_gil()
    print(lock.counter(), lock.recoveries())
""")


@pytest.mark.e2e
def test_a_process_dying_holding_the_robust_mutex_does_not_deadlock():
    if not _lock_cy.robust_supported():
        pytest.skip("n/a: no robust mutexes on this platform")
    out = subprocess.run(
        [sys.executable, "-c", DIES_HOLDING], cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True, timeout=TIMEOUT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["3", "1"]


TERMINATES = textwrap.dedent("""
    import threading
    from cases import lock
    for kind in ("mutex", "recursive", "spin", "pshared"):
        for nthreads in (1, 2, 4, 8):
            made = lock.CythonLock(kind, 500)
            threads = [threading.Thread(target=lambda: [
                made.call_nogil() for _ in range(3000)])
                for _ in range(nthreads)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            lock.check_counter(made.counter(), nthreads * 3000)
    print("ok")
""")


@pytest.mark.e2e
def test_every_kind_terminates_oversubscribed_under_a_timeout():
    """Up to 8 threads on however few CPUs, 1 us critical sections: the
    spinlock yields, so a descheduled holder cannot hang the suite."""
    out = subprocess.run(
        [sys.executable, "-c", TERMINATES], cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True, timeout=TIMEOUT)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError):
        _lock_cy.Lock(99, 0)


def test_calibration_gives_real_nanoseconds():
    per_iter = _lock_cy.ns_per_iter()
    assert 0.05 < per_iter < 100
    assert 0 < _lock_cy.calibration_ms() < 1000
    iters = _lock_cy.iters_for_ns(10000)
    assert abs(iters * per_iter - 10000) <= per_iter
    assert _lock_cy.iters_for_ns(0) == 0
    # 10 us of work measured in a loop of calls: within 0.5x-3x (a shared
    # machine only makes it slower; the best of several rounds).
    import timeit
    call = _lock_cy.Lock(_lock_cy.CONSTANTS["LK_NONE"], iters).call_gil
    best = min(timeit.repeat(call, number=200, repeat=5)) / 200
    assert 5e-6 < best < 30e-6, best


def test_work_is_the_xorshift_chain():
    mask = (1 << 64) - 1
    x = 0x9e3779b97f4a7c15
    for _ in range(5):
        x ^= (x << 13) & mask
        x ^= x >> 7
        x ^= (x << 17) & mask
    assert _lock_cy.work(5) == x


@pytest.mark.parametrize("ops,pct", [("read", 0), ("mix", 30)])
def test_guarded_map_counts_its_updates_and_hits(ops, pct):
    assert lock_case.MAP_WRITE_PCT[ops] == pct
    guarded = _lock_cy.Map(lock_case.MAP_KEYS, pct)
    per_thread = 5000  # a multiple of 100: exactly pct% updates

    def body():
        for seq in range(per_thread):
            guarded.op_nogil(seq)
    hammer(body, 3, 1)
    assert guarded.updates() == 3 * per_thread * pct // 100
    assert guarded.hits() == 3 * per_thread * (100 - pct) // 100


def run_spec(base_name, count=2, loops=100, **params):
    """One value through the threads driver; what the case recorded."""
    (spec,) = [s for s in lock_case.CASES if s.base_name == base_name]
    params["threads"] = count
    return drive(spec, params, loops)


@pytest.mark.parametrize("base_name,params", [
    ("lock.contended.nogil.cython", {"kind": "spin"}),
    ("lock.cs.gil.cython", {"kind": "mutex", "cs_ns": 100}),
    ("lock.breakeven.nogil.cython", {"work_ns": 1000}),
])
def test_c_cases_record_the_calibration(base_name, params):
    facts = run_spec(base_name, **params)
    assert facts["ns_per_iter"] == _lock_cy.ns_per_iter()
    assert facts["calibration_ms"] > 0
    ns = params.get("cs_ns", params.get("work_ns", 0))
    assert facts["cs_iters"] == _lock_cy.iters_for_ns(ns)


@pytest.mark.parametrize("kind", ["none", "pylock", "pyrlock"])
def test_python_reference_runs(kind):
    run_spec("lock.contended.gil.python", kind=kind)


@pytest.mark.parametrize("ops", ["read", "mix"])
def test_map_cases_run(ops):
    run_spec("lock.map.nogil.cython", ops=ops)


def test_shared_case_refuses_spawned_workers():
    (spec,) = [s for s in lock_case.CASES
               if s.base_name == "lock.shared.gil.cython"]
    workerindex.set_index(0)
    try:
        with pytest.raises(Unavailable):
            spec.prepare({"kind": "pshared", "processes": 2})
    finally:
        workerindex.set_index(None)


def test_shared_case_keeps_its_lock_until_closed():
    (spec,) = [s for s in lock_case.CASES
               if s.base_name == "lock.shared.gil.cython"]
    work = spec.prepare({"kind": "spin", "processes": 1})
    work(10)
    assert work.lock.counter() == 10
    work.close()
    assert work.lock is None


def test_every_table_names_declared_dimensions():
    from gilbench.model import registry
    declared = registry._declared("gilbench.cases.lock", lock_case,
                                  lock_case.CASES)
    assert declared.tables == lock_case.TABLES
    assert declared.findings == lock_case.FINDINGS
    assert os.path.basename(lock_case.__file__).startswith("lock.py")
