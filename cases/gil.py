"""GIL family: what releasing the GIL around a native call costs.

Two native calls from extensions/gil.c -- ``trivial`` (constant-time work
the optimiser cannot remove) and ``lock`` (the same inside a pthread mutex
lock/unlock) -- each called from a Python loop in N threads:

* ``gil``/``cython``: the Cython wrapper holds the GIL through the call;
* ``nogil``/``cython``: the wrapper releases it (``with nogil:``);
* ``nogil``/``cffi``: the cffi API-mode wrapper, which releases the GIL
  around every call by construction (cffi has no GIL-held calls);
* ``gil``/``python``: a pure-Python function (and ``threading.Lock``) as
  the reference for what the interpreter alone costs.

A value is wall seconds per loop in which every thread made one call.

Findings (the cache write-up's "Before Shared Memory" questions): what
releasing the GIL costs a trivial Cython call at 1 and at 2 threads (its
nogil/gil table), what a mutex adds (its lock-vs-trivial factor), and
what a GIL-releasing call costs through cffi rather than Cython (on PyPy
Cython goes through cpyext).  The break-even work size is the lock
family's.  Scaling: the GIL-released and GIL-held trivial calls' efficiency
at 2 threads against this machine's ceiling (the ceiling family) and
their scalability-law fits -- on a free-threaded build the GIL-held row
shows what reference-count contention leaves of parallelism.
"""
import threading

from gilbench.api import (
    CEILING,
    USABLE,
    CaseSpec,
    calling,
    efficiency,
    finding,
    import_extension,
    needs,
    ratio,
    scaling,
    speedup,
    table,
)

FAMILY = "gil"
ORDER = 10  # first on the page: the question this project began with
CYTHON_MODULE = "gilbench.extensions._gil_cy"
CFFI_MODULE = "gilbench.extensions._gil_cffi"


def cython(function_name):
    def prepare(params):
        module = import_extension(CYTHON_MODULE)
        return calling(getattr(module, function_name))
    return prepare


def cffi(function_name):
    def prepare(params):
        module = import_extension(CFFI_MODULE)
        return calling(getattr(module.lib, function_name))
    return prepare


def _python_trivial():
    return 1


def python_trivial(params):
    return calling(_python_trivial)


def python_lock(params):
    lock = threading.Lock()

    def locked_trivial():
        with lock:
            _python_trivial()
    return calling(locked_trivial)


def _specs(case, what, cython_name, cffi_name, python_prepare, python_what):
    return [
        CaseSpec(FAMILY, case, "gil", "cython", cython(cython_name + "_gil"),
                 "%s, GIL held (Cython)" % what,
                 check=needs(CYTHON_MODULE)),
        CaseSpec(FAMILY, case, "nogil", "cython",
                 cython(cython_name + "_nogil"),
                 "%s, GIL released (Cython with nogil)" % what,
                 check=needs(CYTHON_MODULE)),
        CaseSpec(FAMILY, case, "nogil", "cffi", cffi(cffi_name),
                 "%s, GIL released (cffi API mode)" % what,
                 check=needs(CFFI_MODULE)),
        CaseSpec(FAMILY, case, "gil", "python", python_prepare,
                 "%s, reference" % python_what),
    ]


CASES = (
    _specs("trivial", "constant-time C call", "trivial", "gb_trivial",
           python_trivial, "pure-Python function call")
    + _specs("lock", "C call inside pthread mutex lock/unlock", "lock",
             "gb_lock_trivial", python_lock,
             "pure-Python call inside threading.Lock"))

TABLES = [
    table("nogil/gil slowdown", rows="threads", per=["case", "backend"],
          cell=ratio(over="variant", numerator="nogil", denominator="gil",
                     fallback={"backend": "cython"}),
          note="cffi always releases the GIL, so its rows are divided by "
          "the GIL-held Cython call"),
    table("lock/trivial factor", rows="threads", per=["variant", "backend"],
          cell=ratio(over="case", numerator="lock", denominator="trivial")),
    table("Scaling over threads", rows="threads",
          per=["case", "variant", "backend"],
          cell=speedup(over="threads", baseline=1, scaled=True),
          note="Calls per second at N threads over 1 thread's; the dashed "
          "line is this machine's ceiling, dotted lines the fits."),
    table("Efficiency against this machine's ceiling", rows="threads",
          per=["case", "variant", "backend"],
          cell=efficiency(over="threads", against=CEILING)),
    table("Scalability-law fit over threads", rows="variant",
          per=["case", "backend"], cell=scaling(over="threads")),
]

_SLOWDOWN = ratio(over="variant", numerator="nogil", denominator="gil")


def _scaling_findings(variant, question):
    """Efficiency against the ceiling at N threads, then the fit."""
    point = {"case": "trivial", "variant": variant, "backend": "cython"}
    return [
        finding(question, efficiency(over="threads", against=CEILING),
                at=dict(point, threads=USABLE)),
        finding("... its scalability-law fit over threads (s, k, peak)?",
                scaling(over="threads"), at=point),
    ]


FINDINGS = [
    finding("Releasing the GIL around a trivial Cython call: how much "
            "slower, 1 thread (nogil/gil)?", _SLOWDOWN,
            at={"case": "trivial", "backend": "cython", "threads": 1},
            evidence="nogil/gil slowdown"),
    finding("... and at {N} threads?", _SLOWDOWN,
            at={"case": "trivial", "backend": "cython", "threads": USABLE},
            evidence="nogil/gil slowdown"),
    finding("What does a pthread mutex add to a GIL-held Cython call, "
            "1 thread (lock/trivial)?",
            ratio(over="case", numerator="lock", denominator="trivial"),
            at={"variant": "gil", "backend": "cython", "threads": 1}),
    finding("A GIL-releasing call through cffi vs through Cython, 1 thread "
            "(cffi/Cython)?",
            ratio(over="backend", numerator="cffi", denominator="cython"),
            at={"case": "trivial", "variant": "nogil", "threads": 1},
            evidence="nogil/gil slowdown"),
] + _scaling_findings(
    "nogil", "A GIL-released trivial Cython call at {N} threads: efficiency "
    "against this machine's ceiling?") + _scaling_findings(
    "gil", "A GIL-held trivial Cython call at {N} threads: efficiency against "
    "the ceiling (on a free-threaded build: what reference-count "
    "contention leaves)?")
