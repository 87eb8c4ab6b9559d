/* Forced in front of _executor_cy's generated C (-include, see the .pyx):
 * Cython's module state, which an own-GIL subinterpreter needs, only where
 * such subinterpreters exist -- CPython 3.12+ with a GIL.  2.7's Cython
 * 3.0 emits code for it that does not compile there, and free-threaded or
 * PyPy builds have no use for it. */
#include <Python.h>
#if PY_VERSION_HEX >= 0x030C0000 && !defined(PYPY_VERSION) \
    && !defined(Py_GIL_DISABLED)
#define CYTHON_USE_MODULE_STATE 1
#endif
