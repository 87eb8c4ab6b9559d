/* See executor.h.  A dependent chain of xorshift64 steps: the compiler can
 * neither vectorise nor skip it, and its time is proportional to
 * ``iterations`` on any interpreter. */
#include "executor.h"
#include "xorshift.h"

unsigned long long ex_kernel(unsigned long long seed, long iterations)
{
    unsigned long long x = seed;
    long i;

    for (i = 0; i < iterations; i++)
        x = xorshift_step(x);
    return x;
}
