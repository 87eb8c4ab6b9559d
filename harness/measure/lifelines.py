"""Keeping every process of a benchmark tied to the runner (Linux).

* A benchmark's process dies with its parent (``PR_SET_PDEATHSIG``): when
  the runner is killed -- even with SIGKILL -- its benchmark program dies,
  then that program's pyperf workers, then their worker processes.
* The runner is a child subreaper (``PR_SET_CHILD_SUBREAPER``): a process
  a case forks and leaves behind (even one that calls setsid) is
  re-parented to the runner instead of init, so :func:`reap_orphans` can
  end it once its benchmark is over.

Elsewhere these are no-ops; the process-group kill after a timeout still
applies.
"""
import ctypes
import ctypes.util
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def libc():
    """The C library, from the symbols already loaded: find_library would
    run ``ldconfig -p``, a process start in every benchmark process."""
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def _prctl(option, value):
    if not sys.platform.startswith("linux"):
        return False
    try:
        return libc().prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent():
    """SIGKILL this process when the thread that forked it ends."""
    return _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def become_subreaper():
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


# Children the runner keeps on purpose between benchmarks (a run's judge):
# their pids, and theirs alone, outlive reap_orphans.
KEPT = set()


def reap_orphans():
    """Kill and reap every descendant of this process but those KEPT;
    return how many.

    Called between benchmarks, when the runner has no child of its own
    running: anything else left is a process a case left behind.
    """
    import psutil

    from gilbench.measure.metrics import descendants
    left = [process for process in descendants()
            if process.pid not in KEPT]
    for process in left:
        try:
            process.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(left, timeout=5)
    return len(left)
