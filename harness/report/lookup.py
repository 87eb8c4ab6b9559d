"""Records found by their dimensions (a dimension whose value is None is
one the record does not have, e.g. an axis only some cases declare)."""
from __future__ import annotations

from gilbench.report.cells import NOT_RUN


def key(dims):
    return tuple(sorted((k, v) for k, v in dims.items() if v is not None))


class Lookup:
    def __init__(self, records):
        self.records = list(records)
        self._by_key = {}
        for record in self.records:
            known = self._by_key.get(key(record.dims))
            # A file never lists one benchmark twice, but if two results
            # compete, a measured one beats a reason.
            if known is None or (record.measured and not known.measured):
                self._by_key[key(record.dims)] = record

    def get(self, dims):
        """(measured Record, None) or (None, why there is no value)."""
        record = self._by_key.get(key(dims))
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
