"""PyPy's nursery, capped where forked benchmark programs would pay for it.

PyPy's young generation (its nursery, which every allocation goes
through) is half the "cache size" /proc/cpuinfo reports, unless
``PYPY_GC_NURSERY`` says otherwise: 240 MB on a VM that reports a 480 MiB
cache.  gilbench's benchmark programs and workers are forks, which share
their parent's nursery pages and copy each one they write, so a large
nursery puts page faults in their timed values (docs/architecture.rst,
"What a fork inherits", has the figures).

So a measuring command on PyPy whose nursery is above :data:`CAP` and not
chosen by the user starts itself again, once, with ``PYPY_GC_NURSERY``
at the cap: what PyPy gives itself with a 32 MB cache.

Worker side: Python 2.7 compatible.
"""
import gc
import os
import platform
import re
import sys

VARIABLE = "PYPY_GC_NURSERY"
CAP = "16MB"
CAP_BYTES = 16 * 2 ** 20
# Set in the restarted process, so it never restarts twice.
RESTARTED = "GILBENCH_NURSERY_RESTARTED"
METADATA_KEY = "pypy_gc_nursery"

_UNITS = {"": 1, "B": 1, "KB": 2 ** 10, "MB": 2 ** 20, "GB": 2 ** 30}


def size_bytes(text):
    """Bytes in a PyPy size as its GC prints one ("240.0MB", "512.0kB"),
    or None."""
    found = re.match(r"\s*([0-9.]+)\s*([kKmMgG]?[bB]?)\s*$", str(text))
    if not found:
        return None
    try:
        number = float(found.group(1))
    except ValueError:
        return None
    return int(number * _UNITS[found.group(2).upper()])


def nursery():
    """This interpreter's nursery as PyPy's GC states it ("16.0MB"), or
    None (not PyPy, or a PyPy that does not say)."""
    if platform.python_implementation() != "PyPy":
        return None
    try:
        return str(gc.get_stats().nursery_size)
    except (AttributeError, TypeError):
        return None


def capped_environ(environ, stated):
    """The environment to start this command again in, with the nursery
    capped; None where it need not be: ``stated`` (:func:`nursery`) is
    None or within the cap, the user chose it, or this process is
    already the restarted one."""
    if stated is None or VARIABLE in environ or RESTARTED in environ:
        return None
    size = size_bytes(stated)
    if size is None or size <= CAP_BYTES:
        return None
    capped = dict(environ)
    capped[VARIABLE] = CAP
    capped[RESTARTED] = stated
    return capped


def restart_capped(argv):
    """Start ``python -m gilbench ARGV`` again in this process with the
    nursery capped, where :func:`capped_environ` says so; else return."""
    environ = capped_environ(os.environ, nursery())
    if environ is None:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, "-m", "gilbench"]
              + list(argv), environ)


def facts():
    """``{"pypy_gc_nursery": "16.0MB"}`` on PyPy, else {}."""
    stated = nursery()
    return {METADATA_KEY: stated} if stated else {}
