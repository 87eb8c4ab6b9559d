"""Whether a benchmark really ran with the GIL state its interpreter claims.

On a free-threaded build (3.13t, 3.14t) importing an extension module that
does not declare free-threading support enables the GIL for the rest of the
process, with only a RuntimeWarning to say so.  Every value measured after
that is a GIL build's value under a free-threaded label, so a worker calls
``install()`` before any case set-up, records ``state()`` with its results,
and treats a non-None ``reenabled_reason()`` as a failed benchmark.

Worker side: Python 2.7-compatible, standard library only.
"""
import os
import platform
import re
import sys
import warnings

from gilbench.model.envnames import free_threaded_build

# CPython's message (Python/import.c, _PyImport_CheckGILForModule).
_WARNING = re.compile(r"The global interpreter lock \(GIL\) has been enabled "
                      r"to load module '([^']+)'")
_FILTER = r"The global interpreter lock \(GIL\) has been enabled"

# A benchmark's failure reason when an import re-enabled the GIL, before
# the modules it names (the report's causes read it back).
REENABLED = "failed: GIL re-enabled by import of "

_reenabling_modules = []
_installed = []


def gil_enabled():
    """True, False, or None where the interpreter cannot say.

    sys._is_gil_enabled exists from 3.13; before it, CPython and PyPy
    always had a GIL.
    """
    is_enabled = getattr(sys, "_is_gil_enabled", None)
    if is_enabled is not None:
        return bool(is_enabled())
    if platform.python_implementation() in ("CPython", "PyPy"):
        return True
    return None


def install():
    """Start recording GIL re-enabling warnings; idempotent.

    The warning passes through warnings.showwarning (wrapped here, so it
    is still displayed as usual).  A filter makes sure it reaches that
    function even if a -W option or a filter would hide or repeat-suppress
    it; other warnings' filters are left as they are.
    """
    if _installed or not free_threaded_build():
        return
    _installed.append(True)
    warnings.filterwarnings("always", message=_FILTER,
                            category=RuntimeWarning)
    shown = warnings.showwarning

    def showwarning(message, category, filename, lineno, file=None,
                    line=None):
        _record(message)
        shown(message, category, filename, lineno, file, line)

    warnings.showwarning = showwarning


def _record(message):
    match = _WARNING.search(str(message))
    if match and match.group(1) not in _reenabling_modules:
        _reenabling_modules.append(match.group(1))


def reenabling_modules():
    """Names of the modules whose import enabled the GIL, in order."""
    return list(_reenabling_modules)


def requested():
    """The GIL the user asked for (-X gil or PYTHON_GIL), or None."""
    xoptions = getattr(sys, "_xoptions", {})
    if "gil" in xoptions:
        return xoptions["gil"]
    return os.environ.get("PYTHON_GIL")


def state():
    """Metadata: ``python_gil`` ("enabled", "disabled" or "unknown"),
    ``py_gil_disabled_build`` (0/1), and ``python_gil_requested`` (the
    PYTHON_GIL / -X gil value) when one was given."""
    enabled = gil_enabled()
    facts = {"python_gil": {True: "enabled", False: "disabled"}.get(
                 enabled, "unknown"),
             "py_gil_disabled_build": int(free_threaded_build())}
    wanted = requested()
    if wanted is not None:
        facts["python_gil_requested"] = wanted
    return facts


def reenabled_reason():
    """None, or why the GIL is on in a free-threaded process that did not
    ask for it: ``failed: GIL re-enabled by import of <module>``."""
    if not free_threaded_build() or requested() == "1" or not gil_enabled():
        return None
    modules = reenabling_modules()
    return REENABLED + (", ".join(modules) if modules else
                        "an unknown import")
