"""GRWL family: a GIL vs a global read-write lock vs no lock at all.

A simulated interpreter core in C (extensions/grwl.c) runs "units" -- a
fixed chain of xorshift steps standing for one bytecode -- in N threads,
each thread making one call with the Python GIL released.  The variant is
how the core serialises them (the GRWL write-up's experiment in a
Python JIT):

* ``nosync``: no lock (thread-unsafe; the upper bound);
* ``gil``: one global lock, handed to a waiting thread every
  SWITCH_UNITS units as CPython's GIL does (forced switching);
* ``grwl``: a writer-preferred pthread rwlock held in read mode; a fraction
  ``write_frac`` of the units (a C extension call, a GC) take it in write
  mode, and readers let go as soon as a writer waits;
* ``grwl_rp``: the same with a reader-preferred rwlock (glibc's default).

Cases: ``core`` (every thread runs the same mix; ``write_frac`` only where
a write lock exists, so nosync and gil are divided at write_frac=0),
``counters`` (nosync, each unit bumping two statistics counters in one
shared cache line, per thread with a flush every 1024 units, or not at
all), ``groups`` (``writers`` threads make only exclusive units, the rest
only ordinary ones, as JMH's @Group; per-role throughput is recorded as
run metadata, ``reader_units_per_s`` and ``writer_units_per_s``).

A value is wall seconds per loop; in one loop every thread runs
UNITS_PER_LOOP units, so ops_per_loop = threads x UNITS_PER_LOOP and the
throughput tables read units/s.  Every run records ``violations`` (times a
lock holder overlapped another; must be 0) and, with counters,
``counter_error`` (counted minus executed units; must be 0).  The C barely
depends on the interpreter: only thread start-up and the GIL hand-off
around the one call per thread differ between interpreters.

Findings (the GRWL write-up's claims): GRWL throughput over the GIL's at
2 threads, what the GIL costs against no lock at 1 thread, GRWL throughput
from 2 to 3 threads, what shared statistics counters cost, and the write
fraction from which the GRWL loses to the GIL.
"""
import threading

from gilbench.api import (
    USABLE,
    Axis,
    CaseSpec,
    crossover,
    finding,
    import_extension,
    needs,
    perf_counter,
    ratio,
    record,
    recorded,
    scaling,
    speedup,
    table,
    threads,
    throughput,
    worker_index,
)

FAMILY = "grwl"
ORDER = 30
CYTHON_MODULE = "gilbench.extensions._grwl_cy"
CFFI_MODULE = "gilbench.extensions._grwl_cffi"
UNITS_PER_LOOP = 1000
# CPython 3 hands the GIL over after 5 ms (2.7 after 100 bytecodes): a
# switch interval of units must stay well below that (tens of ns a unit).
SWITCH_UNITS = 200000
PPM = 1000000
MODES = {"nosync": "GR_NOSYNC", "gil": "GR_GIL", "grwl": "GR_GRWL_WRITER",
         "grwl_rp": "GR_GRWL_READER", "broken": "GR_BROKEN"}
COUNTERS = {"none": "GR_COUNTERS_NONE", "shared": "GR_COUNTERS_SHARED",
            "flushed": "GR_COUNTERS_FLUSHED"}


class CythonCore(object):
    def __init__(self, mode, counters, switch_units=SWITCH_UNITS):
        module = import_extension(CYTHON_MODULE)
        self._core = module.Core(module.CONSTANTS[MODES[mode]],
                                 module.CONSTANTS[COUNTERS[counters]],
                                 switch_units)
        self.run = self._core.run
        self.totals = self._core.totals


class CffiCore(object):
    def __init__(self, mode, counters, switch_units=SWITCH_UNITS):
        module = import_extension(CFFI_MODULE)
        lib = self._lib = module.lib
        self._core = module.ffi.gc(
            lib.gr_new(getattr(lib, MODES[mode]),
                       getattr(lib, COUNTERS[counters]), switch_units),
            lib.gr_free)

    def run(self, units, write_ppm, phase):
        return self._lib.gr_run(self._core, units, write_ppm, phase)

    def totals(self):
        lib, core = self._lib, self._core
        return {"units": lib.gr_units(core), "writes": lib.gr_writes(core),
                "violations": lib.gr_violations(core),
                "counted_units": lib.gr_counted_units(core),
                "counted_bytes": lib.gr_counted_bytes(core)}


BACKENDS = {"cython": (CythonCore, CYTHON_MODULE),
            "cffi": (CffiCore, CFFI_MODULE)}


