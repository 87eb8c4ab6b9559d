/* Calibrating a C work loop once per process, so that an axis can be in
 * real nanoseconds: shared by the families that time work that way (the
 * lock family's lk_work, the ceiling family's cl_spin). */
#ifndef GILBENCH_CALIBRATE_H
#define GILBENCH_CALIBRATE_H

#include <time.h>

#define CALIBRATE_ROUND_NS 1000000.0 /* one round: ~1 ms of work */
#define CALIBRATE_ROUNDS 8

static double
calibrate_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double
calibrate_round_ns(void (*work)(void *, long), void *arg, long iterations)
{
    double start = calibrate_now_ns();
    work(arg, iterations);
    return calibrate_now_ns() - start;
}

/* Nanoseconds per iteration of ``work(arg, n)``: double n until one round
 * takes ~1 ms, then keep the fastest rate of a few rounds, the least
 * disturbed by other processes.  ``*spent_ms`` gets what it took. */
static double
calibrate_ns_per_iter(void (*work)(void *, long), void *arg,
                      double *spent_ms)
{
    double start = calibrate_now_ns(), best, rate;
    long iterations = 1000;
    int round;
    while (calibrate_round_ns(work, arg, iterations) < CALIBRATE_ROUND_NS)
        iterations *= 2;
    best = calibrate_round_ns(work, arg, iterations) / iterations;
    for (round = 1; round < CALIBRATE_ROUNDS; round++) {
        rate = calibrate_round_ns(work, arg, iterations) / iterations;
        best = rate < best ? rate : best;
    }
    *spent_ms = (calibrate_now_ns() - start) / 1e6;
    return best;
}

#endif
