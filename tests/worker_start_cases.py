"""Case module for tests/test_forked_workers.py: a case that records, in
each run's metadata, which process measured it and that process's hash
of a fixed string (its hash seed, in effect).

Loaded by path in the runner, the benchmark program and its workers, so
it imports only the standard library and gilbench.api.
"""
import os

from gilbench.api import CaseSpec, record

FAMILY = "workerstart"


def _identify(params):
    record(measured_by=os.getpid(),
           seeded_hash=hash("gilbench worker start"))

    def work(loops):
        total = 0
        for i in range(loops):
            total += i
    return work


CASES = [CaseSpec(FAMILY, "identify", "v", "python", _identify,
                  "records its process and its hash seed")]