class Team(object):
    """What the threads of one benchmark share: the core, and each value's
    per-thread timings, recorded by the last thread to finish."""

    def __init__(self, core, nthreads, counters):
        self.core = core
        self.nthreads = nthreads
        self.counters = counters
        self.lock = threading.Lock()
        self.finished = []  # (role, start, end, units) of this value

    def finish(self, role, start, end, units):
        with self.lock:
            self.finished.append((role, start, end, units))
            if len(self.finished) < self.nthreads:
                return
            done, self.finished = self.finished, []
        self.record(done)

    def record(self, done):
        totals = self.core.totals()
        facts = {"violations": totals["violations"],
                 "exclusive_units": totals["writes"]}
        if self.counters != "none":
            facts["counter_error"] = (totals["counted_units"]
                                      - totals["units"])
        for role in ("reader", "writer"):
            mine = [d for d in done if d[0] == role]
            if mine and len(mine) < len(done):
                wall = max(d[2] for d in mine) - min(d[1] for d in mine)
                facts[role + "_units_per_s"] = (
                    sum(d[3] for d in mine) / wall if wall > 0 else 0.0)
        record(**facts)


def _write_ppm(params):
    return int(round(params.get("write_frac", 0.0) * PPM))


def running(backend, mode, roles=None):
    """prepare(params) for one mode; ``roles(params, index)`` gives a
    thread's (role, write_ppm), by default ("reader", write_frac)."""
    make = BACKENDS[backend][0]

    def prepare(params):
        counters = params.get("counters", "none")
        team = Team(make(mode, counters), params["threads"], counters)

        def work(loops):
            index = worker_index() or 0
            role, ppm = (roles(params, index) if roles
                         else ("reader", _write_ppm(params)))
            units = loops * UNITS_PER_LOOP
            start = perf_counter()
            team.core.run(units, ppm, index)
            team.finish(role, start, perf_counter(), units)
        return work
    return prepare


def _needs(backend):
    return needs(BACKENDS[backend][1])


def _units(params):
    return params["threads"] * UNITS_PER_LOOP


def _group_role(params, index):
    if index < params["writers"]:
        return "writer", PPM
    return "reader", 0


def _no_reader(params):
    if params["threads"] <= params["writers"]:
        return "a group needs at least one reader thread"
    return None


def write_frac(values, quick):
    return Axis("write_frac", values, quick=quick)


def core(mode, backend, fractions, quick, what, thread_axis=None):
    return CaseSpec(
        FAMILY, "core", mode, backend, running(backend, mode),
        "%s; every thread runs the same mix of units (%s)" % (what, backend),
        axes=[write_frac(fractions, quick),
              # 3 threads runs with --param threads=1-4.
              thread_axis or threads(values=(1, 2, 4), quick=(1, 2),
                                     machine=True)],
        check=_needs(backend), ops_per_loop=_units)


def counters_case():
    return CaseSpec(
        FAMILY, "counters", "nosync", "cython",
        running("cython", "nosync"),
        "no lock; each unit bumps two statistics counters (shared: atomics "
        "on one cache line; flushed: per thread, flushed every 1024 units)",
        axes=[Axis("counters", ["none", "shared", "flushed"],
                   quick=["none", "shared"]),
              threads(values=(1, 2), quick=(1, 2), machine=True)],
        check=_needs("cython"), ops_per_loop=_units)


def group(mode, what):
    return CaseSpec(
        FAMILY, "groups", mode, "cython",
        running("cython", mode, roles=_group_role),
        "%s; `writers` threads run only exclusive units, the others only "
        "ordinary ones" % what,
        axes=[Axis("writers", [1], unit="threads"),
              threads(values=(2, 3), quick=(2,))],
        check=_needs("cython"), exclude=_no_reader, ops_per_loop=_units)


FRACTIONS = [0.0, 0.001, 0.01, 0.1]
CASES = [
    core("nosync", "cython", [0.0], [0.0], "no lock at all"),
    core("gil", "cython", [0.0], [0.0],
         "one global lock handed over every %d units" % SWITCH_UNITS),
    core("grwl", "cython", FRACTIONS, [0.01],
         "writer-preferred global read-write lock"),
    core("grwl_rp", "cython", [0.01], [0.01],
         "reader-preferred global read-write lock"),
    core("grwl", "cffi", [0.01], [0.01],
         "writer-preferred global read-write lock",
         thread_axis=threads(values=(2,), quick=(2,))),
    counters_case(),
    group("grwl", "writer-preferred global read-write lock"),
    group("grwl_rp", "reader-preferred global read-write lock"),
]

