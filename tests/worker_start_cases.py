"""Case module for tests/test_forked_workers.py: a case that records, in
each run's metadata, which process measured it and that process's hash
of a fixed string (its hash seed, in effect); and one whose before_fork
leaves state for the workers to inherit.

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


_before_fork_pid = 0  # set by before_fork, in the process it ran in


def _remember_pid(params):
    global _before_fork_pid
    _before_fork_pid = os.getpid()


def _inherited(params):
    record(measured_by=os.getpid(), before_fork_pid=_before_fork_pid)
    return _identify(params)


CASES = [CaseSpec(FAMILY, "identify", "v", "python", _identify,
                  "records its process and its hash seed"),
         CaseSpec(FAMILY, "inherit", "v", "python", _inherited,
                  "records which process ran its before_fork",
                  before_fork=_remember_pid)]
