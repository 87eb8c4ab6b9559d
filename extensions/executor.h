/* The executor family's native kernel: the single C source of truth that
 * _executor_cy.pyx wraps (inside ``with nogil:``).  It touches no Python
 * object and no shared state, so any number of threads, processes or
 * subinterpreters may run it at once. */
#ifndef GILBENCH_EXECUTOR_H
#define GILBENCH_EXECUTOR_H

/* ``iterations`` xorshift64 steps from ``seed`` (not 0); returns the last
 * state, so a caller can check the work was done.  About 1 ns a step. */
unsigned long long ex_kernel(unsigned long long seed, long iterations);

#endif
