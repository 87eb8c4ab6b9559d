/* Native side of the service family; see service.h for the contract.
 *
 * The whole state of a generator is its last id: sv_next reads it, works
 * out the next one from it and the clock, and publishes that with one
 * compare-and-swap, retrying if another thread got there first.  So no id
 * is handed out twice and every id exceeds the one before, whatever the
 * number of threads; the clock going backwards only makes ids come from
 * the last tick seen. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <time.h>
#include "service.h"

#define SV_EPOCH 1577836800000LL /* 2020-01-01T00:00:00Z */
#define SV_ID_BITS 63

struct sv_gen {
    long long last __attribute__((aligned(64)));
    long long errors __attribute__((aligned(64)));
    long long node_bits_value; /* node << seq_bits */
    long long seq_mask;
    int shift;                 /* bits below the tick */
    long tick_ms;
    int capped;
};

sv_gen *
sv_new(long node, long seq_bits, long tick_ms, int capped)
{
    sv_gen *gen;
    if (node < 0 || node >= (1L << SV_NODE_BITS) || seq_bits < 1
        || seq_bits > SV_ID_BITS - SV_NODE_BITS - 20 || tick_ms < 1)
        return NULL;
    gen = calloc(1, sizeof(*gen));
    if (gen == NULL)
        return NULL;
    gen->node_bits_value = (long long)node << seq_bits;
    gen->seq_mask = (1LL << seq_bits) - 1;
    gen->shift = (int)(SV_NODE_BITS + seq_bits);
    gen->tick_ms = tick_ms;
    gen->capped = capped;
    return gen;
}

void
sv_free(sv_gen *gen)
{
    free(gen);
}

static long long
sv_tick(const sv_gen *gen)
{
    struct timespec now;
    long long ms;
    clock_gettime(CLOCK_REALTIME, &now);
    ms = (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
    return (ms - SV_EPOCH) / gen->tick_ms;
}

long long
sv_next(sv_gen *gen)
{
    long long now = sv_tick(gen);
    long long last = __atomic_load_n(&gen->last, __ATOMIC_ACQUIRE);
    long long next, tick;
    for (;;) {
        tick = last >> gen->shift;
        if (now > tick)
            next = (now << gen->shift) | gen->node_bits_value;
        else if ((last & gen->seq_mask) < gen->seq_mask)
            next = last + 1;
        else if (gen->capped) {
            __atomic_add_fetch(&gen->errors, 1, __ATOMIC_RELAXED);
            return -1;
        } else /* borrow the next tick */
            next = ((tick + 1) << gen->shift) | gen->node_bits_value;
        if (__atomic_compare_exchange_n(&gen->last, &last, next, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return next;
    }
}

long long
sv_errors(sv_gen *gen)
{
    return __atomic_load_n(&gen->errors, __ATOMIC_RELAXED);
}

long long
sv_epoch_ms(void)
{
    return SV_EPOCH;
}
