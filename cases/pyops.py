"""Pyops family: Python operations that ought to scale across threads.

Each case is one small operation of the interpreter itself, run in a loop
by N threads at once; nothing is shared between the threads unless the
case says so.  On a build with a GIL they cannot scale (efficiency about
1/N against the ceiling); on a free-threaded build they should, and where
one does not, reference counts or per-object locks contend.  The list of
operations is CPython's Tools/ftscalingbench's (the code is this
project's own):

* ``list_method`` (a C method of a list), ``c_function`` (a C function
  of a module, looked up on the module), ``float_math``, ``generator``
  (resuming one), ``py_method``, ``py_function`` (a local function),
  ``module_function`` (a module-level function, looked up as a global),
  ``str_constant`` and ``tuple_constant`` (loading a constant),
  ``new_object``, ``new_closure``, ``new_dict`` (creating one), and
  ``thread_local`` (reading a ``threading.local`` attribute);
* shared objects, each ``shared`` by every thread or ``private`` (one per
  thread), the operation otherwise the same: ``dict_item`` (a thread's
  own key of a dict, read and written), ``list_append`` (append then
  pop), ``attribute`` (an instance attribute read and written) and
  ``counter`` (``next()`` of an ``itertools.count``).

A value is wall seconds per loop, in which every thread performed the
operation once (ops_per_loop = threads).  Every object a thread uses is
made before the clock.
"""
import itertools
import math
import threading
from itertools import repeat

from gilbench.api import (
    CEILING,
    HIGHEST,
    LOWEST,
    USABLE,
    CaseSpec,
    best,
    efficiency,
    finding,
    ratio,
    table,
    threads,
    value,
    worker_index,
)

FAMILY = "pyops"
ORDER = 12  # right after the gil family: the interpreter's own share
# 1 and 2 threads, and the usable CPUs' points above them
# (gilbench.model.axes.machine_points).
COUNTS = (1, 2)
QUICK_COUNTS = (1, 2)
# Values of >= 20 ms (pyperf's default is 100 ms): operations of tens of
# nanoseconds need no more, and the main job runs the family everywhere.
SIZING = ["--min-time", "0.02"]
SHARED, PRIVATE = "shared", "private"


class Holder(object):
    """An instance whose attribute and method the cases use."""

    def __init__(self):
        self.count = 0

    def method(self):
        return self


def _module_level():
    return None


def _numbers(loops):
    for _ in repeat(None, loops):
        yield 1


def _append_pop(items, loops):
    for _ in repeat(None, loops):
        items.append(1)
        items.pop()


def list_method(objects, loops):
    """Append and pop on the thread's own list (C methods)."""
    _append_pop(objects.private, loops)


def c_function(objects, loops):
    """Math.sqrt, looked up on the module each time."""
    for _ in repeat(None, loops):
        math.sqrt(2.0)


def float_math(objects, loops):
    """A multiply and an add of floats."""
    number = 1.0
    for _ in repeat(None, loops):
        number = number * 0.5 + 1.0
    return number


def generator(objects, loops):
    """Resume a generator for its next value."""
    total = 0
    for one in _numbers(loops):
        total += one
    return total


def py_method(objects, loops):
    """Call a Python method of the thread's own instance."""
    holder = objects.private
    for _ in repeat(None, loops):
        holder.method()


def py_function(objects, loops):
    """Call a local Python function."""
    def local():
        return None
    for _ in repeat(None, loops):
        local()


def module_function(objects, loops):
    """Call a module-level Python function (a global)."""
    for _ in repeat(None, loops):
        _module_level()


def str_constant(objects, loops):
    """Load a str constant."""
    text = None
    for _ in repeat(None, loops):
        text = "a constant string"
    return text


def tuple_constant(objects, loops):
    """Load a tuple constant."""
    numbers = None
    for _ in repeat(None, loops):
        numbers = (1, 2, 3)
    return numbers


def new_object(objects, loops):
    """Create an instance of a Python class."""
    for _ in repeat(None, loops):
        Holder()


def new_closure(objects, loops):
    """Create a closure."""
    for number in repeat(1, loops):
        def closure():
            return number


def new_dict(objects, loops):
    """Create a one-item dict."""
    for number in repeat(1, loops):
        {"key": number}


def thread_local(objects, loops):
    """Read an attribute of one threading.local."""
    local = objects.shared  # one threading.local: a value per thread
    if not hasattr(local, "value"):  # this thread's first call
        local.value = 1
    for _ in repeat(None, loops):
        local.value


def dict_item(objects, loops):
    """Read and write the thread's own key of a dict."""
    table_, key = objects.chosen, objects.key
    for _ in repeat(None, loops):
        table_[key] = table_[key] + 1


def list_append(objects, loops):
    """Append to a list and pop from it."""
    _append_pop(objects.chosen, loops)


def attribute(objects, loops):
    """Read and write an instance attribute."""
    holder = objects.chosen
    for _ in repeat(None, loops):
        holder.count = holder.count + 1


