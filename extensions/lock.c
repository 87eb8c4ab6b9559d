/* Native side of the lock-contention family; see lock.h for the contract.
 *
 * Every lock lives, with the counter its critical section increments, in
 * one anonymous MAP_SHARED mapping, so a process forked after lk_new shares
 * it; only the process-shared mutex and the spinlock (plain atomics on
 * shared memory) are correct across processes. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "calibrate.h"
#include "lock.h"
#include "xorshift.h"

#define LK_LINE 64
/* A spinner that has paused this often yields its CPU: with more threads
 * than cores, a pure spinner can burn whole time slices while the holder
 * is descheduled (and hang a 2-core machine's suite for seconds). */
#define LK_SPINS_BEFORE_YIELD 1000

#if defined(__linux__)
#define LK_HAVE_ROBUST 1
#else
#define LK_HAVE_ROBUST 0
#endif

#if defined(__x86_64__) || defined(__i386__)
#define LK_PAUSE() __asm__ __volatile__("pause" ::: "memory")
#elif defined(__aarch64__) || defined(__arm__)
#define LK_PAUSE() __asm__ __volatile__("yield" ::: "memory")
#else
#define LK_PAUSE() __asm__ __volatile__("" ::: "memory")
#endif

struct lk_lock {
    int kind;
    pid_t owner;  /* the process that made it, and alone may destroy it */
    long cs_iters;
    pthread_mutex_t mutex;
    int spin __attribute__((aligned(LK_LINE)));
    long counter __attribute__((aligned(LK_LINE)));
    long recoveries;
};

/* noinline keeps a real call in every caller; xorshift_step's barrier
 * keeps the chain (its result is often unused).
 * tests/test_lock_native.py checks the disassembly. */
__attribute__((noinline)) unsigned long
lk_work(long iters)
{
    unsigned long x = XORSHIFT_SEED;
    long i;
    for (i = 0; i < iters; i++)
        x = xorshift_step(x);
    return x;
}

static void
spin_lock(int *flag)
{
    unsigned spins = 0;
    for (;;) {
        if (!__atomic_exchange_n(flag, 1, __ATOMIC_ACQUIRE))
            return;
        while (__atomic_load_n(flag, __ATOMIC_RELAXED)) {
            LK_PAUSE();
            if (++spins >= LK_SPINS_BEFORE_YIELD) {
                sched_yield();
                spins = 0;
            }
        }
    }
}

static int
init_mutex(lk_lock *lock)
{
    pthread_mutexattr_t attr;
    int rc = pthread_mutexattr_init(&attr);
    if (rc != 0)
        return rc;
    if (lock->kind == LK_RECURSIVE)
        rc = pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    if (rc == 0 && lock->kind == LK_PSHARED) {
        rc = pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
#if LK_HAVE_ROBUST
        if (rc == 0)
            rc = pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
#endif
    }
    if (rc == 0)
        rc = pthread_mutex_init(&lock->mutex, &attr);
    pthread_mutexattr_destroy(&attr);
    return rc;
}

