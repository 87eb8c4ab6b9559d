"""Ceiling family: how well this machine scales work that should scale
perfectly -- the control every other family's scaling is read against.

Each worker (a thread, or a worker process) calls extensions/ceiling.c's
cl_spin once per loop: about ``CALL_US`` microseconds of serially
dependent xorshift steps (calibrated once per benchmark, recorded as
``ns_per_iter``, ``calibration_ms`` and ``iterations``) on its own state,
one 128-byte aligned block allocated per worker before the clock.  The GIL
is released around the call, nothing is shared or locked, and no worker
writes where another reads, so what stops N workers from being N times
faster is the machine: usable cores, other tenants, frequency scaling,
the memory system -- not the interpreter or the extension.

* ``threads``: N threads of one process (Cython ``with nogil:``; and
  cffi, which always releases the GIL, at 1 and 2 threads);
* ``processes``: N worker processes (Cython).

A value is wall seconds per loop, in which every worker made one call.
Nothing in the call waits or shares, so only an interruption (the
hypervisor, another tenant, a timer) makes a value slower: the cases
declare ``outliers=INTERRUPTIONS``, and the report leaves such values out
of the machine's ceiling.
The speedup at N is N x (1-worker value) / (N-worker value): ideally N up
to the usable CPUs and flat beyond.  A family's speedup divided by this
one's at the same N is its efficiency against this machine's ceiling.

The second ceiling, ``stream``, is memory's, the usual second roofline
beside compute (McCalpin's STREAM): each thread's call is one pass of
cl_stream_pass through buffers of its own, each at least the last-level
cache (``stream_bytes``), reading one and writing the other.  N threads
share the machine's memory bandwidth, so its speedup is what a
memory-bound call can reach; a call that scales like it, and less than
the compute ceiling, is memory-bound.  It counts threads up to the usable
CPUs only: beyond them threads take turns on the CPUs, as the compute
ceiling already shows, and each one's buffers cost their set-up in
every worker process.
"""
from itertools import repeat

from gilbench.api import (
    INTERRUPTIONS,
    PROCESSES,
    THREADS,
    USABLE,
    CaseSpec,
    finding,
    import_extension,
    needs,
    processes,
    record,
    reference,
    speedup,
    table,
    threads,
    value,
    worker_index,
)
from gilbench.model import machine

FAMILY = "ceiling"
ORDER = 5  # first on the page: every scaling figure is read against it
CYTHON_MODULE = "gilbench.extensions._ceiling_cy"
CFFI_MODULE = "gilbench.extensions._ceiling_cffi"
# Long enough that the Python loop around the call and the GIL hand-off
# are well under 1% of it; short enough for ~800 calls per 40 ms value.
CALL_US = 50.0
COUNTS = (1, 2, 3, 4, 5)  # the gil family's thread counts
QUICK_COUNTS = (1, 2)
# Every speedup divides by the 1-worker value: more values per process
# than the harness default (3) steady it.
SIZING = ["-n", "6"]


def _calibrated(ns_per_iter, calibration_ms, iters_for_us):
    """cl_spin iterations for CALL_US (calibrating on first use), with
    the calibration recorded in the run's metadata."""
    iterations = iters_for_us(CALL_US)
    record(ns_per_iter=ns_per_iter(), calibration_ms=calibration_ms(),
           iterations=iterations)
    return iterations


class CffiState(object):
    """One worker's cl_state through cffi: ``spin()`` and ``address``, as
    the Cython module's State has them."""

    def __init__(self, module, iterations):
        ffi, lib = module.ffi, module.lib
        state = ffi.gc(lib.cl_new(), lib.cl_free)
        if state == ffi.NULL:
            raise MemoryError("cl_new failed")
        self._state = state
        self.address = int(ffi.cast("uintptr_t", state))
        self.spin = lambda: lib.cl_spin(state, iterations)


def cython_states(count):
    module = import_extension(CYTHON_MODULE)
    iterations = _calibrated(module.ns_per_iter, module.calibration_ms,
                             module.iters_for_us)
    return [module.State(iterations) for _ in range(count)]


def cffi_states(count):
    module = import_extension(CFFI_MODULE)
    lib = module.lib
    iterations = _calibrated(lib.cl_ns_per_iter, lib.cl_calibration_ms,
                             lib.cl_iters_for_us)
    return [CffiState(module, iterations) for _ in range(count)]


class Spinners(object):
    """``work(loops)``: the calling worker spins its own state.

    Forked worker processes each write only their copy of the state
    list's memory; spawned ones run prepare() again and pick theirs.
    """

    def __init__(self, states):
        self.states = states

    def __call__(self, loops):
        spin = self.states[worker_index()].spin
        for _ in repeat(None, loops):
            spin()


# Each buffer of a stream is at least the last-level cache, and this
# when Linux does not list it: a pass then streams from memory.
STREAM_MIN_BYTES = 32 << 20


def stream_bytes():
    return max(machine.last_level_cache() or 0, STREAM_MIN_BYTES)


# This process's streams, by worker: the two benchmarks of a duet take
# turns (their values alternate), so they share them, and a duet of 1 and
# 2 threads writes two streams' pages before the clock, not three.
_STREAMS = []


