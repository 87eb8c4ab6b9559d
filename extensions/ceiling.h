/* The ceiling family's native side: work that should scale perfectly, the
 * single C source of truth that both _ceiling_cy.pyx and
 * _ceiling_cffi_build.py wrap.  This header is read verbatim by cffi's
 * cdef(), so it may hold only declarations cdef understands: no macros
 * beyond the include guard, which the cffi build script strips. */
#ifndef GILBENCH_CEILING_H
#define GILBENCH_CEILING_H

/* One worker's state: a single xorshift word, alone in a 128-byte aligned
 * block (see ceiling.c), so no two workers ever write to one cache line. */
typedef struct cl_state cl_state;

/* A new state (seeded), or NULL when memory is short; cl_free(NULL) is a
 * no-op. */
cl_state *cl_new(void);
void cl_free(cl_state *state);

/* ``iterations`` serially dependent xorshift steps on this state's word:
 * CPU work with no shared write and no memory traffic beyond its own line.
 * A state must be used by one thread at a time. */
void cl_spin(cl_state *state, long iterations);

/* The state's word, for the tests (the chain's result). */
unsigned long long cl_value(const cl_state *state);

/* Calibrated nanoseconds per iteration (calibrates once per process), what
 * the calibration took, and the iterations for ``us`` microseconds. */
double cl_ns_per_iter(void);
double cl_calibration_ms(void);
long cl_iters_for_us(double us);

/* The memory ceiling: one worker's pair of buffers of ``bytes`` each, far
 * larger than the last-level cache, so that a pass streams through main
 * memory as STREAM's copy does.  NULL when memory is short or bytes < 8. */
typedef struct cl_stream cl_stream;
cl_stream *cl_stream_new(long bytes);
void cl_stream_free(cl_stream *stream);

/* One pass: every word of the destination becomes its source word plus
 * the pass's number (a read and a write of ``bytes`` each).  A stream
 * must be used by one thread at a time. */
void cl_stream_pass(cl_stream *stream);

/* The destination's word at ``index`` (for the tests: index + passes). */
unsigned long long cl_stream_word(const cl_stream *stream, long index);

#endif
