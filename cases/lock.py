"""Lock family: what taking a lock costs next to releasing the GIL.

Every call goes into extensions/lock.c, which takes a lock of kind ``kind``
around a critical section of ``cs_ns`` nanoseconds of work (lk_work,
calibrated once per benchmark so the axis is in real nanoseconds) and a
plain, non-atomic counter increment:

* ``kind``: ``none`` (the call alone, the gil family's "trivial"), ``mutex``
  (pthread mutex), ``recursive`` (recursive pthread mutex), ``spin``
  (test-and-test-and-set spinlock with a pause instruction), ``pshared``
  (process-shared, robust pthread mutex in shared memory); from Python,
  ``pylock`` (threading.Lock) and ``pyrlock`` (threading.RLock);
* variant ``gil``: the Cython wrapper holds the GIL through the call;
  ``nogil``: it releases it (``with nogil:``; cffi always does).

Cases (threads driver unless said):

``contended``  every kind with an empty critical section, N threads;
``cs``         none and mutex with 100 ns and 1 us critical sections;
``shared``     pshared and spin in N *processes* (processes driver), GIL
               held: each process has its own GIL, so only the lock is
               shared;
``breakeven``  ``work_ns`` of C work per call and no lock, GIL held vs
               released: the work size from which releasing the GIL wins;
``map``        a 1024-key hash map behind one mutex, 100% lookups
               (``ops=read``) or 70/30 lookups/updates (``ops=mix``);
``choice``     the locks an extension author chooses between since 3.13
               (cases/_lock_capi.py: PyMutex, PyThread_type_lock,
               critical sections, Cython's pymutex and critical_section,
               an atomic floor) around ``cs_ns`` of work, ``work_ns``
               after it, shared, one per thread or striped;
``fairness``   one shared lock taken until a stop flag, recording each
               thread's acquisitions and Jain's index per value.

A value is wall seconds per loop; in one loop each of the N threads (or
processes) makes one call.  Every C case records the calibration
(``ns_per_iter``, ``calibration_ms``) and its iteration count
(``cs_iters``) in the run metadata.

Findings: the work size per call from which releasing the GIL pays off at
2 threads (the cache write-up's question: when is a call worth
``with nogil``?), the cheapest lock under contention (its lock kinds),
what its process-shared robust mutex costs at 2 processes against 1; and
of the C-API locks: the cheapest at 1 and N threads, a critical section's
cost, PyMutex against a pthread mutex, and their fairness.
"""
import threading
from itertools import repeat

from gilbench.api import (
    HIGHEST,
    PROCESSES,
    USABLE,
    Axis,
    CaseSpec,
    Unavailable,
    best,
    calling,
    crossover,
    finding,
    import_extension,
    needs,
    processes,
    ratio,
    record,
    recorded,
    scaling,
    table,
    threads,
    throughput,
    value,
    worker_index,
)

from ._lock_capi import (
    C_CONSTANTS,
    CYTHON_MODULE,
    SHARING,
    STRIPES,
    FairnessWindow,
    LostUpdates,  # noqa: F401 -- the family's check, for tests and users
    SharedCalls,
    check_counter,  # noqa: F401
    check_kind,
    lock_set,
    make_lock,
)

try:
    seq_range = xrange  # noqa: F821 -- Python 2.7: no list of `loops` ints
except NameError:
    seq_range = range

FAMILY = "lock"
ORDER = 20
CFFI_MODULE = "gilbench.extensions._lock_cffi"
C_KINDS = C_CONSTANTS
PY_KINDS = {"none": None, "pylock": threading.Lock,
            "pyrlock": threading.RLock}
MAP_KEYS = 1024
MAP_WRITE_PCT = {"read": 0, "mix": 30}
THREAD_COUNTS = (1, 2, 4)
# Jain's index over N threads lies between 1/N (one thread took the lock
# every time) and 1 (all as often): its interval stays inside.
JAIN = ("1/threads", 1)
# Fairness is Jain's index over one value's window: each value lasts at
# least this many seconds (the case's own value length, which every
# design keeps), so what "fair" means does not follow the design's value
# length (10 ms in a first look, 40 ms in the fixed recipe).  CPython's
# Tools/lockbench counts over 1 s.
FAIRNESS_WINDOW = 0.1


def _cs_iters(params, key="cs_ns"):
    """lk_work iterations for the params' nanoseconds, calibrating on first
    use; the calibration goes into the run's metadata."""
    module = import_extension(CYTHON_MODULE)
    iters = module.iters_for_ns(float(params.get(key, 0)))
    record(ns_per_iter=module.ns_per_iter(),
           calibration_ms=module.calibration_ms(), cs_iters=iters)
    return iters


