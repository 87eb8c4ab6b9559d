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

/* The load generator: the service's native client (service.c).
 *
 * Sends ``requests`` requests over the ``nflows`` connected UDP sockets
 * ``fds`` (flow f gets requests / nflows, the first requests % nflows one
 * more) and takes their replies, with up to ``window`` requests in flight
 * per flow.  A request is its 4-byte tag (network order; flow f's k-th is
 * first_tag + f * stride + k, mod 2^32, where stride = ceil(requests /
 * nflows)); a reply is the tag then a 64-bit id (network order).  A reply
 * whose tag is not in flight on its flow (late, or foreign) is skipped; a
 * request without reply after ``timeout_ms`` is lost.  Flow f's ids go to
 * ids[f * stride ...] in the order they arrived, received[f] of them.
 *
 * Returns 0 when every request was answered or lost (``*lost`` of them);
 * an errno value when a socket call failed; -1 when ``max_silent``
 * requests in a row were lost (no server answers).  Touches no Python
 * object: the caller releases the GIL around it. */
long sv_drive(const int *fds, long nflows, long requests, long window,
              unsigned int first_tag, long timeout_ms, long max_silent,
              long long *ids, long *received, long *lost);

/* The native echo server: why sv_serve returned (errno values are > 0). */
enum {
    SV_IDLE = -1,      /* no request for idle_ms */
    SV_LIFETIME = -2,  /* lifetime_ms passed */
    SV_ORPHANED = -3   /* getppid() is no longer ``parent`` */
};

/* Answers each request on the bound UDP socket ``fd`` (a 4-byte tag)
 * with the tag and the next id of a per-server counter laid out as an id
 * (the count where the tick goes, ``node``, sequence 0: the Python echo
 * server's EchoCounter), in batches with recvmmsg/sendmmsg where
 * sv_batched().  Waits in poll() for up to ``poll_ms``; after a wait with
 * nothing to read (and every 4096 requests) it ends as the Python server
 * loop does: orphaned, past its lifetime, or idle for ``idle_ms``.
 * Returns one of SV_IDLE/SV_LIFETIME/SV_ORPHANED, or an errno value when a
 * socket call failed (EINVAL: a bad node or poll_ms); ``*served``
 * requests answered.  Touches no Python object: the caller releases the
 * GIL around it; several threads may serve one socket, each with its own
 * node. */
long sv_serve(int fd, long node, long parent, long poll_ms, long idle_ms,
              long lifetime_ms, long long *served);

/* 1 when sv_drive and sv_serve batch with sendmmsg/recvmmsg (Linux), 0
 * when they send and receive one datagram per call. */
int sv_batched(void);

#endif