def cython_streams(count):
    """One Stream per worker, its pages written before the clock."""
    module = import_extension(CYTHON_MODULE)
    size = stream_bytes()
    record(stream_bytes=size)
    while len(_STREAMS) < count:
        _STREAMS.append(module.Stream(size))
    return _STREAMS[:count]


def calibrate_cython(params):
    """Calibrate cl_spin in the benchmark program (before_fork): its
    processes inherit the rate instead of each calibrating again."""
    import_extension(CYTHON_MODULE).ns_per_iter()


def calibrate_cffi(params):
    """As calibrate_cython, for the cffi module's own copy of ceiling.c."""
    import_extension(CFFI_MODULE).lib.cl_ns_per_iter()


def spinning(make_states, count_axis):
    """prepare(params): one state per worker, before the clock."""
    def prepare(params):
        return Spinners(make_states(params[count_axis]))
    return prepare


CALIBRATE_ONCE = {"cython": calibrate_cython, "cffi": calibrate_cffi}


def _spec(variant, backend, make_states, module_name, driver, axis, how):
    return CaseSpec(
        FAMILY, "spin", variant, backend,
        spinning(make_states, axis.name),
        "~%g us of C work per call on the worker's own cache lines, "
        "GIL released (%s), in N %s" % (CALL_US, how, variant),
        driver=driver, axes=[axis], check=needs(module_name),
        sizing=SIZING, before_fork=CALIBRATE_ONCE[backend],
        outliers=INTERRUPTIONS)


def _stream_spec():
    return CaseSpec(
        FAMILY, "stream", "threads", "cython",
        spinning(cython_streams, "threads"),
        "one pass through the worker's own buffers (each at least the "
        "last-level cache: a read and a write of main memory), GIL "
        "released (Cython with nogil), in N threads",
        driver=THREADS, axes=[threads(values=QUICK_COUNTS,
                                      quick=QUICK_COUNTS, machine=True)],
        check=needs(CYTHON_MODULE), sizing=SIZING, outliers=INTERRUPTIONS)


CASES = [
    _spec("threads", "cython", cython_states, CYTHON_MODULE, THREADS,
          threads(values=COUNTS, quick=QUICK_COUNTS, machine=True,
                  beyond=True),
          "Cython with nogil"),
    # The same ceiling through another wrapper: 1 and 2 threads keep the
    # default run cheap (--threads names more).
    _spec("threads", "cffi", cffi_states, CFFI_MODULE, THREADS,
          threads(values=QUICK_COUNTS, quick=QUICK_COUNTS),
          "cffi API mode"),
    _spec("processes", "cython", cython_states, CYTHON_MODULE, PROCESSES,
          processes(values=COUNTS, quick=QUICK_COUNTS, machine=True,
                    beyond=True),
          "Cython with nogil"),
    _stream_spec(),
]

# What every efficiency against CEILING, and every scaling figure, reads
# at the same count: the Cython loop, per driver; and what the report's
# causes read as the memory ceiling.
REFERENCE = reference(
    threads={"case": "spin", "variant": "threads", "backend": "cython"},
    processes={"case": "spin", "variant": "processes", "backend": "cython"},
    memory={"threads": {"case": "stream", "variant": "threads",
                        "backend": "cython"}})

_THREADS_SPEEDUP = speedup(over="threads", baseline=1, scaled=True)
_PROCESSES_SPEEDUP = speedup(over="processes", baseline=1, scaled=True)
_IDEAL = "Ideal: N up to the usable CPUs, flat beyond."
# The speedup tables are the ceiling the report draws in other families'
# figures: Cython only, at every count (cffi is in the time table).
TABLES = [
    table("Ceiling: speedup over 1 worker, threads", rows="threads",
          where={"case": "spin", "variant": "threads", "backend": "cython"},
          cell=_THREADS_SPEEDUP, note=_IDEAL),
    table("Memory ceiling: speedup over 1 thread", rows="threads",
          where={"case": "stream"}, cell=_THREADS_SPEEDUP,
          note="What threads streaming through main memory gain: a "
          "memory-bound call gains no more."),
    table("Ceiling: speedup over 1 worker, processes", rows="processes",
          where={"variant": "processes"}, cell=_PROCESSES_SPEEDUP,
          note=_IDEAL),
    table("Ceiling: time per loop, threads", rows="threads",
          per=["backend"], where={"case": "spin", "variant": "threads"},
          cell=value(),
          note="One loop: every thread makes one call of ~%g us."
          % CALL_US),
]

# Every efficiency divides by the ceiling, so its answers are measured
# until their intervals lie within 2% of their points (finding's
# precision), not only until they tell a speedup from none.
PRECISION = 0.02

FINDINGS = [
    finding("This machine's ceiling: speedup of a perfectly parallel C "
            "loop at {N} threads?", _THREADS_SPEEDUP,
            at={"case": "spin", "variant": "threads", "backend": "cython",
                "threads": USABLE}, precision=PRECISION),
    finding("... and at {N} processes?", _PROCESSES_SPEEDUP,
            at={"variant": "processes", "processes": USABLE},
            precision=PRECISION),
    finding("... and streaming through memory at {N} threads?",
            _THREADS_SPEEDUP,
            at={"case": "stream", "threads": USABLE}, precision=PRECISION),
]
