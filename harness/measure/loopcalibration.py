"""A benchmark's loop count, calibrated in a fork of its pyperf master.

pyperf calibrates in a worker of its own: an interpreter start and
imports, the doubling loop counts, then a warmup and every value again at
the final count, all thrown away.  Here the master, which has already
imported the case, forks; the fork sets the case up, doubles the loop
count as pyperf does (1, 2, 4, ... until one call lasts ``--min-time``;
a call that jumped far beyond the doubling is timed once more; the
adaptive first look climbs faster, see CLIMB), tears
down and exits, so whatever the case started dies with it.  The workers
then get ``--loops``, and the doubling is kept in the result file
as pyperf keeps its own: a calibration run holding only warmups.  With
``then`` (the adaptive first look), the fork goes on as the benchmark's
first worker at the loops it found, its set-up done: one process start
and set-up fewer per benchmark.

Worker side: Python 2.7 compatible.  POSIX only (os.fork); elsewhere
pyperf calibrates as before.
"""
from __future__ import print_function

import json
import math
import os
import sys

import pyperf

from gilbench.measure import forking, record
from gilbench.model.casehelpers import perf_counter

MAX_LOOPS = 2 ** 32  # pyperf's own bound
# Doubling the loops about doubles a call's time; a call several times
# the previous one's was likely stalled (preempted on a busy machine), and
# taken as it is, it would leave every value short of --min-time.
STALL_JUMP = 3.0
# Scaled calibration (the adaptive design's first look) climbs only up to
# this share of the minimum time, then scales the loops to land a call
# just past it (MARGIN), so values last about one minimum time instead of
# one to two; a call the time is measured from must be this long for the
# ticks and the call's fixed cost not to skew the scale.
SCALE_FROM = 0.25
MARGIN = 1.1
SCALE_TRIES = 3
# ... and climbs towards that share by up to this factor a call, as far as
# the last call's time says it falls short (never past it, but for a
# stall): each call of a threads case starts its threads, so a fast
# call's many doublings cost more than the values they size
# (docs/reading.rst gives the figures).  A call's fixed cost only slows
# the climb.
CLIMB = 16


def wanted(args):
    """Whether this benchmark program should calibrate in a fork: it is
    the master, pyperf would calibrate loops, and only loops."""
    return (hasattr(os, "fork") and not args.worker and not args.loops
            and args.warmups is not None and not args.compare_to)


def calibrate(time_function, min_time, metadata, scaled=False, then=None):
    """Calibrate in a fork; return (its pyperf calibration run, holding
    ``metadata`` (the benchmark's) and what the fork recorded, the runs it
    measured after).  A refusal or crash there ends this program as it
    would have ended the worker.  ``scaled``: scale the loops to the
    minimum time (_scale) instead of doubling past it.  ``then(loops,
    facts, writable)``: what the fork does next, the facts its set-up
    recorded in hand; it writes a pyperf benchmark of its runs to
    ``writable``."""
    said, code = forking.call(
        lambda writable: _child(time_function, min_time, writable, scaled,
                                then))
    if code < 0:
        # The form pyperf uses for a worker, so run names the signal.
        print("ERROR: calibration failed with exit code %d" % code,
              file=sys.stderr)
        sys.exit(1)
    if code or not said:
        sys.exit(code or 1)  # the fork said why on stderr
    first, _, rest = said.partition("\n")
    found = json.loads(first)
    metadata = dict(metadata)
    metadata.update(found["metadata"])
    runs = (pyperf.BenchmarkSuite.loads(rest).get_benchmarks()[0].get_runs()
            if rest.strip() else [])
    return pyperf.Run((), warmups=[tuple(pair) for pair in found["warmups"]],
                      metadata=metadata), runs


def _child(time_function, min_time, writable, scaled, then):
    metadata = {}
    record.set_sink(metadata)
    started = perf_counter()
    calibrate = _scale if scaled else _double
    loops, warmups = calibrate(time_function, min_time)
    facts = dict(metadata)
    if then is None:
        time_function.close()
    metadata.update(calibrate_loops=loops, loops=loops,
                    duration=perf_counter() - started)
    # A copy of the descriptor: ``then`` writes on after this line.
    with os.fdopen(os.dup(writable), "w") as stream:
        stream.write(json.dumps({"warmups": warmups, "metadata": metadata})
                     + "\n")
    if then is not None:
        record.set_sink(None)
        return then(loops, facts, writable)


def _double(time_function, min_time):
    """(loops, [(loops, seconds per loop), ...]): pyperf's doubling, but a
    call that reaches ``min_time`` at over STALL_JUMP times the previous
    call's time is timed once more, and the doubling goes on if that one
    falls short."""
    return _double_from(time_function, min_time, 1, [])


def _double_from(time_function, min_time, loops, warmups, climb=2):
    """_double from ``loops``, adding to ``warmups``; ``climb``: the most
    the loops grow by a call, as far as the last call's time falls short
    of ``min_time`` (at least doubling)."""
    previous, step = None, 2
    while True:
        raw = _timed(time_function, loops, warmups)
        if (raw >= min_time and previous is not None
                and raw > STALL_JUMP * previous * step / 2.0):
            raw = _timed(time_function, loops, warmups)
        if raw >= min_time:
            return loops, warmups
        step = max(2, min(climb, int(min_time / raw) if raw > 0 else climb))
        if loops * step > MAX_LOOPS:
            if loops * 2 > MAX_LOOPS:
                raise RuntimeError("failed to calibrate the number of "
                                   "loops: %d loops still take under %g s"
                                   % (loops, min_time))
            step = 2
        previous = raw
        loops *= step


def _scale(time_function, min_time):
    """(loops, [(loops, seconds per loop), ...]): climb (by up to CLIMB a
    call) until a call lasts SCALE_FROM of ``min_time``, then scale the
    loops to MARGIN times it and check; a check that falls short scales
    again, and after SCALE_TRIES the doubling finishes the job."""
    loops, warmups = _double_from(time_function, min_time * SCALE_FROM, 1,
                                  [], climb=CLIMB)
    raw = warmups[-1][1] * loops
    if raw >= min_time or raw <= 0:
        return loops, warmups
    for _ in range(SCALE_TRIES):
        loops = min(max(int(math.ceil(loops * min_time * MARGIN / raw)),
                        loops), MAX_LOOPS)
        raw = _timed(time_function, loops, warmups)
        if raw >= min_time:
            return loops, warmups
    more, _ = _double_from(time_function, min_time, loops, warmups)
    return more, warmups


def _timed(time_function, loops, warmups):
    raw = time_function(loops)
    warmups.append((loops, raw / loops))
    return raw
