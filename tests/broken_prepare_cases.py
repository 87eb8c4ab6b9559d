"""Case module for tests/test_isolation.py: a spec whose prepare() raises an
ordinary exception (a bug in the case, not Unavailable) next to a good one.

The harness promises that a case that raises costs only its own result, so
the good benchmark must still be written.
"""
from gilbench.api import CaseSpec

PREPARE_ERROR = "prepare blew up"


def _good(params):
    def work(loops):
        for _ in range(loops):
            pass
    return work


def _broken(params):
    raise RuntimeError(PREPARE_ERROR)


CASES = [
    CaseSpec("broken", "good", "v", "python", _good, "works"),
    CaseSpec("broken", "prepare", "v", "python", _broken, "prepare raises"),
]

GOOD = "broken.good.v.python"
BROKEN = "broken.prepare.v.python"
