"""``record(key=value, ...)``: per-run metadata from inside a case.

A custom case calls it from its time function (peak memory, requests per
process, errors...); the values land in the pyperf run being measured,
beside ``cpu_utilisation``.  Keys are checked like axis names, values must
be int, float or a one-line str (pyperf's metadata rules).  Outside a
benchmark (a test calling the case directly) it only checks its input.
"""
from gilbench.errors import UsageError

_sink = [None]  # the metadata dict of the run being measured, if any

try:
    _TEXT = (str, unicode)  # noqa: F821 -- Python 2.7
except NameError:
    _TEXT = (str,)


def record(**metadata):
    """Add ``metadata`` to the current pyperf run (last value wins)."""
    for key, value in metadata.items():
        if isinstance(value, bool) or not isinstance(
                value, (int, float) + _TEXT):
            raise UsageError("record(%s=%r): values must be int, float or "
                             "str" % (key, value))
        if isinstance(value, _TEXT) and (not value.strip()
                                         or "\n" in value):
            raise UsageError("record(%s=%r): a str must be one non-empty "
                             "line" % (key, value))
    if _sink[0] is not None:
        _sink[0].update(metadata)


def set_sink(metadata):
    """The harness points record() at the run being measured."""
    _sink[0] = metadata
