"""``record(key=value, ...)``: per-run metadata from inside a case.

A custom case calls it from its time function (peak memory, requests per
process, errors...); the values land in the pyperf run being measured,
beside ``cpu_utilisation``.  Keys are checked like axis names, values must
be int, float or a one-line str (pyperf's metadata rules).  Keys that
pyperf or gilbench write into every run are refused: pyperf would
overwrite ``loops`` or ``duration`` after the values, and a case's
``cpu_utilisation`` would stand for the harness's.  Outside a benchmark
(a test calling the case directly) it only checks its input.
"""
from gilbench.errors import UsageError
from gilbench.model import resultformat

_sink = [None]  # the metadata dict of the run being measured, if any

try:
    _TEXT = (str, unicode)  # noqa: F821 -- Python 2.7
    _NUMBERS = (int, long, float)  # noqa: F821 -- pyperf 1.x takes long
except NameError:
    _TEXT = (str,)
    _NUMBERS = (int, float)

# What pyperf's worker writes into each run, and gilbench's per-run facts
# (gilbench.model.resultformat).
RESERVED = frozenset([
    "loops", "duration", "name", "unit", "inner_loops", "warmups", "values",
    "calibrate_loops", "recalibrate_loops", "calibrate_warmups",
    "recalibrate_warmups", "date", "hostname",
    "cpu_utilisation", "cpus_usable", "cpu_affinity_effective", "python_gil",
    "py_gil_disabled_build", "worker_start", "worker_heap_objects",
    "worker_reimported", "foreign_cpu",
    resultformat.RUN_KEY, resultformat.PROBE_KEY, resultformat.EXTENDED_KEY,
    resultformat.PARTNER_KEY]
    + list(resultformat.BUILD_KEYS) + list(resultformat.WHY_KEYS))


def record(**metadata):
    """Add ``metadata`` to the current pyperf run (last value wins)."""
    for key in metadata:
        if key in RESERVED:
            raise UsageError("record(%s=...): %r is metadata pyperf or "
                             "gilbench writes into every run; choose "
                             "another name" % (key, key))
    record_facts(**metadata)


def record_facts(**metadata):
    """:func:`record` for the harness's own per-run facts."""
    for key, value in metadata.items():
        if isinstance(value, bool) or not isinstance(
                value, _NUMBERS + _TEXT):
            raise UsageError("record(%s=%r): values must be int, float or "
                             "str" % (key, value))
        if isinstance(value, _TEXT) and (not value.strip()
                                         or "\n" in value):
            raise UsageError("record(%s=%r): a str must be one non-empty "
                             "line" % (key, value))
    if _sink[0] is not None:
        _sink[0].update(metadata)


def set_sink(metadata):
    """The harness points record() at the run being measured (and starts
    its record_per_value numbers afresh)."""
    _sink[0] = metadata
    _per_value.clear()


# record_per_value's numbers of the run being measured, by key, one per
# value in the order measured.
_per_value = {}


def swap(state):
    """Point record() at ``state`` -- (metadata, record_per_value numbers)
    of another run measured in this process: a duet's partner
    (gilbench.measure.duet) -- and return the state it replaces."""
    replaced = (_sink[0], dict(_per_value))
    _sink[0] = state[0]
    _per_value.clear()
    _per_value.update(state[1])
    return replaced


def record_per_value(**numbers):
    """Numbers of the value just measured (Jain's index of its window,
    say): the run keeps each key's mean over its *measured* values -- not
    its warmups, nor the loop calibration's values, whose windows are
    sized by loops of 1, 2, 4... -- as it keeps ``cpu_utilisation``.  A
    case calls it from the time function (or ``after_value``), once per
    value.  Keys are checked as :func:`record`'s; values must be int or
    float."""
    for key, value in numbers.items():
        if isinstance(value, bool) or not isinstance(value, _NUMBERS):
            raise UsageError("record_per_value(%s=%r): values must be int "
                             "or float" % (key, value))
        record(**{key: value})  # checks the key; settle() writes the mean
        _per_value.setdefault(key, []).append(float(value))


def settle(count):
    """Write each per-value key's mean over the last ``count`` values (a
    run's measured values) into the run being measured."""
    for key, found in _per_value.items():
        recent = found[-count:]
        if recent:
            record_facts(**{key: sum(recent) / len(recent)})