_TO_P0 = ("nosync and gil take no write lock, so write_frac does not apply "
          "to them: they are measured at write_frac=0.0.")
TABLES = [
    table("GRWL core throughput", rows="threads", columns="variant",
          per=["interpreter", "write_frac"],
          where={"case": "core", "backend": "cython"},
          cell=throughput(unit="units"),
          note="nosync and gil appear at write_frac=0.0 only (no write "
          "lock); grwl_rp's write_frac=0.0 would be grwl's."),
    table("grwl / nosync", rows="threads", columns="write_frac",
          per=["interpreter"], where={"case": "core", "backend": "cython"},
          cell=ratio(over="variant", numerator="grwl", denominator="nosync",
                     fallback={"write_frac": 0.0}), note=_TO_P0),
    table("grwl / gil", rows="threads", columns="write_frac",
          per=["interpreter"], where={"case": "core", "backend": "cython"},
          cell=ratio(over="variant", numerator="grwl", denominator="gil",
                     fallback={"write_frac": 0.0}),
          note=_TO_P0 + " Below 1: the GRWL is faster."),
    table("grwl_rp / grwl", rows="threads", columns="write_frac",
          per=["interpreter"], where={"case": "core", "backend": "cython"},
          cell=ratio(over="variant", numerator="grwl_rp",
                     denominator="grwl")),
    table("gil / nosync", rows="threads",
          where={"case": "core", "backend": "cython"},
          cell=ratio(over="variant", numerator="gil", denominator="nosync")),
    table("GRWL backends", rows="threads", columns="backend",
          where={"case": "core", "variant": "grwl", "write_frac": 0.01,
                 "threads": 2},
          per=["interpreter"], cell=throughput(unit="units")),
    table("Statistics counters", rows="threads", columns="counters",
          per=["interpreter"], where={"case": "counters"},
          cell=throughput(unit="units")),
    table("shared counters / none", rows="threads",
          where={"case": "counters"},
          cell=ratio(over="counters", numerator="shared",
                     denominator="none")),
    table("Reader/writer groups", rows="threads", columns="variant",
          per=["interpreter"], where={"case": "groups"},
          cell=throughput(unit="units"),
          note="All threads together; one thread writes, the rest read."),
    table("Reader/writer groups, readers", rows="threads",
          columns="variant", per=["interpreter"], where={"case": "groups"},
          cell=recorded("reader_units_per_s", "units/s"),
          note="What the reader threads executed together."),
    table("Reader/writer groups, the writer", rows="threads",
          columns="variant", per=["interpreter"], where={"case": "groups"},
          cell=recorded("writer_units_per_s", "units/s"),
          note="Writer starvation shows here: a reader-preferred lock lets "
          "readers hold it while the writer waits."),
]

_CORE = {"case": "core", "backend": "cython"}
FINDINGS = [
    finding("GRWL throughput over the GIL's, {N} threads, no writes?",
            speedup(over="variant", baseline="gil"),
            at=dict(_CORE, variant="grwl", write_frac=0.0, threads=USABLE),
            evidence="grwl / gil"),
    finding("What does the GIL cost against no lock at all, 1 thread "
            "(gil/nosync)?",
            ratio(over="variant", numerator="gil", denominator="nosync"),
            at=dict(_CORE, write_frac=0.0, threads=1)),
    finding("GRWL throughput from 2 to 3 threads (one writer thread)?",
            speedup(over="threads", baseline=2, scaled=True),
            at={"case": "groups", "variant": "grwl", "threads": 3},
            evidence="Reader/writer groups"),
    finding("What do shared statistics counters cost, {N} threads "
            "(shared/none)?",
            ratio(over="counters", numerator="shared", denominator="none"),
            at={"case": "counters", "threads": USABLE}),
    finding("From which write fraction does the GRWL lose to the GIL, "
            "{N} threads?",
            crossover(along="write_frac", over="variant", numerator="grwl",
                      denominator="gil", fallback={"write_frac": 0.0},
                      rises=True),
            at=dict(_CORE, threads=USABLE), evidence="grwl / gil"),
    finding("The GRWL without writes: scalability-law fit over threads "
            "(s, k, peak)?", scaling(over="threads"),
            at=dict(_CORE, variant="grwl", write_frac=0.0),
            evidence="GRWL core throughput"),
]
