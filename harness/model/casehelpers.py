"""What every case module needs and once wrote for itself: a guarded
import of a native extension, the ``check`` built on it, a clock that
is right on Python 2.7 and 3.x, and a threads case's loop of calls.
Worker side: Python 2.7 compatible; exported by ``gilbench.api``."""
import importlib
from itertools import repeat

from gilbench.model import shadowing
from gilbench.model.registry import Unavailable

try:
    from time import perf_counter
except ImportError:  # Python 2.7: pyperf's is time.time, system-wide too
    from pyperf import perf_counter

__all__ = ["import_extension", "needs", "perf_counter", "calling"]


def import_extension(name):
    """The module ``name``, or ``Unavailable`` (the benchmark becomes
    "n/a: NAME not built (why)") when it cannot be imported here."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise Unavailable("%s not built (%s)"
                          % (name, shadowing.explained(exc, typed=False)))


def needs(*module_names):
    """A CaseSpec ``check``: n/a unless every module imports here."""
    def check(params):
        for name in module_names:
            import_extension(name)
    return check


def calling(func):
    """A threads case's per-thread work: ``loops`` calls of ``func()``
    from Python, the loop as cheap as Python makes it."""
    def work(loops):
        for _ in repeat(None, loops):
            func()
    return work
