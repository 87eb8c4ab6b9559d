# cython: language_level=3
# cython: freethreading_compatible=True
# Safe without a GIL: Core.run() only calls gr_run(), which keeps its own
# state on the stack and touches the shared core only through atomics,
# pthread locks and the GIL simulation's mutex; the Core object itself is
# never mutated after __cinit__.  Without this directive, importing the
# module on 3.13t/3.14t enables the GIL for the whole process.  (Cython
# < 3.1, used on 2.7, ignores it in this header.)
"""Cython wrapper of grwl.c: a simulated interpreter core whose ``run`` is
called with the GIL released (``with nogil:``), once per thread."""

cdef extern from "grwl.h":
    ctypedef struct gr_core:
        pass
    enum:
        GR_NOSYNC
        GR_GIL
        GR_GRWL_WRITER
        GR_GRWL_READER
        GR_BROKEN
        GR_COUNTERS_NONE
        GR_COUNTERS_SHARED
        GR_COUNTERS_FLUSHED
    gr_core *gr_new(int mode, int counters, long switch_units) nogil
    void gr_free(gr_core *core) nogil
    unsigned long gr_run(gr_core *core, long units, long write_ppm,
                         long phase) nogil
    unsigned long gr_unit(unsigned long x) nogil
    long gr_units(gr_core *core) nogil
    long gr_writes(gr_core *core) nogil
    long gr_violations(gr_core *core) nogil
    long gr_counted_units(gr_core *core) nogil
    long gr_counted_bytes(gr_core *core) nogil
    long gr_unit_bytes() nogil
    void gr_reset(gr_core *core) nogil

# The enum values by their C names, as cffi's lib gives them.
CONSTANTS = {
    "GR_NOSYNC": GR_NOSYNC, "GR_GIL": GR_GIL,
    "GR_GRWL_WRITER": GR_GRWL_WRITER, "GR_GRWL_READER": GR_GRWL_READER,
    "GR_BROKEN": GR_BROKEN, "GR_COUNTERS_NONE": GR_COUNTERS_NONE,
    "GR_COUNTERS_SHARED": GR_COUNTERS_SHARED,
    "GR_COUNTERS_FLUSHED": GR_COUNTERS_FLUSHED,
}
UNIT_BYTES = gr_unit_bytes()


def unit(unsigned long x):
    """One unit of work on ``x`` (GIL held: for tests)."""
    return gr_unit(x)


cdef class Core:
    """One gr_core; ``run`` may be called from many threads at once."""
    cdef gr_core *core

    def __cinit__(self, int mode, int counters, long switch_units):
        self.core = gr_new(mode, counters, switch_units)
        if self.core is NULL:
            raise ValueError("gr_new(%d, %d, %d) failed"
                             % (mode, counters, switch_units))

    def __dealloc__(self):
        gr_free(self.core)

    def run(self, long units, long write_ppm, long phase):
        cdef unsigned long state
        with nogil:
            state = gr_run(self.core, units, write_ppm, phase)
        return state

    def totals(self):
        return {"units": gr_units(self.core),
                "writes": gr_writes(self.core),
                "violations": gr_violations(self.core),
                "counted_units": gr_counted_units(self.core),
                "counted_bytes": gr_counted_bytes(self.core)}

    def reset(self):
        gr_reset(self.core)
