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
  what threads streaming through main memory gain here;
* with ``--why``, where py-spy's samples of the work's threads waited:
  for the GIL, on a lock (gilbench.measure.whysampler).

Each cause names what tells it; a caller decides first that the answer
falls short of its ceiling.  In order: an import that re-enabled the
GIL; shared objects costing more than the margin over own; samples that
waited on the GIL or on a lock; CPU that says the threads waited (a lock
where no GIL stands between them, else the GIL or a lock); a speedup
within reach of a memory ceiling below the compute ceiling; CPU that
says they ran, yet gained less (contention).  The shares of CPU are
those timeit_answers' verdict uses: a share of the extra CPU the ceiling
(else N) shows, at least 0.75 running, at most 0.25 waiting.
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
GIL = "gil"
GIL_OR_LOCK = "gil-or-lock"
LOCK = "lock"
SHARED = "shared"
MEMORY = "memory"
CONTENTION = "contention"
UNCLEAR = "unclear"
# Every name a cause may have, for the JSON schema and the docs.
NAMES = (GIL_REENABLED, GIL, GIL_OR_LOCK, LOCK, SHARED, MEMORY, CONTENTION,
         UNCLEAR)
# Samples (--why) name the GIL or a lock where the work's threads waited
# on it in at least WAITING_SAMPLES of them, this many times as often as
# on the other, from at least MIN_SAMPLES.
WAITING_SAMPLES = 0.1
SAMPLES_APART = 2.0
MIN_SAMPLES = 50


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
    # --why's shares of the work's samples ({"gil", "lock", "alloc",
    # "running", "samples": count}), or None; and why there are none.
    samples: dict | None = None
    samples_unavailable: str | None = None
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
    sampled = _from_samples(s, cpu, used <= WAITING_SHARE)
    if sampled is not None:
        return sampled
    if used <= WAITING_SHARE:
        if s.gil == "disabled" or s.axis == "processes":
            return Cause(LOCK, "waits on a lock: %s, and no GIL stands "
                         "between them" % cpu)
        return Cause(GIL_OR_LOCK, "holds the GIL or waits on a lock: %s "
                     "(%s)" % (cpu, s.samples_unavailable
                               or "--why samples would tell which"))
    # Memory stalls count as CPU time, yet a short value's start and end
    # may take some: the memory ceiling tells once the threads did not wait.
    if _memory_bound(s, reference):
        return Cause(MEMORY, "memory-bound: %s, gaining %s as the memory "
                     "ceiling gains %s (the compute ceiling %.2fx)"
                     % (cpu, s.speedup.display, s.memory.display, reference))
    if used < RUNNING_SHARE:
        return Cause(UNCLEAR, "the signals name none: %s, between waiting "
                     "and running" % cpu)
    held = ("the GIL passed between them around little work, or " if
            s.gil != "disabled" and s.axis == "threads" else "")
    return Cause(CONTENTION, "contends while running: %s and gained %s; "
                 "%ssomething they all write (a spinning lock, a shared "
                 "cache line) holds them back" % (cpu, s.speedup.display,
                                                  held))


def _from_samples(s, cpu, waiting):
    """The GIL or a lock, where --why's samples of the work's threads
    waited on one (WAITING_SAMPLES of them or more) at least SAMPLES_APART
    times as often as on the other; the signals' disagreement where
    they waited on both alike; else None: the CPU tells the rest."""
    found = s.samples
    if not found or found.get("samples", 0) < MIN_SAMPLES:
        return None
    gil, lock = found.get("gil", 0.0), found.get("lock", 0.0)
    if max(gil, lock) < WAITING_SAMPLES:
        return None
    said = "%s; %d%% of %d samples waiting for the GIL, %d%% on a lock" % (
        cpu, round(gil * 100), found["samples"], round(lock * 100))
    if gil >= SAMPLES_APART * lock:
        # Its threads idle: the call holds it.  Busy: they also drop and
        # take it back around little work.
        return Cause(GIL, ("holds the GIL: %s" if waiting else
                           "waits for the GIL: %s") % said)
    if lock >= SAMPLES_APART * gil:
        return Cause(LOCK, "waits on a lock: %s" % said)
    return Cause(UNCLEAR, "the signals disagree: %s" % said)


def _memory_bound(s, reference):
    """Whether the memory ceiling falls short of the compute ceiling and
    the answer's speedup reads as the memory ceiling's: their intervals
    within the margin of each other, neither above nor below."""
    memory = s.memory
    if memory is None or memory.value is None or memory.interval is None:
        return False
    if memory.interval[1] * (1 + s.margin) >= reference:
        return False  # memory scales as compute does: it cannot tell
    low, high = s.speedup.interval or (s.speedup.value,) * 2
    return (low <= memory.interval[1] * (1 + s.margin)
            and high * (1 + s.margin) >= memory.interval[0])
