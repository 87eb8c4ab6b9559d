"""Case module for tests/test_isolation.py: one good spec and one of each
way a case can go wrong (raise, crash, hang, be unavailable).

Loaded by path (``--module tests/crashing_cases.py``) in the harness parent,
in every ``python -m gilbench bench`` child and in their pyperf workers, so it
imports only the standard library and gilbench.model.registry.
"""
import os
import signal
import time

from gilbench.api import CaseSpec, Unavailable

FAMILY = "crash"
UNAVAILABLE_REASON = "no gadget on this machine"
WORK_ERROR = "boom from crashing_cases"


def _good(params):
    def work(loops):
        total = 0
        for i in range(loops):
            total += i
    return work


def _raises(params):
    def work(loops):
        raise RuntimeError(WORK_ERROR)
    return work


def _crashes(params):
    def work(loops):
        try:  # no core file for the deliberate crash
            import resource
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        except (ImportError, ValueError, OSError):
            pass
        os.kill(os.getpid(), signal.SIGSEGV)
        time.sleep(60)  # not reached: the signal's default action kills us
    return work


def _hangs(params):
    def work(loops):
        while True:
            time.sleep(3600)
    return work


def _unavailable(params):
    raise Unavailable(UNAVAILABLE_REASON)


CASES = [
    CaseSpec(FAMILY, "good", "v", "python", _good, "works"),
    CaseSpec(FAMILY, "raises", "v", "python", _raises, "raises in work"),
    CaseSpec(FAMILY, "crashes", "v", "python", _crashes, "SIGSEGV in work"),
    CaseSpec(FAMILY, "hangs", "v", "python", _hangs, "sleeps forever"),
    CaseSpec(FAMILY, "absent", "v", "python", _unavailable, "unavailable"),
]

GOOD = "crash.good.v.python"
RAISES = "crash.raises.v.python"
CRASHES = "crash.crashes.v.python"
HANGS = "crash.hangs.v.python"
ABSENT = "crash.absent.v.python"
