/* Native side of the GRWL family; see grwl.h for the contract.
 *
 * A "unit" stands for one bytecode: a fixed chain of xorshift steps that
 * the optimiser cannot remove (gr_unit).  Each mode wraps the units the way
 * an interpreter would:
 *
 * - GIL: a thread holds the lock while it runs and, every switch_units
 *   units, hands it over if another thread waits (CPython's forced
 *   switching: the dropper waits until the waiter has taken it);
 * - GRWL: a thread holds the rwlock in read mode while it runs; a unit that
 *   needs exclusive mode drops it, takes the write lock, runs, and takes
 *   the read lock back; readers check every unit whether a writer waits
 *   and, if so, let go of the read lock for it (Pyston's read preemption);
 * - NOSYNC: nothing.
 *
 * Checks: every holder of the GIL or the write lock counts as "inside", and
 * any overlap between holders (or of a writer with a reader) is counted in
 * violations.  Shared state that threads write lives on its own cache line
 * so that only the statistics counters show false or true sharing. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include "grwl.h"
#include "xorshift.h"

#define GR_UNIT_ROUNDS 8
#define GR_UNIT_BYTES 48 /* what a unit "allocates", for the bytes counter */
#define GR_FLUSH 1024    /* units between flushes of per-thread counters */
#define GR_PPM 1000000L
#define GR_LINE 64

#define LOAD(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define RELAXED_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define ADD(p, v) __atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST)
#define RELAXED_ADD(p, v) __atomic_add_fetch((p), (v), __ATOMIC_RELAXED)

typedef struct {
    long value;
    char pad[GR_LINE - sizeof(long)];
} gr_line;

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t dropped;    /* signalled when the GIL is dropped */
    pthread_cond_t switched;   /* signalled when a thread takes it */
    int locked;
    unsigned long switch_number;
} gr_gil;

struct gr_core {
    int mode;
    int counters;
    long switch_units;
    gr_gil gil;
    pthread_rwlock_t rwlock;
    /* Both statistics counters share one line on purpose (as the GRWL
     * write-up's allocation count and allocated bytes did). */
    struct {
        long units;
        long bytes;
    } counted __attribute__((aligned(GR_LINE)));
    gr_line gil_waiting __attribute__((aligned(GR_LINE)));
    gr_line writers_waiting;
    gr_line readers_inside;
    gr_line writers_inside;
    gr_line units;
    gr_line writes;
    gr_line violations;
    gr_line checksum;
};

/* noinline keeps a real call per unit in gr_run; xorshift_step's barrier
 * stops the compiler from folding, vectorising or hoisting the chain.
 * tests/test_grwl_native.py checks the built modules' disassembly for the
 * call. */
__attribute__((noinline)) unsigned long
gr_unit(unsigned long x)
{
    int i;
    for (i = 0; i < GR_UNIT_ROUNDS; i++)
        x = xorshift_step(x);
    return x;
}

/* --- the GIL -------------------------------------------------------- */

static void
gil_take(gr_core *core)
{
    gr_gil *gil = &core->gil;
    pthread_mutex_lock(&gil->mutex);
    if (gil->locked) {
        ADD(&core->gil_waiting.value, 1);
        while (gil->locked)
            pthread_cond_wait(&gil->dropped, &gil->mutex);
        ADD(&core->gil_waiting.value, -1);
    }
    gil->locked = 1;
    gil->switch_number++;
    pthread_cond_broadcast(&gil->switched);
    pthread_mutex_unlock(&gil->mutex);
    if (ADD(&core->writers_inside.value, 1) != 1)
        ADD(&core->violations.value, 1);
}

/* ``handover``: wait until a waiting thread has taken the GIL, so that the
 * dropper cannot take it straight back (CPython's FORCE_SWITCHING). */
static void
gil_drop(gr_core *core, int handover)
{
    gr_gil *gil = &core->gil;
    unsigned long number;
    ADD(&core->writers_inside.value, -1);
    pthread_mutex_lock(&gil->mutex);
    gil->locked = 0;
    pthread_cond_signal(&gil->dropped);
    if (handover && LOAD(&core->gil_waiting.value) > 0) {
        number = gil->switch_number;
        while (gil->switch_number == number)
            pthread_cond_wait(&gil->switched, &gil->mutex);
    }
    pthread_mutex_unlock(&gil->mutex);
}

/* --- the GRWL ------------------------------------------------------- */

static void
read_take(gr_core *core)
{
    pthread_rwlock_rdlock(&core->rwlock);
    ADD(&core->readers_inside.value, 1);
    if (LOAD(&core->writers_inside.value) != 0)
        ADD(&core->violations.value, 1);
}

static void
read_drop(gr_core *core)
{
    ADD(&core->readers_inside.value, -1);
    pthread_rwlock_unlock(&core->rwlock);
}

static unsigned long
exclusive_unit(gr_core *core, unsigned long x)
{
    int locking = core->mode != GR_BROKEN;
    read_drop(core);
    ADD(&core->writers_waiting.value, 1);
    if (locking)
        pthread_rwlock_wrlock(&core->rwlock);
    ADD(&core->writers_waiting.value, -1);
    if (ADD(&core->writers_inside.value, 1) != 1
            || LOAD(&core->readers_inside.value) != 0)
        ADD(&core->violations.value, 1);
    x = gr_unit(x);
    if (LOAD(&core->readers_inside.value) != 0)
        ADD(&core->violations.value, 1);
    ADD(&core->writers_inside.value, -1);
    if (locking)
        pthread_rwlock_unlock(&core->rwlock);
    read_take(core);
    return x;
}

