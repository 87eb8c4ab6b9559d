# cython: language_level=3
# cython: freethreading_compatible=True
# Safe without a GIL: the module keeps no Python-level state, a State's
# (or Stream's) pointer and size never change after __cinit__, its memory
# is written only by cl_spin (cl_stream_pass) in the one worker that owns
# it (spin releases the GIL, so a GIL build gives no more protection), and
# the calibration runs under pthread_once.  Without this directive,
# importing the module on 3.13t/3.14t enables the GIL for the whole
# process.  (Cython < 3.1, used on 2.7, ignores it in this header.)
"""Cython wrapper of ceiling.c: one worker's state and a GIL-released spin
on it (the compute ceiling), and one worker's buffers and a GIL-released
pass through them (the memory ceiling)."""

cdef extern from "ceiling.h":
    ctypedef struct cl_state:
        pass
    cl_state *cl_new() nogil
    void cl_free(cl_state *state) nogil
    void cl_spin(cl_state *state, long iterations) nogil
    unsigned long long cl_value(const cl_state *state) nogil
    double cl_ns_per_iter() nogil
    double cl_calibration_ms() nogil
    long cl_iters_for_us(double us) nogil
    ctypedef struct cl_stream:
        pass
    cl_stream *cl_stream_new(long bytes) nogil
    void cl_stream_free(cl_stream *stream) nogil
    void cl_stream_pass(cl_stream *stream) nogil
    unsigned long long cl_stream_word(const cl_stream *stream,
                                      long index) nogil


def ns_per_iter():
    """Calibrated nanoseconds per cl_spin iteration (calibrates once)."""
    return cl_ns_per_iter()


def calibration_ms():
    return cl_calibration_ms()


def iters_for_us(double us):
    return cl_iters_for_us(us)


cdef class State:
    """One worker's cl_state and the iterations of each ``spin()``."""
    cdef cl_state *state
    cdef readonly long iterations

    def __cinit__(self, long iterations):
        if iterations < 0:
            raise ValueError("iterations must be >= 0, not %d" % iterations)
        self.state = cl_new()
        if self.state is NULL:
            raise MemoryError("cl_new failed")
        self.iterations = iterations

    def __dealloc__(self):
        cl_free(self.state)

    def spin(self):
        """``iterations`` steps on this state, GIL released."""
        with nogil:
            cl_spin(self.state, self.iterations)

    @property
    def address(self):
        """Where the state lives, for the tests of its alignment."""
        return <size_t>self.state

    def value(self):
        return cl_value(self.state)


cdef class Stream:
    """One worker's pair of ``bytes``-long buffers and a GIL-released pass
    through them (the memory ceiling)."""
    cdef cl_stream *stream
    cdef readonly long bytes

    def __cinit__(self, long bytes):
        if bytes < 8:
            raise ValueError("a stream needs at least 8 bytes, not %d"
                             % bytes)
        with nogil:
            self.stream = cl_stream_new(bytes)
        if self.stream is NULL:
            raise MemoryError("cl_stream_new(%d) failed" % bytes)
        self.bytes = bytes

    def __dealloc__(self):
        cl_stream_free(self.stream)

    def spin(self):
        """One pass, GIL released."""
        with nogil:
            cl_stream_pass(self.stream)

    def word(self, long index):
        return cl_stream_word(self.stream, index)
