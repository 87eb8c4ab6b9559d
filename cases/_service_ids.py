"""The service family's ids: the generators (Python, Cython, cffi, and the
echo server's counter), the id layout, and the checks made on the ids of
one value.  Not a family (the registry skips ``_`` modules): support code
for cases/service.py and its UDP service.

An id is ``tick | node | sequence`` (extensions/service.h): milliseconds
since 2020, the node of the process (or thread) that made it, and a 14-bit
sequence.
"""
import collections
import functools
import itertools
import operator
import platform
import struct
import threading
import time

from gilbench.api import Unavailable, import_extension, record

CYTHON_MODULE = "gilbench.extensions._service_cy"
CFFI_MODULE = "gilbench.extensions._service_cffi"
NODE_BITS = 8
SEQ_BITS = 14
NODE_MASK = (1 << NODE_BITS) - 1
EPOCH_MS = 1577836800000  # extensions/service.c's SV_EPOCH
TAG = struct.Struct("!I")
ID = struct.Struct("!q")
REPLY_BYTES = TAG.size + ID.size
TAG_MASK = 0xffffffff


class PythonGenerator(object):
    """service.c's generator in Python, behind a lock."""

    def __init__(self, node, seq_bits=SEQ_BITS, tick_ms=1, capped=False):
        if not 0 <= node < 1 << NODE_BITS or seq_bits < 1 or tick_ms < 1:
            raise ValueError("bad generator (%r, %r, %r)"
                             % (node, seq_bits, tick_ms))
        self._node = node << seq_bits
        self._mask = (1 << seq_bits) - 1
        self._shift = NODE_BITS + seq_bits
        self._tick_ms = tick_ms
        self._capped = capped
        self._last = 0
        self._errors = 0
        self._lock = threading.Lock()

    def next_id(self):
        now = (int(time.time() * 1000) - EPOCH_MS) // self._tick_ms
        with self._lock:
            last = self._last
            tick = last >> self._shift
            if now > tick:
                new = (now << self._shift) | self._node
            elif last & self._mask < self._mask:
                new = last + 1
            elif self._capped:
                self._errors += 1
                return -1
            else:  # borrow the next tick
                new = ((tick + 1) << self._shift) | self._node
            self._last = new
            return new

    def errors(self):
        return self._errors


def _cython_generator(node, seq_bits=SEQ_BITS, tick_ms=1, capped=False):
    module = import_extension(CYTHON_MODULE)
    return module.Generator(node, seq_bits, tick_ms, capped)


class CffiGenerator(object):
    """The C generator through cffi; ``next_id`` is one cffi call."""

    def __init__(self, node, seq_bits=SEQ_BITS, tick_ms=1, capped=False):
        module = import_extension(CFFI_MODULE)
        lib = module.lib
        gen = lib.sv_new(node, seq_bits, tick_ms, int(capped))
        if gen == module.ffi.NULL:
            raise ValueError("sv_new(%r, %r, %r) failed"
                             % (node, seq_bits, tick_ms))
        self._gen = module.ffi.gc(gen, lib.sv_free)
        self.next_id = functools.partial(lib.sv_next, self._gen)
        self.errors = functools.partial(lib.sv_errors, self._gen)


class EchoCounter(object):
    """The echo server's "generator": the least work that still gives
    unique ids, increasing per node and laid out as ids (sequence 0, the
    node, a count where the tick goes), so the client's checks hold for
    the echo row too.  Not thread-safe: one per server thread."""

    def __init__(self, node):
        if not 0 <= node < 1 << NODE_BITS:
            raise ValueError("bad node %r" % (node,))
        step = 1 << (NODE_BITS + SEQ_BITS)
        self.next_id = functools.partial(
            next, itertools.count(step | node << SEQ_BITS, step))

    def errors(self):
        return 0


GENERATORS = {"python": PythonGenerator, "cython": _cython_generator,
              "cffi": CffiGenerator, "echo": EchoCounter}
MODULES = {"cython": CYTHON_MODULE, "cffi": CFFI_MODULE}


def node_of(id_, seq_bits=SEQ_BITS):
    return (id_ >> seq_bits) & NODE_MASK


# --- checks on the ids of one value ------------------------------------------
# They run after every value, off the clock, on up to millions of ids: one
# pass over each flow in C (the Cython module's tally) where it is built.

def _nodes(ids):
    return [(id_ >> SEQ_BITS) & NODE_MASK for id_ in ids]


def _increasing(ids):
    """Whether every id is larger than the one before it (then no node's
    ids are out of order)."""
    return not any(map(operator.le, itertools.islice(ids, 1, None), ids))


def tally_python(ids):
    """({node: ids of that node}, ids that came after a larger or equal id
    of the same node) of one flow's ids in arrival order, the only order
    a node promises: the Cython module's ``tally`` in Python."""
    nodes = _nodes(ids)
    counts = dict(collections.Counter(nodes))
    if _increasing(ids):
        return counts, 0
    disorder, last = 0, {}
    for id_, node in zip(ids, nodes):
        if node in last and id_ <= last[node]:
            disorder += 1
        last[node] = id_
    return counts, disorder


_TALLY = []


def tally(ids):
    """tally_python(ids), in C where the Cython module is built; not on
    PyPy, whose JIT runs the Python faster than a C extension reads a
    list there."""
    if not _TALLY:
        module = None
        if platform.python_implementation() != "PyPy":
            try:
                module = import_extension(CYTHON_MODULE)
            except Unavailable:
                pass
        _TALLY.append(getattr(module, "tally", tally_python))
    return _TALLY[0](ids)


def duplicates(id_lists, disorder=None):
    """Ids handed out more than once.  ``disorder``: the lists' tallied
    disorder, when known; 0 in a lone list means no id twice (a repeated
    id is out of order), with nothing to sort.  Otherwise the lists are
    increasing runs (a flow's ids follow the clock), which sorting merges
    quickly."""
    if len(id_lists) < 2 and disorder == 0:
        return 0
    every = sorted(itertools.chain.from_iterable(id_lists))
    return sum(map(operator.eq, itertools.islice(every, 1, None), every))


def nonmonotonic(id_lists):
    """Ids that came after a larger or equal id of the same node in one
    list."""
    return sum(disorder for _, disorder in map(tally, id_lists))


def served(id_lists, nodes, tallied=None):
    """Ids per node, for ``nodes`` and any other node that answered, in
    node order; ``tallied``: the lists' tallies, when made already."""
    counts = collections.Counter()
    for per_node, _ in tallied or map(tally, id_lists):
        counts.update(per_node)
    return [counts[node] for node in sorted(set(nodes) | set(counts))]


class DuplicateIds(RuntimeError):
    """A generator (or server) handed out an id twice: the benchmark
    fails."""


def record_value(wall, id_lists, errors, nodes, requests):
    """Record one value's checks and counts; DuplicateIds when an id came
    twice (a broken server is not a throughput)."""
    tallied = [tally(ids) for ids in id_lists]
    disorder = sum(count for _, count in tallied)
    counts = served(id_lists, nodes, tallied)
    answered = sum(counts)
    twice = duplicates(id_lists, disorder)
    record(ids_per_s=answered / wall if wall > 0 else 0.0,
           requests=requests, errors=errors, duplicates=twice,
           nonmonotonic=disorder,
           served=",".join(str(c) for c in counts),
           fairness_pct=(100.0 * min(counts) * len(counts) / answered
                         if answered else 0.0))
    if twice:
        raise DuplicateIds("%d of %d ids handed out twice" % (twice,
                                                              answered))
