/* The GRWL family's simulated interpreter core: the single C source of
 * truth that both _grwl_cy.pyx and _grwl_cffi_build.py wrap.  This header
 * is read verbatim by cffi's cdef(), so it may hold only declarations cdef
 * understands: no macros beyond the include guard, which the cffi build
 * script strips. */
#ifndef GILBENCH_GRWL_H
#define GILBENCH_GRWL_H

/* How a core serialises its threads. */
enum gr_mode {
    GR_NOSYNC = 0,       /* no lock at all: the (thread-unsafe) upper bound */
    GR_GIL = 1,          /* one global lock, handed over every switch_units */
    GR_GRWL_WRITER = 2,  /* pthread rwlock, writer-preferred (glibc) */
    GR_GRWL_READER = 3,  /* pthread rwlock, reader-preferred (glibc default) */
    GR_BROKEN = 4        /* GR_GRWL_WRITER whose writers skip the write lock:
                            only for testing the overlap check */
};

/* What each unit does to the statistics counters. */
enum gr_counters {
    GR_COUNTERS_NONE = 0,     /* nothing */
    GR_COUNTERS_SHARED = 1,   /* two atomic adds to one shared cache line */
    GR_COUNTERS_FLUSHED = 2   /* per-thread, flushed every GR_FLUSH units */
};

typedef struct gr_core gr_core;

/* A core, or NULL if out of memory or mode/counters is unknown. */
gr_core *gr_new(int mode, int counters, long switch_units);
void gr_free(gr_core *core);

/* Execute ``units`` work units on the calling thread; a fraction
 * write_ppm / 1e6 of them (evenly spaced, shifted by ``phase``) need
 * exclusive mode.  Returns the unit chain's final state, seeded from
 * ``phase``.  Safe to call from any number of threads at once. */
unsigned long gr_run(gr_core *core, long units, long write_ppm, long phase);

/* One unit of work: GR_UNIT_ROUNDS xorshift64 steps of ``x``. */
unsigned long gr_unit(unsigned long x);

/* Totals since gr_new or gr_reset: units and exclusive units executed,
 * overlaps seen by the checks (must stay 0 unless GR_BROKEN), and what the
 * counters add up to (units, and GR_UNIT_BYTES per unit). */
long gr_units(gr_core *core);
long gr_writes(gr_core *core);
long gr_violations(gr_core *core);
long gr_counted_units(gr_core *core);
long gr_counted_bytes(gr_core *core);
long gr_unit_bytes(void);
void gr_reset(gr_core *core);

#endif
