/* The service family's id generator: the single C source of truth that
 * both _service_cy.pyx and _service_cffi_build.py wrap.  This header is
 * read verbatim by cffi's cdef(), so it may hold only declarations cdef
 * understands: no macros beyond the include guard, which the cffi build
 * script strips.
 *
 * An id is one positive 64-bit integer, most significant bits first:
 *
 *     tick (63 - SV_NODE_BITS - seq_bits bits) | node | sequence
 *
 * where tick counts tick_ms milliseconds since SV_EPOCH_MS.  Each server
 * process (or thread) owns a node, so ids are unique across them; within
 * one generator they are strictly increasing. */
#ifndef GILBENCH_SERVICE_H
#define GILBENCH_SERVICE_H

enum {
    SV_NODE_BITS = 8,   /* 256 nodes */
    SV_SEQ_BITS = 14    /* 16384 ids per millisecond before borrowing */
};

typedef struct sv_gen sv_gen;

/* A generator for ``node`` (0 .. 2^SV_NODE_BITS - 1), or NULL if out of
 * memory or an argument is out of range.  When a tick's sequence is used
 * up, a capped generator fails (sv_next returns -1, as the seed's
 * OutOfIds) and an uncapped one takes the next tick early, so throughput
 * is never capped and ids stay unique and increasing.  The seed's
 * generator is seq_bits=17, tick_ms=1000, capped=1 (131072 ids/s). */
sv_gen *sv_new(long node, long seq_bits, long tick_ms, int capped);
void sv_free(sv_gen *gen);

/* The next id, or -1 (capped and out of ids this tick).  Lock-free: safe
 * from any number of threads at once, with or without a GIL. */
long long sv_next(sv_gen *gen);

/* Calls that returned -1 since sv_new. */
long long sv_errors(sv_gen *gen);

/* The epoch (Unix milliseconds) ticks count from. */
long long sv_epoch_ms(void);

#endif
