"""An earlier result file of this interpreter on this machine: reading
it, telling whether it was made here (``gilbench extend`` refuses one
that was not), and its calibrated loop counts (``run --loops-from
PREVIOUS.json``), so pyperf skips its calibration worker: a process
start and a run of doubling loop counts per benchmark.

A loop count is only as good as the conditions it was calibrated in: it
is reused when the earlier file was made by this interpreter (its
executable, version and GIL state) on this machine (host name, CPU model
and count); otherwise every benchmark calibrates and one line says why.
A benchmark the earlier file lacks, or has without values, calibrates.
"""
from __future__ import print_function

import platform
import socket
import sys

from gilbench.errors import UsageError
from gilbench.measure import gilguard


def load_result(path, what="--loops-from"):
    """The pyperf suite at ``path``; one line naming ``what`` read it
    when it is not one."""
    import pyperf
    try:
        return pyperf.BenchmarkSuite.load(path)
    except (IOError, OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError("%s %r: not a readable pyperf result (%s)" % (
            what, path, getattr(exc, "strerror", None) or exc))


def here():
    """This interpreter and machine, as pyperf's run metadata names
    them."""
    import multiprocessing
    return {
        "python_executable": sys.executable,
        "python_implementation": platform.python_implementation().lower(),
        "python_gil": "enabled" if gilguard.gil_enabled() else "disabled",
        "hostname": socket.gethostname(),
        "cpu_count": multiprocessing.cpu_count(),
    }


def mismatch(metadata, facts):
    """The first fact of ``metadata`` that differs from ``facts`` (what
    here() gives), or None."""
    for key in sorted(facts):
        if key in metadata and metadata[key] != facts[key]:
            return "%s is %r there, %r here" % (key, metadata[key],
                                                  facts[key])
    return None


def loops_from(path):
    """({benchmark name: loops}, why none are reused or None)."""
    suite = load_result(path)
    facts = here()
    found = {}
    for bench in suite.get_benchmarks():
        runs = [run for run in bench.get_runs() if run.values]
        if not runs:
            continue
        metadata = runs[0].get_metadata()
        why = mismatch(metadata, facts)
        if why:
            return {}, ("--loops-from %s: made elsewhere (%s); every "
                        "benchmark calibrates" % (path, why))
        loops = set(run.get_metadata().get("loops") for run in runs)
        if len(loops) == 1 and None not in loops:
            found[bench.get_name()] = loops.pop()
    return found, None
