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
    LK_BROKEN = 5,     /* acquire and release do nothing: for testing that
                          the counter check sees lost updates */
    LK_ATOMIC = 6,     /* no lock: the counter's increment is one C11 atomic
                          fetch-add after the work (the floor of a lock) */
    LK_PYTHREAD = 7,   /* PyThread_type_lock: PyThread_acquire_lock(WAIT_LOCK),
                          which never releases the GIL itself */
    LK_PYMUTEX = 8,    /* PyMutex (public from CPython 3.13): spins briefly,
                          then parks, detaching the thread state (releasing
                          the GIL) while it waits */
    LK_CRITICAL_SECTION = 9,  /* Py_BEGIN_CRITICAL_SECTION on one object
                                 (3.13+): the object's own mutex on a
                                 free-threaded build, nothing on a default
                                 one; needs an attached thread state */
    LK_CRITICAL_SECTION2 = 10 /* Py_BEGIN_CRITICAL_SECTION2 on two objects */
};

typedef struct lk_lock lk_lock;

/* A lock of ``kind`` with its counter, in anonymous MAP_SHARED memory so
 * that processes forked afterwards share it (only LK_PSHARED and LK_SPIN
 * are correct across processes).  Each call's critical section does
 * ``cs_iters`` iterations of lk_work.  NULL if kind is unknown or not built
 * here (lk_kind_built), or memory or the mutex could not be had. */
lk_lock *lk_new(int kind, long cs_iters);
void lk_free(lk_lock *lock);

/* One call: acquire, lk_work(cs_iters), counter += 1 (a plain, non-atomic
 * read-modify-write), release.  LK_NONE runs lk_work only: no lock, no
 * counter (a shared counter would add cache-line traffic to the call
 * alone).  LK_ATOMIC runs lk_work, then increments the counter atomically.
 * Returns 0, or the error that acquiring failed with. */
int lk_call(lk_lock *lock);

/* 1 if this build has ``kind``, else 0: PyMutex and critical sections
 * need CPython >= 3.13's headers (not PyPy's). */
int lk_kind_built(int kind);

/* The objects a critical-section kind locks (``other`` only for
 * LK_CRITICAL_SECTION2), as PyObject pointers the caller keeps alive for
 * the lock's life.  A critical-section kind called without them, or without
 * an attached thread state (the GIL released), returns EPERM. */
void lk_set_objects(lk_lock *lock, void *object, void *other);

/* ``iters`` iterations of lk_work that lk_call and lk_fair_call do after
 * releasing the lock: work outside it, which lets other threads in. */
void lk_set_outside(lk_lock *lock, long iters);
void lk_outside(lk_lock *lock);

/* The critical section alone, under no lock: for a wrapper that takes a
 * lock of its own around it (Cython's cython.pymutex, critical_section). */
void lk_section(lk_lock *lock);

/* Fairness: threads take the lock until a stop flag, each counting its own
 * acquisitions.  lk_fair_reset clears the counter and the flag;
 * lk_fair_arm sets the quota (every thread may store the same one); the
 * holder whose acquisition brings the counter to the quota raises the
 * flag.  lk_fair_call: 0 once the flag is up, else one acquisition (1), or
 * minus the error acquiring failed with.  lk_fair_run: lk_fair_call until
 * the flag, in C (the whole loop with the GIL released, as CPython's
 * Tools/lockbench does); the acquisitions made, or minus the error.
 * lk_stopped and lk_fair_section are the two halves for a wrapper's own
 * lock: the flag, and the section that counts and raises it. */
void lk_fair_reset(lk_lock *lock);
void lk_fair_arm(lk_lock *lock, long quota);
int lk_fair_call(lk_lock *lock);
long lk_fair_run(lk_lock *lock);
int lk_stopped(lk_lock *lock);
void lk_fair_section(lk_lock *lock);

/* lk_call with the lock taken ``depth`` times, nested (LK_RECURSIVE;
 * other kinds would deadlock or fail with depth > 1).  Returns the number
 * of acquisitions that succeeded before releasing them all. */
int lk_nested_call(lk_lock *lock, int depth);

/* Acquire and release on their own: for tests (a process that dies
 * holding the lock).  lk_acquire returns 0, or the pthread error (EINVAL
 * for a critical section, which is a block, not a lock to hold). */
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