def _calibrate_once(params):
    """Calibrate lk_work in the benchmark program (before_fork): its
    processes inherit the rate instead of each calibrating again."""
    import_extension(CYTHON_MODULE).ns_per_iter()


class CythonLock(object):
    """A lock.c lock through Cython: ``call_gil`` and ``call_nogil``."""

    def __init__(self, kind, cs_iters=0):
        module = import_extension(CYTHON_MODULE)
        self._lock = module.Lock(module.CONSTANTS[C_KINDS[kind]], cs_iters)
        self.call_gil = self._lock.call_gil
        self.call_nogil = self._lock.call_nogil
        self.counter = self._lock.counter
        self.reset = self._lock.reset


class CffiLock(object):
    """The same lock through cffi (API mode): the GIL is released."""

    def __init__(self, kind, cs_iters=0):
        module = import_extension(CFFI_MODULE)
        lib = self._lib = module.lib
        self._lock = module.ffi.gc(
            lib.lk_new(getattr(lib, C_KINDS[kind]), cs_iters), lib.lk_free)
        if self._lock == module.ffi.NULL:
            raise ValueError("lk_new(%s) failed" % kind)
        lock, call = self._lock, lib.lk_call
        self.call_nogil = lambda: call(lock)

    def counter(self):
        return self._lib.lk_counter(self._lock)

    def reset(self):
        self._lib.lk_counter_reset(self._lock)


def c_call(backend, variant):
    """prepare(params) calling lock.c's lk_call from N threads."""
    def prepare(params):
        iters = _cs_iters(params)
        maker = CythonLock if backend == "cython" else CffiLock
        lock = maker(params["kind"], iters)
        return calling(getattr(lock, "call_" + variant))
    return prepare


def _python_trivial():
    return 1


def python_call(params):
    """The Python reference: a function call, alone or in a Python lock."""
    factory = PY_KINDS[params["kind"]]
    if factory is None:
        return calling(_python_trivial)
    lock = factory()

    def locked():
        with lock:
            _python_trivial()
    return calling(locked)


class SharedWork(object):
    """``work(loops)`` that owns its lock until ``close()``.

    The processes driver keeps only ``close`` in the parent once the
    workers are forked (multiprocessing drops a started Process's
    arguments there); were the lock freed then, its mutex would be
    destroyed under the workers.
    """

    def __init__(self, lock):
        self.lock = lock

    def __call__(self, loops):
        call = self.lock.call_gil
        for _ in repeat(None, loops):
            call()

    def close(self):
        self.lock = None


def shared_call(params):
    """A lock in shared memory, made before the processes driver forks."""
    if worker_index() is not None:
        raise Unavailable("a lock shared between processes needs fork: "
                          "spawned workers would each make their own")
    return SharedWork(CythonLock(params["kind"], _cs_iters(params)))


def map_call(variant):
    def prepare(params):
        module = import_extension(CYTHON_MODULE)
        guarded = module.Map(MAP_KEYS, MAP_WRITE_PCT[params["ops"]])
        op = getattr(guarded, "op_" + variant)

        def work(loops):
            for seq in seq_range(loops):
                op(seq)
        return work
    return prepare


def breakeven_call(variant):
    def prepare(params):
        lock = CythonLock("none", _cs_iters(params, "work_ns"))
        return calling(getattr(lock, "call_" + variant))
    return prepare


def _thread_axis(values=THREAD_COUNTS, quick=(1, 2)):
    return threads(values=values, quick=quick, machine=True)


def _held(variant):
    return ("GIL held (Cython)" if variant == "gil"
            else "GIL released (Cython with nogil)")


def contended(variant, backend, kinds, quick, thread_values=THREAD_COUNTS,
              thread_quick=(1, 2), extra_kinds=()):
    how = {"cython": _held(variant),
           "cffi": "GIL released (cffi API mode)"}[backend]
    module = CYTHON_MODULE if backend == "cython" else CFFI_MODULE
    return CaseSpec(
        FAMILY, "contended", variant, backend, c_call(backend, variant),
        "lk_call: lock of `kind`, empty critical section, %s" % how,
        axes=[Axis("kind", kinds, quick=quick, extra=extra_kinds),
              _thread_axis(thread_values, thread_quick)],
        check=needs(module), before_fork=_calibrate_once)