lk_lock *
lk_new(int kind, long cs_iters)
{
    lk_lock *lock;
    if (kind < LK_NONE || kind > LK_BROKEN || cs_iters < 0)
        return NULL;
    lock = mmap(NULL, sizeof(*lock), PROT_READ | PROT_WRITE,
                MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (lock == MAP_FAILED)
        return NULL;
    lock->kind = kind;
    lock->owner = getpid();
    lock->cs_iters = cs_iters;
    if (init_mutex(lock) != 0) {
        munmap(lock, sizeof(*lock));
        return NULL;
    }
    return lock;
}

/* A forked process that lets go of its copy only unmaps it: destroying the
 * mutex would write to the memory its siblings still use. */
void
lk_free(lk_lock *lock)
{
    if (lock == NULL)
        return;
    if (lock->owner == getpid())
        pthread_mutex_destroy(&lock->mutex);
    munmap(lock, sizeof(*lock));
}

int
lk_acquire(lk_lock *lock)
{
    int rc;
    switch (lock->kind) {
    case LK_NONE:
    case LK_BROKEN:
        return 0;
    case LK_SPIN:
        spin_lock(&lock->spin);
        return 0;
    default:
        rc = pthread_mutex_lock(&lock->mutex);
#if LK_HAVE_ROBUST
        if (rc == EOWNERDEAD && lock->kind == LK_PSHARED) {
            /* The owner died inside its critical section: what it guarded
             * (here, the counter) is as it left it; mark the mutex usable
             * again and count the recovery. */
            rc = pthread_mutex_consistent(&lock->mutex);
            lock->recoveries++;
        }
#endif
        return rc;
    }
}

int
lk_release(lk_lock *lock)
{
    switch (lock->kind) {
    case LK_NONE:
    case LK_BROKEN:
        return 0;
    case LK_SPIN:
        __atomic_store_n(&lock->spin, 0, __ATOMIC_RELEASE);
        return 0;
    default:
        return pthread_mutex_unlock(&lock->mutex);
    }
}

/* The critical section: the read and the write of the counter straddle
 * the work, so a lock that does not exclude loses updates visibly. */
static void
critical_section(lk_lock *lock)
{
    long seen = lock->counter;
    lk_work(lock->cs_iters);
    lock->counter = seen + 1;
}

int
lk_call(lk_lock *lock)
{
    int rc;
    if (lock->kind == LK_NONE) {
        lk_work(lock->cs_iters);
        return 0;
    }
    rc = lk_acquire(lock);
    if (rc != 0)
        return rc;
    critical_section(lock);
    lk_release(lock);
    return 0;
}

int
lk_nested_call(lk_lock *lock, int depth)
{
    int held = 0, i;
    while (held < depth && lk_acquire(lock) == 0)
        held++;
    if (held == depth)
        critical_section(lock);
    for (i = 0; i < held; i++)
        lk_release(lock);
    return held;
}

long
lk_counter(lk_lock *lock)
{
    return lock->counter;
}

void
lk_counter_reset(lk_lock *lock)
{
    lock->counter = 0;
    lock->recoveries = 0;
}

long
lk_recoveries(lk_lock *lock)
{
    return lock->recoveries;
}

int
lk_robust_supported(void)
{
    return LK_HAVE_ROBUST;
}

/* Calibration */

static pthread_once_t calibrated = PTHREAD_ONCE_INIT;
static double ns_per_iter = 1.0;
static double calibration_ms = 0.0;

static void
work_of(void *unused, long iters)
{
    (void)unused;
    lk_work(iters);
}

static void
calibrate(void)
{
    ns_per_iter = calibrate_ns_per_iter(work_of, NULL, &calibration_ms);
}

double
lk_ns_per_iter(void)
{
    pthread_once(&calibrated, calibrate);
    return ns_per_iter;
}

double
lk_calibration_ms(void)
{
    pthread_once(&calibrated, calibrate);
    return calibration_ms;
}

long
lk_iters_for_ns(double ns)
{
    if (ns <= 0)
        return 0;
    return (long)(ns / lk_ns_per_iter() + 0.5);
}

/* Guarded map */

struct lk_map {
    pthread_mutex_t mutex;
    long nkeys;
    unsigned long mask;  /* slots - 1; slots is a power of two >= 2 nkeys */
    long write_pct;
    long hits;
    long *keys;          /* 0: empty slot */
    long *values;
};

static unsigned long
mix(unsigned long x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdUL;
    x ^= x >> 33;
    return x;
}

static unsigned long
slot_of(lk_map *map, long key)
{
    unsigned long slot = mix((unsigned long)key) & map->mask;
    while (map->keys[slot] != key && map->keys[slot] != 0)
        slot = (slot + 1) & map->mask;
    return slot;
}

lk_map *
lk_map_new(long nkeys, long write_pct)
{
    lk_map *map;
    unsigned long slots = 2;
    long key;
    if (nkeys < 1 || write_pct < 0 || write_pct > 100)
        return NULL;
    while (slots < 2 * (unsigned long)nkeys)
        slots *= 2;
    map = calloc(1, sizeof(*map));
    if (map == NULL)
        return NULL;
    map->keys = calloc(slots, sizeof(long));
    map->values = calloc(slots, sizeof(long));
    if (map->keys == NULL || map->values == NULL
            || pthread_mutex_init(&map->mutex, NULL) != 0) {
        free(map->keys);
        free(map->values);
        free(map);
        return NULL;
    }
    map->nkeys = nkeys;
    map->mask = slots - 1;
    map->write_pct = write_pct;
    for (key = 1; key <= nkeys; key++)
        map->keys[slot_of(map, key)] = key;
    return map;
}

void
lk_map_free(lk_map *map)
{
    if (map == NULL)
        return;
    pthread_mutex_destroy(&map->mutex);
    free(map->keys);
    free(map->values);
    free(map);
}

long
lk_map_op(lk_map *map, long seq)
{
    unsigned long useq = (unsigned long)seq;
    long key = 1 + (long)(mix(useq + 1) % (unsigned long)map->nkeys);
    int update = (long)((useq * 37) % 100) < map->write_pct;
    unsigned long slot;
    long result = -1;
    pthread_mutex_lock(&map->mutex);
    slot = slot_of(map, key);
    if (map->keys[slot] == key) {
        if (update) {
            result = ++map->values[slot];
        } else {
            result = map->values[slot];
            map->hits++;
        }
    }
    pthread_mutex_unlock(&map->mutex);
    return result;
}

long
lk_map_updates(lk_map *map)
{
    long total = 0;
    unsigned long slot;
    pthread_mutex_lock(&map->mutex);
    for (slot = 0; slot <= map->mask; slot++)
        total += map->values[slot];
    pthread_mutex_unlock(&map->mutex);
    return total;
}

long
lk_map_hits(lk_map *map)
{
    long hits;
    pthread_mutex_lock(&map->mutex);
    hits = map->hits;
    pthread_mutex_unlock(&map->mutex);
    return hits;
}
