"""Each forked worker its own memory layout.

A fork of a benchmark program starts with the program's heap: its
objects at the program's addresses, and the next allocations landing
where every other fork's land.  On a free-threaded build which objects
share a cache line (a code object's shared reference count beside what
another thread writes) can decide an answer, so forks that share one
layout agree with each other and their spread says "certain" about one
draw of a layout (docs/architecture.rst, "What a fork inherits").

:func:`renew` draws a new layout in a fresh fork, before the case is
loaded: a random number of objects of every small size, GC-tracked
(tuples) and not (bytes), kept alive, offsets where each allocator size
class places its next object; then the case modules, and the
pure-Python modules beside them (a package's, a case file's
directory's), are forgotten, so the worker imports them again and their
code objects, functions and module dicts are made at the new offsets
(so is everything ``prepare`` makes).  What it cannot renew:
the hash seed (strings cache their hashes, and a dict's order of
str keys follows it) and the address-space base (ASLR), which only a
fresh interpreter draws (``--fresh-workers``).

Off by default: a run renews layouts with ``GILBENCH_WORKER_LAYOUT=renew``
in its environment (:func:`wanted`); with pyperf's two processes per
benchmark a layout's effect is sampled too few times for an interval to
carry it (docs/reading.rst, "Intervals").

Worker side: Python 2.7 compatible.
"""
import os
import random
import sys

from gilbench.model import modules

# Object sizes the offsets cover: tuples of 1-64 items (GC-tracked,
# 40-570 bytes) and bytes of 2-506 (35-540 bytes), each size
# 0..MAX_PER_SIZE times: up to about 1.2 MB, a millisecond or two.
TUPLE_ITEMS = range(1, 65)
BYTES_LENGTHS = range(2, 513, 8)
MAX_PER_SIZE = 32

SETTING = "GILBENCH_WORKER_LAYOUT"
RENEW = "renew"

_ballast = []  # alive until the worker exits
_renewed = []  # [objects kept, names forgotten] once renew() ran


def wanted():
    """Whether this run asks each forked worker to renew its layout."""
    return os.environ.get(SETTING) == RENEW


def renew(module_names):
    """Offset the heap, then forget the case modules named (dotted names
    or ``.py`` paths) and the pure-Python modules beside them, to be
    imported again (:func:`facts` says what it did)."""
    chance = random.SystemRandom()
    for items in TUPLE_ITEMS:
        for _ in range(chance.randrange(MAX_PER_SIZE + 1)):
            _ballast.append(tuple([None] * items))
    for length in BYTES_LENGTHS:
        for _ in range(chance.randrange(MAX_PER_SIZE + 1)):
            _ballast.append(bytes(bytearray(length)))
    _renewed[:] = [len(_ballast), forget(module_names)]


def facts():
    """What :func:`renew` did in this process, as run metadata: the
    objects kept, and how many of the modules forgotten were imported again
    (by now); empty in a worker that did not renew (a fresh
    interpreter's layout is its own)."""
    if not _renewed:
        return {}
    kept, forgotten = _renewed
    return {"worker_heap_objects": kept,
            "worker_reimported": sum(name in sys.modules
                                     for name in forgotten)}


def forget(module_names):
    """Remove from ``sys.modules`` the named case modules and the
    pure-Python, non-package modules beside them: a dotted name's
    package's other modules (not a package of gilbench's own harness;
    the built-in cases are case modules like a user's), a path's
    directory's modules.  Returns the names removed."""
    named = [modules.loaded_name(name) for name in module_names or ()]
    prefixes, directories = [], []
    for name, key in zip(module_names or (), named):
        module = sys.modules.get(key)
        if module is None or modules.is_harness_module(module):
            continue
        if key == name and "." in name:  # a dotted name, in a package
            prefixes.append(name.rsplit(".", 1)[0] + ".")
        elif key != name:  # a path
            directories.append(_directory(module))
    forgotten = []
    for name, module in list(sys.modules.items()):
        beside = _pure_python(module) and (
            name.startswith(tuple(prefixes))
            or _directory(module) in directories)
        if name in named or beside:
            del sys.modules[name]
            forgotten.append(name)
    return forgotten


def _directory(module):
    path = getattr(module, "__file__", None)
    return os.path.dirname(os.path.abspath(path)) if path else None


def _pure_python(module):
    path = getattr(module, "__file__", None) or ""
    return (not hasattr(module, "__path__")
            and path.endswith((".py", ".pyc")))