def critical(variant):
    return CaseSpec(
        FAMILY, "cs", variant, "cython", c_call("cython", variant),
        "lk_call: lock of `kind` around `cs_ns` of work, %s"
        % _held(variant),
        axes=[Axis("kind", ["none", "mutex"], quick=["mutex"]),
              Axis("cs_ns", [100, 1000], quick=[1000], unit="ns", log=True),
              _thread_axis(values=(4,), quick=(2,))],
        check=needs(CYTHON_MODULE), before_fork=_calibrate_once)


def breakeven(variant):
    return CaseSpec(
        FAMILY, "breakeven", variant, "cython", breakeven_call(variant),
        "`work_ns` of C work per call, no lock, %s" % _held(variant),
        axes=[Axis("work_ns", [0, 100, 1000, 10000], quick=[100, 10000],
                   unit="ns", log=True),
              # 2 threads: both cores busy; --param threads=2,4 adds more.
              _thread_axis(values=(2,), quick=(2,))],
        check=needs(CYTHON_MODULE), before_fork=_calibrate_once)


def guarded_map(variant):
    return CaseSpec(
        FAMILY, "map", variant, "cython", map_call(variant),
        "one op on a %d-key hash map behind one mutex, %s"
        % (MAP_KEYS, _held(variant)),
        axes=[Axis("ops", ["read", "mix"], quick=["mix"]),
              _thread_axis(values=(1, 4), quick=(2,))],
        check=needs(CYTHON_MODULE))


def choice_call(variant):
    """prepare(params) of the choice case: the kind's locks for the
    sharing mode, ``cs_ns`` inside each call's lock, ``work_ns`` after
    it."""
    def prepare(params):
        inside = _cs_iters(params)
        outside = import_extension(CYTHON_MODULE).iters_for_ns(
            float(params["work_ns"]))
        record(outside_iters=outside)
        locks = lock_set(params["kind"], params["sharing"],
                         params["threads"], inside, outside)
        return SharedCalls(locks, variant)
    return prepare


def fairness_call(variant):
    def prepare(params):
        lock = make_lock(params["kind"], _cs_iters(params))
        return FairnessWindow(lock, params["threads"], variant)
    return prepare


# The locks an extension author chooses between since CPython 3.13, with
# the pthread mutex, the call alone (none) and an atomic increment (the
# floor) to read them against.  Critical sections need the GIL held (an
# attached thread state): the nogil spec has none.
CHOICE_KINDS = {
    "gil": (["none", "atomic", "mutex", "pythread", "pymutex",
             "critical_section", "cython_pymutex",
             "cython_critical_section"],
            ["none", "mutex", "pymutex", "critical_section"],
            ["critical_section2", "spin"]),
    "nogil": (["mutex", "pythread", "pymutex", "cython_pymutex"],
              ["mutex", "pymutex"], ["none", "atomic", "spin"]),
}
# By default the kinds whose waiting differs: Cython's constructs are
# PyMutex and a critical section on 3.13+ (--param kind=... adds them).
FAIR_KINDS = {
    "gil": (["mutex", "pythread", "pymutex", "critical_section",
             "cython_pymutex"],
            ["atomic", "spin", "critical_section2",
             "cython_critical_section"]),
    "nogil_loop": (["mutex", "pythread", "pymutex"],
                   ["atomic", "spin", "cython_pymutex"]),
}
_HOW = {"gil": "GIL held (Cython)",
        "nogil": "GIL released around each call (Cython with nogil)",
        "nogil_loop": "each thread's whole loop in C, GIL released "
                      "(Tools/lockbench's threads)"}


def choice(variant):
    kinds, quick, extra = CHOICE_KINDS[variant]
    return CaseSpec(
        FAMILY, "choice", variant, "cython", choice_call(variant),
        "a C-API lock of `kind` around `cs_ns` of work, `work_ns` after "
        "it, %s; one lock for all threads, one each, or %d stripes"
        % (_HOW[variant], STRIPES),
        axes=[Axis("kind", kinds, quick=quick, extra=extra),
              Axis("sharing", ["shared"], extra=list(SHARING[1:])),
              Axis("cs_ns", [0], extra=[100, 1000], unit="ns"),
              Axis("work_ns", [0], extra=[100, 1000], unit="ns"),
              _thread_axis(values=(1, 2), quick=(1, 2))],
        check=check_kind, before_fork=_calibrate_once)


