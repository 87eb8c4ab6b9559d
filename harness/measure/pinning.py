"""``--pin-threads``: thread (or process) i runs on usable CPU i mod ncpus,
the CPUs ordered so that distinct physical cores come first.  A run on
Linux pins by default (:func:`pin_by_default`; ``--no-pin-threads``
opts out).

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


TOPOLOGY = "/sys/devices/system/cpu"


def core_of(cpu, root=TOPOLOGY):
    """(package, core) of a CPU from Linux's sysfs topology, or None where
    it is not told: SMT siblings share one."""
    found = []
    for name in ("physical_package_id", "core_id"):
        path = os.path.join(root, "cpu%d" % cpu, "topology", name)
        try:
            with open(path) as stream:
                found.append(int(stream.read().strip()))
        except (IOError, OSError, ValueError):
            return None
    return tuple(found)


def by_core(cpus, root=TOPOLOGY, cores=None):
    """``cpus`` reordered so that the first of them are on distinct
    physical cores (one SMT sibling each, package by package, as
    ftscalingbench chooses), the other siblings after; unknown
    topologies keep their order.  ``cores``: {cpu: core_of(cpu)} when
    already read."""
    if cores is None:
        cores = {cpu: core_of(cpu, root) for cpu in cpus}
    cores = [cores[cpu] for cpu in cpus]
    if None in cores:
        return list(cpus)
    firsts, rest, seen = [], [], set()
    for cpu, core in sorted(zip(cpus, cores), key=lambda p: (p[1], p[0])):
        (rest if core in seen else firsts).append(cpu)
        seen.add(core)
    return firsts + rest


def pin_by_default(platform=sys.platform):
    """Whether a run pins when not told: wherever it can (Linux).  Left
    to the scheduler, threads woken at the start gate and new worker
    processes start on their waker's CPU until the load balancer spreads
    them, so N workers' first values do not measure N CPUs
    (docs/reading.rst, "Threads where the OS puts them")."""
    return platform.startswith("linux")


class Pinning(object):
    """Which CPU each of N threads or processes gets, and the pinning:
    thread i on the i-th CPU of distinct physical cores first (SMT
    siblings share a core's caches and units, which would read as poor
    scaling), wrapping around."""

    def __init__(self, cpus, root=TOPOLOGY):
        if not sys.platform.startswith("linux"):
            raise Unavailable("--pin-threads needs Linux (per-thread "
                              "affinity), not %s" % sys.platform)
        self.core = {cpu: core_of(cpu, root) for cpu in cpus}
        self.cpus = by_core(cpus, cores=self.core)

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

    def cores(self, count):
        """``pinned_cores`` metadata: the (package:core) of each thread's
        CPU, "?" where the topology is not told."""
        found = [self.core[self.cpu_for(i)] for i in range(count)]
        return ",".join("%d:%d" % core if core else "?" for core in found)
