# lock.h's declarations for Cython, included by every Cython module of
# the lock family (_lock_cy.pyx, _lock_cy31.pyx): one copy beside the
# header they declare.

cdef extern from "lock.h":
    ctypedef struct lk_lock:
        pass
    ctypedef struct lk_map:
        pass
    enum:
        LK_NONE
        LK_MUTEX
        LK_RECURSIVE
        LK_SPIN
        LK_PSHARED
        LK_BROKEN
        LK_ATOMIC
        LK_PYTHREAD
        LK_PYMUTEX
        LK_CRITICAL_SECTION
        LK_CRITICAL_SECTION2
    int lk_kind_built(int kind) nogil
    lk_lock *lk_new(int kind, long cs_iters) nogil
    void lk_set_objects(lk_lock *lock, void *object, void *other) nogil
    void lk_section(lk_lock *lock) nogil
    void lk_set_outside(lk_lock *lock, long iters) nogil
    void lk_outside(lk_lock *lock) nogil
    void lk_fair_reset(lk_lock *lock) nogil
    void lk_fair_arm(lk_lock *lock, long quota) nogil
    int lk_fair_call(lk_lock *lock) nogil
    long lk_fair_run(lk_lock *lock) nogil
    int lk_stopped(lk_lock *lock) nogil
    void lk_fair_section(lk_lock *lock) nogil
    void lk_free(lk_lock *lock) nogil
    int lk_call(lk_lock *lock) nogil
    int lk_nested_call(lk_lock *lock, int depth) nogil
    int lk_acquire(lk_lock *lock) nogil
    int lk_release(lk_lock *lock) nogil
    long lk_counter(lk_lock *lock) nogil
    void lk_counter_reset(lk_lock *lock) nogil
    long lk_recoveries(lk_lock *lock) nogil
    int lk_robust_supported() nogil
    unsigned long lk_work(long iters) nogil
    double lk_ns_per_iter() nogil
    double lk_calibration_ms() nogil
    long lk_iters_for_ns(double ns) nogil
    lk_map *lk_map_new(long nkeys, long write_pct) nogil
    void lk_map_free(lk_map *map) nogil
    long lk_map_op(lk_map *map, long seq) nogil
    long lk_map_updates(lk_map *map) nogil
    long lk_map_hits(lk_map *map) nogil
