"""How much of the machine other processes took while a benchmark ran.

Linux's /proc/stat counts each CPU's busy time (user, nice, system, irq,
softirq, and steal: what a hypervisor gave its other guests) in clock
ticks.  Over a window, the busy time of the CPUs this process may use,
less this process tree's own CPU time, over the window's length times
those CPUs, is the share of them something else had: about 0 on an idle
machine, about 0.5 with a CPU hog beside a benchmark on two CPUs.  Ticks
are coarse (10 ms) against a 40 ms value, so the share is told over a
run's measured values together, and only when they last long enough.
Where /proc/stat is missing the share is None.

Worker side: Python 2.7 compatible.
"""
import os

from gilbench.measure.metrics import TreeCpuClock
from gilbench.model.casehelpers import perf_counter
from gilbench.model.resultformat import foreign_share

_STAT = "/proc/stat"
# After the name: user nice system idle iowait irq softirq steal ...
_BUSY_FIELDS = (0, 1, 2, 5, 6, 7)


def _ticks_per_second():
    try:
        return float(os.sysconf("SC_CLK_TCK"))
    except (AttributeError, ValueError, OSError):
        return 100.0


_TICK = _ticks_per_second()


def busy_seconds(cpus):
    """Busy seconds of ``cpus`` (numbers) since boot, or None."""
    wanted = set("cpu%d" % cpu for cpu in cpus)
    try:
        with open(_STAT) as stream:
            lines = [line.split() for line in stream
                     if line.startswith("cpu")]
    except (IOError, OSError):
        return None
    ticks = 0
    for fields in lines:
        if fields[0] in wanted:
            numbers = fields[1:]
            ticks += sum(int(numbers[i]) for i in _BUSY_FIELDS
                         if i < len(numbers))
    return ticks / _TICK


class ForeignClock(object):
    """What other processes took of ``cpus`` since creation."""

    def __init__(self, cpus):
        self._cpus = list(cpus)
        self._busy = busy_seconds(self._cpus)
        self._tree = TreeCpuClock()
        self._start = perf_counter()

    def window(self):
        """(CPU seconds other processes used, CPU seconds there were:
        the window's length times the CPUs), or None where /proc/stat
        cannot tell."""
        busy = busy_seconds(self._cpus)
        if busy is None or self._busy is None or not self._cpus:
            return None
        capacity = (perf_counter() - self._start) * len(self._cpus)
        return busy - self._busy - self._tree.elapsed(), capacity


def share(windows):
    """Other processes' share of the CPUs over ``windows`` (pairs from
    :meth:`ForeignClock.window`), or None when they add up to too little
    for the ticks to tell (resultformat.FOREIGN_MIN_CAPACITY)."""
    return foreign_share(windows)
