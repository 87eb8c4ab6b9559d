# cython: language_level=3
# cython: freethreading_compatible=True
# Safe without a GIL: a Generator's C state is read and written only by
# sv_next's compare-and-swap (service.c) and atomic loads, and the Python
# object is never mutated after __cinit__; drive() and serve() keep their C
# state on their own stack frames and touch no shared state.  Without this
# directive, importing the module on 3.13t/3.14t enables the GIL for the
# whole process.  (Cython < 3.1, used on 2.7, ignores it in this header.)
"""Cython wrapper of service.c: an id generator whose ``next_id`` is one C
call with the GIL held (it takes ~20 ns: releasing the GIL would cost more
than the call), and the native load generator ``drive``, which releases
the GIL while it sends and receives, and the native echo server
``serve``, which releases it while it serves."""

from libc.stdlib cimport free, malloc

cdef extern from "service.h":
    ctypedef struct sv_gen:
        pass
    enum:
        SV_NODE_BITS
        SV_SEQ_BITS
    sv_gen *sv_new(long node, long seq_bits, long tick_ms, int capped) nogil
    void sv_free(sv_gen *gen) nogil
    long long sv_next(sv_gen *gen) nogil
    long long sv_errors(sv_gen *gen) nogil
    long long sv_epoch_ms() nogil
    long sv_drive(const int *fds, long nflows, long requests, long window,
                  unsigned int first_tag, long timeout_ms, long max_silent,
                  long long *ids, long *received, long *lost) nogil
    enum:
        SV_IDLE
        SV_LIFETIME
        SV_ORPHANED
    long sv_serve(int fd, long node, long parent, long poll_ms, long idle_ms,
                  long lifetime_ms, long long *served) nogil
    int sv_batched() nogil

NODE_BITS = SV_NODE_BITS
SEQ_BITS = SV_SEQ_BITS
EPOCH_MS = sv_epoch_ms()
BATCHED = bool(sv_batched())
IDLE, LIFETIME, ORPHANED = SV_IDLE, SV_LIFETIME, SV_ORPHANED


cdef class Generator:
    """Ids for one node; ``next_id`` may be called from many threads."""
    cdef sv_gen *gen

    def __cinit__(self, long node, long seq_bits=SV_SEQ_BITS,
                  long tick_ms=1, bint capped=False):
        self.gen = sv_new(node, seq_bits, tick_ms, capped)
        if self.gen is NULL:
            raise ValueError("sv_new(%d, %d, %d, %d) failed"
                             % (node, seq_bits, tick_ms, capped))

    def __dealloc__(self):
        if self.gen is not NULL:
            sv_free(self.gen)

    def next_id(self):
        """The next id, or -1 when capped and out of ids this tick."""
        return sv_next(self.gen)

    def errors(self):
        return sv_errors(self.gen)


def drive(fds, long requests, long window, unsigned int first_tag,
          long timeout_ms, long max_silent):
    """sv_drive over the sockets ``fds``: (ids per flow in arrival order,
    lost, status), status as sv_drive returns it (0, an errno value, or
    -1: no server answers)."""
    cdef long nflows = len(fds), f, status, lost = 0
    cdef long stride = (requests + nflows - 1) // nflows if nflows else 0
    cdef int *cfds = <int *>malloc(sizeof(int) * max(nflows, 1))
    cdef long *received = <long *>malloc(sizeof(long) * max(nflows, 1))
    cdef long long *ids = <long long *>malloc(
        sizeof(long long) * max(nflows * stride, 1))
    try:
        if cfds is NULL or received is NULL or ids is NULL:
            raise MemoryError()
        for f in range(nflows):
            cfds[f] = fds[f]
        with nogil:
            status = sv_drive(cfds, nflows, requests, window, first_tag,
                              timeout_ms, max_silent, ids, received, &lost)
        if status != 0:
            return [], lost, status
        return [[ids[f * stride + i] for i in range(received[f])]
                for f in range(nflows)], lost, status
    finally:
        free(cfds)
        free(received)
        free(ids)


def serve(int fd, long node, long parent, long poll_ms, long idle_ms,
          long lifetime_ms):
    """sv_serve on the bound socket ``fd`` with the GIL released:
    (why it ended -- IDLE, LIFETIME, ORPHANED or an errno value --,
    requests answered)."""
    cdef long status
    cdef long long served = 0
    with nogil:
        status = sv_serve(fd, node, parent, poll_ms, idle_ms, lifetime_ms,
                          &served)
    return status, served


def tally(ids, long seq_bits=SV_SEQ_BITS):
    """One flow's ids counted in one C pass: ({node: ids of that node},
    ids that came after a larger or equal id of the same node).  The
    service family's checks after every value (cases/_service_ids.py)
    run over millions of ids; this is their C path."""
    cdef long long last[1 << SV_NODE_BITS]
    cdef Py_ssize_t counts[1 << SV_NODE_BITS]
    cdef Py_ssize_t disorder = 0
    cdef long long id_
    cdef long node, mask = (1 << SV_NODE_BITS) - 1
    for node in range(mask + 1):
        counts[node] = 0  # also: no id of the node yet, last[node] unset
    for item in ids:
        id_ = item
        node = (id_ >> seq_bits) & mask
        if counts[node] and id_ <= last[node]:
            disorder += 1
        counts[node] += 1
        last[node] = id_
    return {node: counts[node] for node in range(mask + 1)
            if counts[node]}, disorder