def fairness(variant):
    kinds, extra = FAIR_KINDS[variant]
    return CaseSpec(
        FAMILY, "fairness", variant, "cython", fairness_call(variant),
        "one shared C-API lock of `kind` taken until a stop flag, each "
        "thread counting its acquisitions, %s" % _HOW[variant],
        axes=[Axis("kind", kinds, extra=extra),
              Axis("cs_ns", [0], extra=[100, 1000], unit="ns"),
              _thread_axis(values=(2,), quick=(2,))],
        check=check_kind, before_fork=_calibrate_once,
        sizing=["--min-time", str(FAIRNESS_WINDOW)])


# The recursive and process-shared mutexes behave like the default one in
# one process (the shared case measures pshared across processes): they
# run when --param kind=... names them, to keep the default run short.
DEFAULT_KINDS = ["none", "mutex", "spin"]
EXTRA_KINDS = ["recursive", "pshared"]
CASES = [
    contended("gil", "cython", DEFAULT_KINDS, ["none", "mutex"],
              extra_kinds=EXTRA_KINDS),
    contended("nogil", "cython", DEFAULT_KINDS, ["none", "mutex"],
              extra_kinds=EXTRA_KINDS),
    contended("nogil", "cffi", ["none", "mutex"], ["mutex"],
              thread_values=(1, 4), thread_quick=(2,)),
    CaseSpec(FAMILY, "contended", "gil", "python", python_call,
             "pure-Python call, alone or inside threading.Lock/RLock",
             axes=[Axis("kind", ["none", "pylock", "pyrlock"],
                        quick=["pylock"]),
                   _thread_axis(values=(1, 4), quick=(2,))]),
    critical("gil"),
    critical("nogil"),
    CaseSpec(FAMILY, "shared", "gil", "cython", shared_call,
             "lk_call on one lock in shared memory from N processes, "
             "GIL held (each process has its own)",
             driver=PROCESSES,
             axes=[Axis("kind", ["pshared", "spin"], quick=["pshared"]),
                   processes(values=(1, 2, 4), quick=(1, 2), machine=True)],
             check=needs(CYTHON_MODULE), before_fork=_calibrate_once),
    breakeven("gil"),
    breakeven("nogil"),
    guarded_map("gil"),
    guarded_map("nogil"),
    choice("gil"),
    choice("nogil"),
    fairness("gil"),
    fairness("nogil_loop"),
]

# The locks the cheapest-lock questions rank: not the call alone, nor the
# atomic floor, which lock nothing.
CANDIDATES = ["mutex", "pythread", "pymutex", "critical_section",
              "cython_pymutex", "cython_critical_section"]
_CFFI_NOTE = ("cffi always releases the GIL, so its rows are divided by "
              "the GIL-held Cython call")
TABLES = [
    table("lock/trivial factor", rows="threads", per=["variant", "backend"],
          where={"case": "contended"},
          cell=ratio(over="kind", numerator="mutex", denominator="none"),
          note="The call inside a pthread mutex over the call alone (the "
          "seed's second table)."),
    table("lock/trivial factor, threading.Lock", rows="threads",
          where={"case": "contended", "backend": "python"},
          cell=ratio(over="kind", numerator="pylock", denominator="none")),
    table("lock/trivial factor with work", rows="threads",
          per=["variant", "cs_ns"], where={"case": "cs"},
          cell=ratio(over="kind", numerator="mutex", denominator="none")),
    table("nogil/gil slowdown", rows="threads", columns="kind",
          per=["interpreter", "backend"], where={"case": "contended"},
          cell=ratio(over="variant", numerator="nogil", denominator="gil",
                     fallback={"backend": "cython"}),
          note="Above 1, releasing the GIL costs more than it buys. "
          + _CFFI_NOTE + "."),
    table("nogil/gil slowdown with work", rows="threads", columns="kind",
          per=["interpreter", "cs_ns"], where={"case": "cs"},
          cell=ratio(over="variant", numerator="nogil", denominator="gil")),
    table("Cross-process lock", rows="processes", per=["kind"],
          where={"case": "shared"}, cell=value(),
          note="One loop: every process takes the lock in shared memory "
          "once."),
    table("Break-even: release the GIL from", rows="threads",
          where={"case": "breakeven"},
          cell=crossover(along="work_ns", over="variant", numerator="nogil",
                         denominator="gil", unit="ns"),
          note="Release the GIL when a call does at least this much C work "
          "at this many threads."),
    table("Break-even sweep: nogil/gil", rows="work_ns", columns="threads",
          per=["interpreter"], where={"case": "breakeven"},
          cell=ratio(over="variant", numerator="nogil", denominator="gil")),
    table("lk_work calibration", rows="threads",
          where={"case": "breakeven", "variant": "gil", "work_ns": 10000},
          cell=recorded("ns_per_iter", "ns/iteration")),
    table("C-API locks: time per acquisition", rows="kind",
          per=["variant", "threads"], where={"case": "choice"},
          cell=value(per_op=True),
          note="Wall time per loop over the calls in it (one per thread): "
          "what one acquisition costs the threads together."),
    table("PyMutex against a pthread mutex", rows="threads",
          per=["variant"], where={"case": "choice"},
          cell=ratio(over="kind", numerator="pymutex", denominator="mutex")),
    table("Critical section against the call alone", rows="threads",
          where={"case": "choice", "variant": "gil"},
          cell=ratio(over="kind", numerator="critical_section",
                     denominator="none"),
          note="Py_BEGIN_CRITICAL_SECTION on one object shared by all "
          "threads: an empty block on a default build, the object's "
          "mutex on a free-threaded one."),
    table("Fairness (Jain's index)", rows="kind", per=["variant",
                                                        "threads"],
          where={"case": "fairness"},
          cell=recorded("fairness", bounds=JAIN),
          note="Jain's index of the threads' acquisitions in one value's "
          "window (at least %g s), (sum x)^2 / (n sum x^2): 1 when every "
          "thread took the lock as often, 1/n when one took it every "
          "time." % FAIRNESS_WINDOW),
    table("Fairness window: acquisitions per second", rows="kind",
          per=["variant", "threads"], where={"case": "fairness"},
          cell=throughput(unit="acquisitions")),
    table("Guarded map", rows="ops", columns="variant",
          per=["interpreter", "threads"], where={"case": "map"},
          cell=value(),
          note="The seed's read/mix (1 thread) and read_cont/mix_cont "
          "(N threads): GIL held for the whole call vs released around "
          "the mutex."),
]