def counter(objects, loops):
    """Advance an itertools.count."""
    count = objects.chosen
    for _ in repeat(None, loops):
        next(count)


class Objects(object):
    """What one thread's operation works on: its own object, the one
    shared by every thread, the one its variant chose, and a key of its
    own."""

    def __init__(self, private, shared, variant, key):
        self.private = private
        self.shared = shared
        self.chosen = shared if variant == SHARED else private
        self.key = key


class Operating(object):
    """``work(loops)``: the calling thread runs its operation ``loops``
    times on the objects made for it before the clock."""

    def __init__(self, operation, objects):
        self.operation = operation
        self.objects = objects

    def __call__(self, loops):
        self.operation(self.objects[worker_index()], loops)


MAKERS = {
    "list_method": lambda: [1] * 100,
    "py_method": Holder,
    "dict_item": lambda: {},
    "list_append": lambda: [1] * 100,
    "attribute": Holder,
    "counter": itertools.count,
    "thread_local": threading.local,  # one for all: a value per thread
}


def preparing(operation, variant):
    """prepare(params): each thread's objects, and the shared one."""
    name = operation.__name__
    make = MAKERS.get(name, lambda: None)

    def prepare(params):
        count = params["threads"]
        shared = make()
        objects = []
        for index in range(count):
            key = "thread-%d" % index
            private = make()
            if isinstance(shared, dict):
                shared[key] = 0
            if isinstance(private, dict):
                private[key] = 0
            objects.append(Objects(private, shared, variant, key))
        return Operating(operation, objects)
    return prepare


SCALING = [list_method, c_function, float_math, generator, py_method,
           py_function, module_function, str_constant, tuple_constant,
           new_object, new_closure, new_dict, thread_local]
SHARING = [dict_item, list_append, attribute, counter]
_AXES = [threads(values=COUNTS, quick=QUICK_COUNTS, machine=True)]


def _spec(operation, variant, what):
    return CaseSpec(FAMILY, operation.__name__, variant, "python",
                    preparing(operation, variant), what, axes=_AXES,
                    sizing=SIZING)


def _what(operation):
    return operation.__doc__.rstrip(".")


CASES = [_spec(op, PRIVATE, "%s, in N threads" % _what(op))
         for op in SCALING] + [
    _spec(op, variant, "%s: %s, in N threads" % (
        _what(op), "one shared by all" if variant == SHARED
        else "one per thread"))
    for op in SHARING for variant in (PRIVATE, SHARED)]

_EFFICIENCY = efficiency(over="threads", against=CEILING)
_SHARED_OVER_PRIVATE = ratio(over="variant", numerator=SHARED,
                             denominator=PRIVATE)
_SCALING_CASES = [op.__name__ for op in SCALING]
_SHARING_CASES = [op.__name__ for op in SHARING]
# Every thread count but the baseline's (whose efficiency is 1 by
# definition), whichever counts a run names.
_SEVERAL = list(range(2, 257))
_PER_OPERATION = "Efficiency against this machine's ceiling, per operation"
_SHARED_TABLE = "Shared object over one per thread (time)"

TABLES = [
    table(_PER_OPERATION, rows="case", per=["threads"],
          where={"variant": PRIVATE, "threads": _SEVERAL}, cell=_EFFICIENCY,
          note="1.00: the operation scales as the ceiling's C loop does; "
          "on a build with a GIL, about 1/N."),
    table(_SHARED_TABLE, rows="case", per=["threads"],
          where={"case": _SHARING_CASES}, cell=_SHARED_OVER_PRIVATE,
          note="Above 1: threads sharing one object are slower than "
          "threads with one each."),
    table("Time per operation", rows="case", per=["variant", "threads"],
          cell=value(per_op=True)),
]


def _sharing_finding(operation, question):
    return finding(question, _SHARED_OVER_PRIVATE,
                   at={"case": operation.__name__, "threads": USABLE},
                   evidence=_SHARED_TABLE)


FINDINGS = [
    finding("Which Python operation scales worst at {N} threads (lowest "
            "efficiency against the ceiling)?",
            best(over="case", of=_EFFICIENCY, pick=LOWEST,
                 among=_SCALING_CASES),
            at={"variant": PRIVATE, "threads": USABLE},
            evidence=_PER_OPERATION),
    finding("... and which scales best?",
            best(over="case", of=_EFFICIENCY, pick=HIGHEST,
                 among=_SCALING_CASES),
            at={"variant": PRIVATE, "threads": USABLE},
            evidence=_PER_OPERATION),
    _sharing_finding(dict_item, "One dict written by {N} threads against "
                     "one each: how much slower (shared/private)?"),
    _sharing_finding(list_append, "... one list appended to by {N} "
                     "threads?"),
    _sharing_finding(attribute, "... one instance's attribute written by "
                     "{N} threads?"),
    _sharing_finding(counter, "... one itertools.count advanced by {N} "
                     "threads?"),
]
