"""What every case module needs and once wrote for itself: a guarded
import of a native extension, the ``check`` built on it, and a clock that
is right on Python 2.7 and 3.x.  Worker side: Python 2.7 compatible;
exported by ``gilbench.api``."""
import importlib

from gilbench.model.registry import Unavailable

try:
    from time import perf_counter
except ImportError:  # Python 2.7: pyperf's is time.time, system-wide too
    from pyperf import perf_counter

__all__ = ["import_extension", "needs", "perf_counter"]


def import_extension(name):
    """The module ``name``, or ``Unavailable`` (the benchmark becomes
    "n/a: NAME not built (why)") when it cannot be imported here."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise Unavailable("%s not built (%s)" % (name, exc))


def needs(*module_names):
    """A CaseSpec ``check``: n/a unless every module imports here."""
    def check(params):
        for name in module_names:
            import_extension(name)
    return check
