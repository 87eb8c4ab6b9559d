/* Native side of the ceiling family; see ceiling.h for the contract. */
#define _POSIX_C_SOURCE 200112L /* posix_memalign, clock_gettime */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include "calibrate.h"
#include "ceiling.h"
#include "xorshift.h"

/* 128 bytes, not 64: Intel's adjacent-line prefetcher pulls 64-byte lines
 * in pairs, and Apple's M-series cores have 128-byte lines. */
#define CL_LINE 128

struct cl_state {
    unsigned long long x;
} __attribute__((aligned(CL_LINE)));

/* The alignment pads the struct to a whole block: one state per block. */
_Static_assert(sizeof(struct cl_state) == CL_LINE, "cl_state fills a block");

cl_state *
cl_new(void)
{
    void *memory;
    cl_state *state;
    if (posix_memalign(&memory, CL_LINE, sizeof(cl_state)) != 0)
        return NULL;
    state = memory;
    state->x = XORSHIFT_SEED;
    return state;
}

void
cl_free(cl_state *state)
{
    free(state);
}

/* noinline keeps a real call in every caller.  The chain runs in a local,
 * so the state's line is written once per call, not once per step;
 * xorshift_step's barrier keeps the chain.  tests/test_ceiling.py checks
 * the disassembly. */
__attribute__((noinline)) void
cl_spin(cl_state *state, long iterations)
{
    unsigned long long x = state->x;
    long i;
    for (i = 0; i < iterations; i++)
        x = xorshift_step(x);
    state->x = x;
}

unsigned long long
cl_value(const cl_state *state)
{
    return state->x;
}

/* Memory ceiling */

struct cl_stream {
    unsigned long long *source;
    unsigned long long *destination;
    long words;
    unsigned long long passes;
};

cl_stream *
cl_stream_new(long bytes)
{
    cl_stream *stream;
    void *source = NULL, *destination = NULL;
    long i, words = bytes / (long)sizeof(unsigned long long);
    if (words < 1)
        return NULL;
    stream = calloc(1, sizeof(cl_stream));
    if (stream == NULL
        || posix_memalign(&source, CL_LINE, words * sizeof(*stream->source))
        || posix_memalign(&destination, CL_LINE,
                          words * sizeof(*stream->destination))) {
        free(source);
        free(stream);
        return NULL;
    }
    stream->source = source;
    stream->destination = destination;
    stream->words = words;
    /* Written here, before the clock, so that no page is first touched
     * by a timed pass. */
    for (i = 0; i < words; i++) {
        stream->source[i] = (unsigned long long)i;
        stream->destination[i] = 0;
    }
    return stream;
}

void
cl_stream_free(cl_stream *stream)
{
    if (stream == NULL)
        return;
    free(stream->source);
    free(stream->destination);
    free(stream);
}

/* The stores go to heap memory the caller can read (cl_stream_word), so
 * the optimiser must keep every one; tests/families/test_ceiling.py
 * checks the loop in the disassembly. */
__attribute__((noinline)) void
cl_stream_pass(cl_stream *stream)
{
    const unsigned long long *source = stream->source;
    unsigned long long *destination = stream->destination;
    unsigned long long pass = ++stream->passes;
    long i, words = stream->words;
    for (i = 0; i < words; i++)
        destination[i] = source[i] + pass;
}

unsigned long long
cl_stream_word(const cl_stream *stream, long index)
{
    if (index < 0 || index >= stream->words)
        return 0;
    return stream->destination[index];
}

/* Calibration */

static pthread_once_t calibrated = PTHREAD_ONCE_INIT;
static double ns_per_iter = 1.0;
static double calibration_ms = 0.0;

static void
work_of(void *state, long iterations)
{
    cl_spin((cl_state *)state, iterations);
}

static void
calibrate(void)
{
    cl_state state = {XORSHIFT_SEED};
    ns_per_iter = calibrate_ns_per_iter(work_of, &state, &calibration_ms);
}

double
cl_ns_per_iter(void)
{
    pthread_once(&calibrated, calibrate);
    return ns_per_iter;
}

double
cl_calibration_ms(void)
{
    pthread_once(&calibrated, calibrate);
    return calibration_ms;
}

long
cl_iters_for_us(double us)
{
    if (us <= 0)
        return 0;
    return (long)(us * 1e3 / cl_ns_per_iter() + 0.5);
}
