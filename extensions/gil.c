/* Native side of the GIL family; see gil.h for the contract. */
#include <pthread.h>
#include "gil.h"

static pthread_mutex_t gb_mutex = PTHREAD_MUTEX_INITIALIZER;
static long gb_counter = 0;

/* noinline keeps a real call in every caller; the empty volatile asm that
 * "modifies" x stops GCC's IPA from proving the function pure and folding or
 * hoisting calls to it.  tests/test_native_optimiser.py checks the built
 * modules' disassembly for the call. */
__attribute__((noinline)) long
gb_trivial(void)
{
    long x = 0;
    __asm__ __volatile__("" : "+r"(x));
    return x + 1;
}

long
gb_lock_trivial(void)
{
    long result;
    pthread_mutex_lock(&gb_mutex);
    result = gb_trivial();
    pthread_mutex_unlock(&gb_mutex);
    return result;
}

long
gb_locked_increment(void)
{
    long result;
    pthread_mutex_lock(&gb_mutex);
    result = ++gb_counter;
    pthread_mutex_unlock(&gb_mutex);
    return result;
}

long
gb_counter_value(void)
{
    long result;
    pthread_mutex_lock(&gb_mutex);
    result = gb_counter;
    pthread_mutex_unlock(&gb_mutex);
    return result;
}

void
gb_counter_reset(void)
{
    pthread_mutex_lock(&gb_mutex);
    gb_counter = 0;
    pthread_mutex_unlock(&gb_mutex);
}
