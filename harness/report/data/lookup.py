"""Records found by their dimensions (a dimension whose value is None is
one the record does not have, e.g. an axis only some cases declare).

A benchmark of the threads driver and its twin of the processes driver
name their count axes differently (``threads=2``, ``processes=2``); when
no record has the exact dimensions asked for, a record of another driver
at the same count, equal in every other dimension, is its twin.
"""
from __future__ import annotations

from gilbench.model.resultformat import INTERPRETER
from gilbench.report.data.records import COUNT_AXES
from gilbench.report.numbers.cells import NOT_RUN

COUNT = "@count"  # the key's place for a count, whatever its axis


def key(dims):
    return tuple(sorted((k, v) for k, v in dims.items() if v is not None))


def identity(record):
    """What pairs a benchmark across files: its dimensions but the
    interpreter."""
    return key({k: v for k, v in record.dims.items() if k != INTERPRETER})


def count_key(dims, count_axis):
    """The key of ``dims`` with its count axis folded into COUNT."""
    rest = {k: v for k, v in dims.items() if k != count_axis}
    return key(rest) + ((COUNT, dims.get(count_axis)),)


class Lookup:
    def __init__(self, records):
        self.records = list(records)
        self._by_key = {}
        self._by_count = {}
        for record in self.records:
            self._keep(self._by_key, key(record.dims), record)
            if record.count_axis in record.dims:
                self._keep(self._by_count,
                           count_key(record.dims, record.count_axis), record)

    @staticmethod
    def _keep(index, found_key, record):
        known = index.get(found_key)
        # A file never lists one benchmark twice, but if two results
        # compete, a measured one beats a reason.
        if known is None or (record.measured and not known.measured):
            index[found_key] = record

    def find(self, dims):
        """The record with these dimensions, or its twin of another
        driver at the same count; None when neither was registered."""
        record = self._by_key.get(key(dims))
        if record is not None:
            return record
        for axis in COUNT_AXES:
            if axis not in dims:
                continue
            twin = self._by_count.get(count_key(dims, axis))
            if twin is not None and twin.count_axis != axis:
                return twin
        return None

    def get(self, dims):
        """(measured Record, None) or (None, why there is no value)."""
        record = self.find(dims)
        if record is None:
            return None, NOT_RUN
        if not record.measured:
            return None, record.reason
        return record, None

    def values(self, dims, along):
        """The values of ``along`` among records matching ``dims``."""
        wanted = {k: v for k, v in dims.items() if v is not None}
        found = []
        for record in self.records:
            if along in record.dims and all(
                    record.dims.get(k) == v for k, v in wanted.items()):
                if record.dims[along] not in found:
                    found.append(record.dims[along])
        return found


class Recording:
    """A Lookup that notes, in the ``reads`` list it shares with others,
    every measured record it hands out: the benchmarks a cell was
    computed from (gilbench refine measures more of them)."""

    def __init__(self, lookup, reads):
        self.lookup = lookup
        self.reads = reads

    @property
    def records(self):
        return self.lookup.records

    def _noted(self, record):
        if record is not None and record.measured and all(
                record is not seen for seen in self.reads):
            self.reads.append(record)
        return record

    def find(self, dims):
        return self._noted(self.lookup.find(dims))

    def get(self, dims):
        record, reason = self.lookup.get(dims)
        self._noted(record)
        return record, reason

    def values(self, dims, along):
        return self.lookup.values(dims, along)


class Ceiling:
    """This machine's ceiling: the records of the family that declares
    reference points (gilbench.model.tables.reference), found at a count
    of a count axis for one interpreter."""

    def __init__(self, lookup, family, points):
        self.lookup = lookup
        self.family = family
        self.points = points  # {count axis: name parts}

    def get(self, axis, count, interpreter):
        """(measured Record, None) or (None, why there is none)."""
        where = self.points.get(axis)
        if where is None:
            return None, NOT_RUN
        return self.lookup.get({"family": self.family, **where,
                                axis: count, INTERPRETER: interpreter})

    def memory(self, axis, count, interpreter):
        """As ``get``, for the memory ceiling's points."""
        where = self.points.get("memory", {}).get(axis)
        if where is None:
            return None, NOT_RUN
        return self.lookup.get({"family": self.family, **where,
                                axis: count, INTERPRETER: interpreter})

    def watched(self, reads):
        """The same ceiling, noting what it hands out in ``reads``."""
        return Ceiling(Recording(self.lookup, reads), self.family,
                       self.points)
