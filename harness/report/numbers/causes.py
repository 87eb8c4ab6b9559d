"""Why a call does not scale: the most likely cause, named from the
signals a run records beside its times, with the evidence, or none where
they disagree.

The signals, each read at the count N the answer judges:

* the GIL's state in the runs (``python_gil``), and the modules whose
  import re-enabled it on a free-threaded build (gilguard);
* the CPU the N workers used over what one used: threads that wait (for
  the GIL, on a lock) use no CPU while they wait; threads that run but
  gain nothing (contending on an object, on memory) use it all;
* shared over own objects: the same call, each thread its own objects
  against objects all threads share (timeit's ``--objects``);
* the memory ceiling's speedup at N (the ceiling family's ``stream``):
  what threads streaming through main memory gain here.

Each cause names what tells it; a caller decides first that the answer
falls short of its ceiling.  The shares of CPU are those
timeit_answers' verdict uses: a share of the extra CPU the ceiling (else
N) shows, at least 0.75 running, at most 0.25 waiting.
"""
from __future__ import annotations

from dataclasses import dataclass

from gilbench.report.numbers import intervals

# The share of the extra CPU (N workers' over one's, against what the
# ceiling gains) from which the workers ran together, and up to which
# they waited.
RUNNING_SHARE = 0.75
WAITING_SHARE = 0.25

GIL_REENABLED = "gil-reenabled"
GIL_OR_LOCK = "gil-or-lock"
LOCK = "lock"
SHARED = "shared"
MEMORY = "memory"
CONTENTION = "contention"
UNCLEAR = "unclear"
# Every name a cause may have, for the JSON schema and the docs.
NAMES = (GIL_REENABLED, GIL_OR_LOCK, LOCK, SHARED, MEMORY, CONTENTION,
         UNCLEAR)


@dataclass(frozen=True)
class Cause:
    name: str  # one of NAMES
    text: str  # "memory-bound: ..." (the cause, then its evidence)


@dataclass(frozen=True)
class Signals:
    """What one answer's runs say at ``count`` workers of ``axis``."""
    count: int
    axis: str  # "threads" or "processes"
    speedup: object  # the answer's speedup Cell at count
    ceiling: float | None = None  # the compute ceiling's speedup there
    cpu_ratio: float | None = None  # CPU used at count / at 1
    gil: str = "unknown"  # the runs' python_gil
    reenabled_by: tuple = ()  # modules whose import enabled the GIL
    sharing: object = None  # shared/own time Cell at count, or None
    memory: object = None  # the memory ceiling's speedup Cell, or None
    margin: float = intervals.MARGIN  # the smallest difference that matters


def _share(ratio, reference):
    return (ratio - 1.0) / max(reference - 1.0, 1e-9)


def _times(cell):
    return cell.display if cell is not None else "?"


def diagnose(signals):
    """The Cause of an answer that falls short of its ceiling."""
    s = signals
    if s.reenabled_by:
        return Cause(GIL_REENABLED, "the GIL is on: re-enabled by importing "
                     "%s" % ", ".join(s.reenabled_by))
    reference = s.ceiling if s.ceiling and s.ceiling > 1 else float(s.count)
    if s.sharing is not None and s.sharing.significant and \
            s.sharing.value > 1 + s.margin:
        # Waiting on the object's lock or running on its reference counts:
        # either way, the objects the threads share.
        return Cause(SHARED, "contends on a shared object: shared objects "
                     "take %s the time of own at %d %s"
                     % (_times(s.sharing), s.count, s.axis))
    if s.cpu_ratio is None:
        return Cause(UNCLEAR, "no CPU time was recorded to tell waiting "
                     "from running")
    used = _share(s.cpu_ratio, reference)
    cpu = "%d %s used %.2fx the CPU of one" % (s.count, s.axis, s.cpu_ratio)
    if used <= WAITING_SHARE:
        if s.gil == "disabled" or s.axis == "processes":
            return Cause(LOCK, "waits on a lock: %s, and no GIL stands "
                         "between them" % cpu)
        return Cause(GIL_OR_LOCK, "holds the GIL or waits on a lock: %s "
                     "(samples would tell which)" % cpu)
    if used < RUNNING_SHARE:
        return Cause(UNCLEAR, "the signals name none: %s, between waiting "
                     "and running" % cpu)
    if _memory_bound(s, reference):
        return Cause(MEMORY, "memory-bound: %s, gaining %s as the memory "
                     "ceiling gains %s (the compute ceiling %.2fx)"
                     % (cpu, s.speedup.display, s.memory.display, reference))
    held = ("the GIL passed between them around little work, or " if
            s.gil != "disabled" and s.axis == "threads" else "")
    return Cause(CONTENTION, "contends while running: %s and gained %s; "
                 "%ssomething they all write (a spinning lock, a shared "
                 "cache line) holds them back" % (cpu, s.speedup.display,
                                                  held))


def _memory_bound(s, reference):
    """Whether the memory ceiling falls short of the compute ceiling and
    the answer's speedup is within reach of it, not above."""
    memory = s.memory
    if memory is None or memory.value is None or memory.interval is None:
        return False
    if memory.interval[1] * (1 + s.margin) >= reference:
        return False  # memory scales as compute does: it cannot tell
    low = (s.speedup.interval or (s.speedup.value,) * 2)[0]
    return low <= memory.interval[1] * (1 + s.margin)
