# cython: language_level=3
# cython: freethreading_compatible=True
# Safe without a GIL: a Generator's C state is read and written only by
# sv_next's compare-and-swap (service.c) and atomic loads, and the Python
# object is never mutated after __cinit__.  Without this directive,
# importing the module on 3.13t/3.14t enables the GIL for the whole
# process.  (Cython < 3.1, used on 2.7, ignores it in this header.)
"""Cython wrapper of service.c: an id generator whose ``next_id`` is one C
call with the GIL held (it takes ~20 ns: releasing the GIL would cost more
than the call)."""

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

NODE_BITS = SV_NODE_BITS
SEQ_BITS = SV_SEQ_BITS
EPOCH_MS = sv_epoch_ms()


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