/* --- the run loop --------------------------------------------------- */

typedef struct {
    long units;
    long bytes;
} gr_pending;

static void
flush(gr_core *core, gr_pending *pending)
{
    if (pending->units) {
        RELAXED_ADD(&core->counted.units, pending->units);
        RELAXED_ADD(&core->counted.bytes, pending->bytes);
        pending->units = pending->bytes = 0;
    }
}

static void
count(gr_core *core, gr_pending *pending)
{
    switch (core->counters) {
    case GR_COUNTERS_SHARED:
        RELAXED_ADD(&core->counted.units, 1);
        RELAXED_ADD(&core->counted.bytes, GR_UNIT_BYTES);
        break;
    case GR_COUNTERS_FLUSHED:
        pending->units++;
        pending->bytes += GR_UNIT_BYTES;
        if (pending->units >= GR_FLUSH)
            flush(core, pending);
        break;
    }
}

static int
is_rwlock(int mode)
{
    return mode == GR_GRWL_WRITER || mode == GR_GRWL_READER
        || mode == GR_BROKEN;
}

unsigned long
gr_run(gr_core *core, long units, long write_ppm, long phase)
{
    gr_pending pending = {0, 0};
    unsigned long x = 0x9e3779b97f4a7c15UL ^ (unsigned long)phase;
    /* Golden-ratio phases spread the threads' exclusive units apart. */
    long credit = (phase * 618034L) % GR_PPM;
    long since_switch = 0, writes = 0, i;
    int mode = core->mode, rw = is_rwlock(mode);

    if (write_ppm < 0)
        write_ppm = 0;
    if (write_ppm > GR_PPM)
        write_ppm = GR_PPM;
    if (mode == GR_GIL)
        gil_take(core);
    else if (rw)
        read_take(core);
    for (i = 0; i < units; i++) {
        int exclusive = 0;
        credit += write_ppm;
        if (credit >= GR_PPM) {
            credit -= GR_PPM;
            exclusive = 1;
            writes++;
        }
        if (rw) {
            if (RELAXED_LOAD(&core->writers_waiting.value) != 0) {
                read_drop(core);  /* a writer waits: let it in */
                read_take(core);
            }
            x = exclusive ? exclusive_unit(core, x) : gr_unit(x);
        } else {
            if (mode == GR_GIL && ++since_switch >= core->switch_units) {
                since_switch = 0;
                if (RELAXED_LOAD(&core->gil_waiting.value) != 0) {
                    gil_drop(core, 1);
                    gil_take(core);
                }
            }
            x = gr_unit(x);
        }
        count(core, &pending);
    }
    if (mode == GR_GIL)
        gil_drop(core, 0);
    else if (rw)
        read_drop(core);
    flush(core, &pending);
    ADD(&core->units.value, units > 0 ? units : 0);
    ADD(&core->writes.value, writes);
    ADD(&core->checksum.value, (long)(x & 0xffff));
    return x;
}

/* --- life cycle and totals ------------------------------------------ */

gr_core *
gr_new(int mode, int counters, long switch_units)
{
    gr_core *core;
    pthread_rwlockattr_t attr;
    int kind;

    if (mode < GR_NOSYNC || mode > GR_BROKEN || counters < GR_COUNTERS_NONE
            || counters > GR_COUNTERS_FLUSHED)
        return NULL;
    if (posix_memalign((void **)&core, GR_LINE, sizeof(*core)) != 0)
        return NULL;
    __builtin_memset(core, 0, sizeof(*core));
    core->mode = mode;
    core->counters = counters;
    core->switch_units = switch_units > 0 ? switch_units : 1;
    pthread_mutex_init(&core->gil.mutex, NULL);
    pthread_cond_init(&core->gil.dropped, NULL);
    pthread_cond_init(&core->gil.switched, NULL);
    pthread_rwlockattr_init(&attr);
    kind = mode == GR_GRWL_READER ? PTHREAD_RWLOCK_PREFER_READER_NP
        : PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP;
    pthread_rwlockattr_setkind_np(&attr, kind);
    pthread_rwlock_init(&core->rwlock, &attr);
    pthread_rwlockattr_destroy(&attr);
    return core;
}

void
gr_free(gr_core *core)
{
    if (core == NULL)
        return;
    pthread_rwlock_destroy(&core->rwlock);
    pthread_cond_destroy(&core->gil.switched);
    pthread_cond_destroy(&core->gil.dropped);
    pthread_mutex_destroy(&core->gil.mutex);
    free(core);
}

long gr_units(gr_core *core) { return LOAD(&core->units.value); }
long gr_writes(gr_core *core) { return LOAD(&core->writes.value); }
long gr_violations(gr_core *core) { return LOAD(&core->violations.value); }
long gr_counted_units(gr_core *core) { return LOAD(&core->counted.units); }
long gr_counted_bytes(gr_core *core) { return LOAD(&core->counted.bytes); }
long gr_unit_bytes(void) { return GR_UNIT_BYTES; }

void
gr_reset(gr_core *core)
{
    __atomic_store_n(&core->units.value, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&core->writes.value, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&core->violations.value, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&core->counted.units, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&core->counted.bytes, 0, __ATOMIC_SEQ_CST);
}