FINDINGS = [
    finding("From how much C work per call does releasing the GIL pay off, "
            "{N} threads?",
            crossover(along="work_ns", over="variant", numerator="nogil",
                      denominator="gil", unit="ns"),
            at={"case": "breakeven", "threads": USABLE}),
    finding("Which lock is cheapest under contention, {N} threads, GIL "
            "released?",
            best(over="kind", among=["mutex", "spin", "recursive",
                                     "pshared"]),
            at={"case": "contended", "variant": "nogil",
                "backend": "cython", "threads": USABLE},
            evidence="lock/trivial factor"),
    finding("A robust mutex shared between processes: time per lock at 2 "
            "processes vs 1?",
            ratio(over="processes", numerator=2, denominator=1),
            at={"case": "shared", "kind": "pshared"},
            evidence="Cross-process lock"),
    finding("The cheapest lock uncontended (1 thread, GIL held)?",
            best(over="kind", among=CANDIDATES),
            at={"case": "choice", "variant": "gil", "threads": 1},
            evidence="C-API locks: time per acquisition"),
    finding("The cheapest lock at {N} threads, GIL held?",
            best(over="kind", among=CANDIDATES),
            at={"case": "choice", "variant": "gil", "threads": USABLE},
            evidence="C-API locks: time per acquisition"),
    finding("A critical section around a trivial call, 1 thread: how "
            "much slower than the call alone?",
            ratio(over="kind", numerator="critical_section",
                  denominator="none"),
            at={"case": "choice", "variant": "gil", "threads": 1}),
    finding("PyMutex against a pthread mutex at {N} threads, GIL "
            "released: time per acquisition?",
            ratio(over="kind", numerator="pymutex", denominator="mutex"),
            at={"case": "choice", "variant": "nogil", "threads": USABLE}),
    finding("Fairness at {N} threads, loops in C: PyMutex or "
            "PyThread_type_lock (Jain's index)?",
            best(over="kind", of=recorded("fairness", bounds=JAIN),
                 pick=HIGHEST, among=["pymutex", "pythread"]),
            at={"case": "fairness", "variant": "nogil_loop",
                "threads": USABLE},
            evidence="Fairness (Jain's index)"),
    finding("The fairest lock at {N} threads, GIL held (Jain's index)?",
            best(over="kind", of=recorded("fairness", bounds=JAIN),
                 pick=HIGHEST),
            at={"case": "fairness", "variant": "gil", "threads": USABLE},
            evidence="Fairness (Jain's index)"),
    finding("A contended pthread mutex, GIL released: scalability-law fit "
            "over threads (s, k, peak)?", scaling(over="threads"),
            at={"case": "contended", "variant": "nogil", "backend": "cython",
                "kind": "mutex"}, evidence="lock/trivial factor"),
]
