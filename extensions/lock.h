/* The lock-contention family's native side: the single C source of truth
 * that both _lock_cy.pyx and _lock_cffi_build.py wrap.  This header is read
 * verbatim by cffi's cdef(), so it may hold only declarations cdef
 * understands: no macros beyond the include guard, which the cffi build
 * script strips. */
#ifndef GILBENCH_LOCK_H
#define GILBENCH_LOCK_H

/* Lock kinds. */
enum lk_kind {
    LK_NONE = 0,       /* no lock: the call alone (the "trivial" reference) */
    LK_MUTEX = 1,      /* pthread mutex, default type */
    LK_RECURSIVE = 2,  /* pthread mutex, PTHREAD_MUTEX_RECURSIVE */
    LK_SPIN = 3,       /* test-and-test-and-set spinlock on GCC atomics */
    LK_PSHARED = 4,    /* PTHREAD_PROCESS_SHARED mutex, robust where the
                          platform has robust mutexes */
    LK_BROKEN = 5      /* acquire and release do nothing: for testing that
                          the counter check sees lost updates */
};

typedef struct lk_lock lk_lock;

/* A lock of ``kind`` with its counter, in anonymous MAP_SHARED memory so
 * that processes forked afterwards share it (only LK_PSHARED and LK_SPIN
 * are correct across processes).  Each call's critical section does
 * ``cs_iters`` iterations of lk_work.  NULL if kind is unknown or memory
 * or the mutex could not be had. */
lk_lock *lk_new(int kind, long cs_iters);
void lk_free(lk_lock *lock);

/* One call: acquire, lk_work(cs_iters), counter += 1 (a plain, non-atomic
 * read-modify-write), release.  LK_NONE runs lk_work only: no lock, no
 * counter (a shared counter would add cache-line traffic to the call
 * alone).  Returns 0, or the error that acquiring failed with. */
int lk_call(lk_lock *lock);

/* lk_call with the lock taken ``depth`` times, nested (LK_RECURSIVE;
 * other kinds would deadlock or fail with depth > 1).  Returns the number
 * of acquisitions that succeeded before releasing them all. */
int lk_nested_call(lk_lock *lock, int depth);

/* Acquire and release on their own: for tests (a process that dies
 * holding the lock).  lk_acquire returns 0, or the pthread error. */
int lk_acquire(lk_lock *lock);
int lk_release(lk_lock *lock);

long lk_counter(lk_lock *lock);
void lk_counter_reset(lk_lock *lock);
/* Times an owner died holding the robust mutex and the next owner made it
 * consistent again (EOWNERDEAD). */
long lk_recoveries(lk_lock *lock);
/* 1 if LK_PSHARED is a robust mutex on this platform, else 0. */
int lk_robust_supported(void);

/* ``iters`` iterations of a dependent xorshift chain that the optimiser
 * can neither remove nor fold; returns the chain's state. */
unsigned long lk_work(long iters);

/* Nanoseconds per lk_work iteration, calibrated once per process on first
 * use (about 10 ms; thread-safe), and how long that calibration took. */
double lk_ns_per_iter(void);
double lk_calibration_ms(void);
/* The iterations that take ``ns`` nanoseconds, by that calibration. */
long lk_iters_for_ns(double ns);

/* Guarded map: a fixed-size open-addressing hash map of ``nkeys`` long
 * keys behind one pthread mutex.  Each lk_map_op is a lookup or, for
 * ``write_pct`` percent of the ``seq`` values, an update (value += 1). */
typedef struct lk_map lk_map;
lk_map *lk_map_new(long nkeys, long write_pct);
void lk_map_free(lk_map *map);
long lk_map_op(lk_map *map, long seq);
/* Sum of all values (the updates made) and of the lookups that found
 * their key, under the mutex. */
long lk_map_updates(lk_map *map);
long lk_map_hits(lk_map *map);

#endif
