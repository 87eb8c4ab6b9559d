/* A minimal extension module for tests/test_free_threading.py, compiled
 * twice against a free-threaded CPython's headers:
 *   -DPROBE_NAME=ftprobe_gil                         declares nothing, so its
 *        import enables the GIL (CPython's default for unknown modules);
 *   -DPROBE_NAME=ftprobe_nogil -DPROBE_FREE_THREADING  declares
 *        Py_MOD_GIL_NOT_USED, so the GIL stays off.
 * Single-phase init keeps it short; PyUnstable_Module_SetGIL is the
 * single-phase counterpart of the Py_mod_gil slot. */
#include <Python.h>

#define PROBE_STR(x) #x
#define PROBE_XSTR(x) PROBE_STR(x)
#define PROBE_CAT(a, b) a##b
#define PROBE_INIT(name) PROBE_CAT(PyInit_, name)

static struct PyModuleDef probe_module = {
    PyModuleDef_HEAD_INIT, PROBE_XSTR(PROBE_NAME), NULL, -1, NULL,
};

PyMODINIT_FUNC
PROBE_INIT(PROBE_NAME)(void)
{
    PyObject *module = PyModule_Create(&probe_module);
#if defined(Py_GIL_DISABLED) && defined(PROBE_FREE_THREADING)
    if (module != NULL &&
            PyUnstable_Module_SetGIL(module, Py_MOD_GIL_NOT_USED) < 0) {
        Py_DECREF(module);
        return NULL;
    }
#endif
    return module;
}
