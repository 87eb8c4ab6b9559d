/* One xorshift64 step (Marsaglia's 13/7/17 shifts): the families' unit of
 * CPU work.  A chain of steps is serially dependent, so it can be neither
 * vectorised nor reordered; the empty asm makes the compiler treat x as
 * changed by something it cannot see, so it cannot fold the chain into a
 * closed form or delete it when the result is unused.  Each family's
 * tests/test_*_native.py checks in the built module's disassembly that the
 * chain is really there. */
#ifndef GILBENCH_XORSHIFT_H
#define GILBENCH_XORSHIFT_H

#define XORSHIFT_SEED 0x9e3779b97f4a7c15ULL

static inline unsigned long long
xorshift_step(unsigned long long x)
{
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    __asm__ __volatile__("" : "+r"(x));
    return x;
}

#endif
