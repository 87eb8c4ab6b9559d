"""Facts about the process and interpreter recorded with every result."""
import os
import resource
import time

import psutil

from gilbench.measure import gilguard
from gilbench.model import machine

_process = [None]


def this_process():
    """psutil's handle on this process, made anew in a fork (a handle
    inherited from the parent would read the parent)."""
    if _process[0] is None or _process[0].pid != os.getpid():
        _process[0] = psutil.Process()
    return _process[0]


def process_cpu_seconds():
    """User + system CPU time of this process, all threads.

    Not psutil's cpu_times(): on Linux it counts 10 ms clock ticks, too
    coarse for a 50 ms value.  process_time() reads the process CPU clock;
    2.7 lacks it, and getrusage() has microseconds there.
    """
    if hasattr(time, "process_time"):
        return time.process_time()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def process_facts():
    """Metadata for every run: GIL state and the CPUs the run could use."""
    cpus = machine.affinity()
    facts = gilguard.state()
    facts["cpus_usable"] = machine.usable(cpus, machine.quota())
    facts["cpu_affinity_effective"] = ",".join(str(cpu) for cpu in cpus)
    return facts


def _children_cpu_seconds():
    """CPU time of this process's descendants: those already reaped (from
    getrusage) plus the live ones (psutil; 10 ms ticks, fine for the long
    values of custom cases)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    reaped = usage.ru_utime + usage.ru_stime
    live = {}
    for child in descendants():
        try:
            times = child.cpu_times()
            live[child.pid] = times.user + times.system
        except psutil.Error:  # gone meanwhile: counted as reaped, if ours
            pass
    return reaped, live


_CHILDREN_LISTS = "/proc/%d/task/%s/children"


def descendants():
    """This process's live descendants (psutil.Process).  Linux lists each
    thread's children in /proc: a few small reads, where psutil's own
    search reads every process on the machine."""
    if not os.path.exists(_CHILDREN_LISTS % (os.getpid(), os.getpid())):
        try:
            return this_process().children(recursive=True)
        except psutil.Error:
            return []
    found, parents = [], [os.getpid()]
    while parents:
        parent = parents.pop()
        try:
            threads = os.listdir("/proc/%d/task" % parent)
        except OSError:  # gone meanwhile
            continue
        for thread in threads:
            try:
                with open(_CHILDREN_LISTS % (parent, thread)) as listed:
                    children = [int(pid) for pid in listed.read().split()]
            except (IOError, OSError):
                continue
            parents.extend(children)
            for pid in children:
                try:
                    found.append(psutil.Process(pid))
                except psutil.Error:
                    pass
    return found


class TreeCpuClock(object):
    """CPU seconds of this process and its descendants since creation.

    A child that is alive at both ends counts its difference; one started
    in between counts whole; one reaped in between is in the getrusage
    figure (a grandchild reaped by a child, only once its parent is).
    """

    def __init__(self):
        # Own CPU last: the children's search is not the timed work's.
        self._reaped, self._live = _children_cpu_seconds()
        self._own = process_cpu_seconds()

    def elapsed(self):
        own = process_cpu_seconds() - self._own
        reaped, live = _children_cpu_seconds()
        live_delta = sum(seconds - self._live.get(pid, 0.0)
                         for pid, seconds in live.items())
        dead_before = sum(seconds for pid, seconds in self._live.items()
                          if pid not in live)
        # A child that was live at the start and reaped since is in both
        # ``reaped`` (whole) and ``self._live`` (its part before the start).
        return own + (reaped - self._reaped) - dead_before + live_delta

    def utilisation(self, wall):
        return self.elapsed() / wall if wall > 0 else 0.0
