"""Which build of the extensions this interpreter needs.

Shared by setup.py (what to build, where its generated C goes) and by
extensions/_gil_cffi.py (why the cffi module is missing), so the two never
disagree.  Python 2.7-compatible, standard library only.
"""
import platform
import sys
import sysconfig


def free_threaded():
    """True on a CPython built with --disable-gil (3.13t, 3.14t)."""
    return bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def name():
    """``cpython313``, ``cpython313t``, ``pypy310``...: one per ABI.

    3.13 and 3.13t need different generated C (Cython emits free-threading
    code paths from the interpreter's headers at compile time, and the
    freethreading_compatible directive only matters on the latter).
    """
    return "%s%d%d%s" % (platform.python_implementation().lower(),
                         sys.version_info[0], sys.version_info[1],
                         "t" if free_threaded() else "")


def cffi_unsupported():
    """None, or why cffi cannot build modules for this interpreter.

    cffi 1.x refuses free-threaded builds; cffi 2 supports 3.14t and newer
    only.  requirements-freethreaded.txt says the same with markers.
    """
    if free_threaded() and sys.version_info < (3, 14):
        return ("cffi does not support free-threaded CPython %d.%d"
                % sys.version_info[:2])
    return None
