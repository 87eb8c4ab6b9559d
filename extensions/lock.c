/* Native side of the lock-contention family; see lock.h for the contract.
 *
 * Every lock lives, with the counter its critical section increments, in
 * one anonymous MAP_SHARED mapping, so a process forked after lk_new shares
 * it; only the process-shared mutex and the spinlock (plain atomics on
 * shared memory) are correct across processes.  Python.h comes first, as
 * CPython asks, for PyThread_type_lock, PyMutex and critical sections. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <Python.h>
#include "pythread.h"
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

/* PyMutex and critical sections: CPython 3.13's public C API. */
#if !defined(PYPY_VERSION) && PY_VERSION_HEX >= 0x030D0000
#define LK_HAVE_PYMUTEX 1
#else
#define LK_HAVE_PYMUTEX 0
#endif

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
    long outside_iters;
    pthread_mutex_t mutex;
    PyThread_type_lock pythread;
    void *objects[2];  /* what a critical-section kind locks (PyObject *) */
    int spin __attribute__((aligned(LK_LINE)));
#if LK_HAVE_PYMUTEX
    PyMutex pymutex;
#endif
    long counter __attribute__((aligned(LK_LINE)));
    long recoveries;
    long quota;
    /* Read by every thread before each fair acquisition, written once:
     * its own line, away from the counter's writes. */
    int stop __attribute__((aligned(LK_LINE)));
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

int
lk_kind_built(int kind)
{
    switch (kind) {
    case LK_PYMUTEX:
    case LK_CRITICAL_SECTION:
    case LK_CRITICAL_SECTION2:
        return LK_HAVE_PYMUTEX;
    default:
        return kind >= LK_NONE && kind <= LK_CRITICAL_SECTION2;
    }
}

lk_lock *
lk_new(int kind, long cs_iters)
{
    lk_lock *lock;
    if (!lk_kind_built(kind) || cs_iters < 0)
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
    if (kind == LK_PYTHREAD
            && (lock->pythread = PyThread_allocate_lock()) == NULL) {
        pthread_mutex_destroy(&lock->mutex);
        munmap(lock, sizeof(*lock));
        return NULL;
    }
    return lock;
}

void
lk_set_objects(lk_lock *lock, void *object, void *other)
{
    lock->objects[0] = object;
    lock->objects[1] = other;
}

/* A forked process that lets go of its copy only unmaps it: destroying the
 * mutex would write to the memory its siblings still use. */
void
lk_free(lk_lock *lock)
{
    if (lock == NULL)
        return;
    if (lock->owner == getpid()) {
        pthread_mutex_destroy(&lock->mutex);
        if (lock->pythread != NULL)
            PyThread_free_lock(lock->pythread);
    }
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
    case LK_ATOMIC:
        return 0;
    case LK_PYTHREAD:
        return PyThread_acquire_lock(lock->pythread, WAIT_LOCK) ? 0 : EAGAIN;
#if LK_HAVE_PYMUTEX
    case LK_PYMUTEX:
        PyMutex_Lock(&lock->pymutex);
        return 0;
#endif
    case LK_CRITICAL_SECTION:
    case LK_CRITICAL_SECTION2:
        return EINVAL;
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
    case LK_ATOMIC:
        return 0;
    case LK_PYTHREAD:
        PyThread_release_lock(lock->pythread);
        return 0;
#if LK_HAVE_PYMUTEX
    case LK_PYMUTEX:
        PyMutex_Unlock(&lock->pymutex);
        return 0;
#endif
    case LK_CRITICAL_SECTION:
    case LK_CRITICAL_SECTION2:
        return EINVAL;
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

void
lk_section(lk_lock *lock)
{
    critical_section(lock);
}

void
lk_fair_section(lk_lock *lock)
{
    critical_section(lock);
    if (lock->counter >= __atomic_load_n(&lock->quota, __ATOMIC_RELAXED))
        __atomic_store_n(&lock->stop, 1, __ATOMIC_RELAXED);
}

/* The atomic kind's section: the work, then one fetch-add (relaxed: the
 * count is all it orders). */
static void
atomic_section(lk_lock *lock, int fair)
{
    long count;
    lk_work(lock->cs_iters);
    count = __atomic_add_fetch(&lock->counter, 1, __ATOMIC_RELAXED);
    if (fair && count >= __atomic_load_n(&lock->quota, __ATOMIC_RELAXED))
        __atomic_store_n(&lock->stop, 1, __ATOMIC_RELAXED);
}

static void
section(lk_lock *lock, int fair)
{
    if (fair)
        lk_fair_section(lock);
    else
        critical_section(lock);
}

#if LK_HAVE_PYMUTEX
/* Py_BEGIN_CRITICAL_SECTION on the lock's object(s); EPERM without them
 * or without an attached thread state, which a critical section needs. */
static int
in_critical_section(lk_lock *lock, int fair)
{
    PyObject *object = (PyObject *)lock->objects[0];
    PyObject *other = (PyObject *)lock->objects[1];
    if (object == NULL || PyThreadState_GetUnchecked() == NULL)
        return EPERM;
    if (lock->kind == LK_CRITICAL_SECTION) {
        Py_BEGIN_CRITICAL_SECTION(object);
        section(lock, fair);
        Py_END_CRITICAL_SECTION();
        return 0;
    }
    if (other == NULL)
        return EPERM;
    Py_BEGIN_CRITICAL_SECTION2(object, other);
    section(lock, fair);
    Py_END_CRITICAL_SECTION2();
    return 0;
}
#endif

/* One acquisition of any kind but LK_NONE around the (fair) section. */
static int
locked(lk_lock *lock, int fair)
{
    int rc;
    switch (lock->kind) {
    case LK_ATOMIC:
        atomic_section(lock, fair);
        return 0;
#if LK_HAVE_PYMUTEX
    case LK_CRITICAL_SECTION:
    case LK_CRITICAL_SECTION2:
        return in_critical_section(lock, fair);
#endif
    default:
        rc = lk_acquire(lock);
        if (rc != 0)
            return rc;
        section(lock, fair);
        lk_release(lock);
        return 0;
    }
}

void
lk_set_outside(lk_lock *lock, long iters)
{
    lock->outside_iters = iters;
}

void
lk_outside(lk_lock *lock)
{
    if (lock->outside_iters > 0)
        lk_work(lock->outside_iters);
}

int
lk_call(lk_lock *lock)
{
    int rc = 0;
    if (lock->kind == LK_NONE)
        lk_work(lock->cs_iters);
    else
        rc = locked(lock, 0);
    lk_outside(lock);
    return rc;
}

int
lk_stopped(lk_lock *lock)
{
    return __atomic_load_n(&lock->stop, __ATOMIC_RELAXED);
}

void
lk_fair_reset(lk_lock *lock)
{
    lock->counter = 0;
    __atomic_store_n(&lock->stop, 0, __ATOMIC_RELAXED);
}

void
lk_fair_arm(lk_lock *lock, long quota)
{
    __atomic_store_n(&lock->quota, quota, __ATOMIC_RELAXED);
}

int
lk_fair_call(lk_lock *lock)
{
    int rc;
    if (lk_stopped(lock))
        return 0;
    if (lock->kind == LK_NONE)  /* no lock, no count: nothing to share */
        return -EINVAL;
    rc = locked(lock, 1);
    lk_outside(lock);
    return rc == 0 ? 1 : -rc;
}

long
lk_fair_run(lk_lock *lock)
{
    long count = 0;
    int rc;
    while ((rc = lk_fair_call(lock)) == 1)
        count++;
    return rc < 0 ? rc : count;
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
