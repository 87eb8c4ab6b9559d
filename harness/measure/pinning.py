"""``--pin-threads``: thread (or process) i runs on usable CPU i mod ncpus.

Pinning is done by each thread or process itself, before it parks at the
start gate, so it is set-up, not measured.  On Linux a thread is pinned
through its native id (``sched_setaffinity`` on a thread id affects that
thread only); where that is impossible the benchmark is n/a.
"""
import os
import sys
import threading

from gilbench.measure import lifelines
from gilbench.model.registry import Unavailable

_current = [None]


def set_current(pin):
    """The harness says whether this benchmark runs with --pin-threads."""
    _current[0] = pin


def current():
    """The :class:`Pinning` of the benchmark being set up, or None: a
    custom case that starts its own threads or processes pins them with
    ``pin_current(i)`` and records what it did."""
    return _current[0]


# SYS_gettid for Python 2.7, which has no threading.get_native_id().
_GETTID = {"x86_64": 186, "aarch64": 178, "i686": 224, "i386": 224}


def native_thread_id():
    get_native_id = getattr(threading, "get_native_id", None)
    if get_native_id is not None:
        return get_native_id()
    machine = os.uname()[4]
    if not sys.platform.startswith("linux") or machine not in _GETTID:
        raise Unavailable("cannot find native thread ids on %s/%s"
                          % (sys.platform, machine))
    return lifelines.libc().syscall(_GETTID[machine])


def _set_affinity(native_id, cpu):
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(native_id, {cpu})
        return
    import psutil  # Python 2.7: psutil takes a thread id as a pid on Linux
    psutil.Process(native_id).cpu_affinity([cpu])


class Pinning(object):
    """Which CPU each of N threads or processes gets, and the pinning."""

    def __init__(self, cpus):
        if not sys.platform.startswith("linux"):
            raise Unavailable("--pin-threads needs Linux (per-thread "
                              "affinity), not %s" % sys.platform)
        self.cpus = list(cpus)

    def cpu_for(self, index):
        return self.cpus[index % len(self.cpus)]

    def pin_current(self, index):
        """Pin the calling thread (in a worker process: the process's only
        working thread) to its CPU; return that CPU."""
        cpu = self.cpu_for(index)
        try:
            _set_affinity(native_thread_id(), cpu)
        except (OSError, ValueError) as exc:
            raise Unavailable("cannot pin a thread to CPU %d: %s"
                              % (cpu, exc))
        return cpu

    def describe(self, count):
        """``pinned_cpus`` metadata: the CPU of thread 0, 1, ..."""
        return ",".join(str(self.cpu_for(i)) for i in range(count))
