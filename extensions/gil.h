/* The GIL family's native functions: the single C source of truth that both
 * the Cython module (_gil_cy.pyx) and the cffi module (_gil_cffi_build.py)
 * wrap.  This header is read verbatim by cffi's cdef(), so it may hold only
 * declarations cdef understands: no macros beyond the include guard below,
 * which the cffi build script strips. */
#ifndef GILBENCH_GIL_H
#define GILBENCH_GIL_H

/* Constant-time work that the compiler can neither remove nor inline into a
 * caller's loop (see gil.c).  Always returns 1.  No arguments, so that no
 * wrapper pays for converting one. */
long gb_trivial(void);

/* gb_trivial() with a process-wide pthread mutex locked around it. */
long gb_lock_trivial(void);

/* Add one to a plain (non-atomic) counter while holding the same mutex and
 * return the new value; the correctness test relies on it being exact. */
long gb_locked_increment(void);

/* Read and reset that counter (under the mutex). */
long gb_counter_value(void);
void gb_counter_reset(void);

#endif
