"""A user's own family, as a new user would write one: hashlib in N
threads and in N processes, with its own TABLES and FINDINGS (tests/
test_findings.py runs it end to end).  The threads and processes twins
name their count axes differently; their ratio pairs them by count.

Loaded by path: standard library and gilbench.api only.
"""
import hashlib

from gilbench.api import (PROCESSES, Axis, CaseSpec, best, finding, ratio,
                          processes, table, threads, value)

FAMILY = "hashing"
ORDER = 1  # before every built-in family
DATA = b"x" * 4096


def _hashing(params):
    algorithm = params.get("algorithm", "sha256")

    def work(loops):
        for _ in range(loops):
            hashlib.new(algorithm, DATA).digest()
    return work


CASES = [
    CaseSpec(FAMILY, "digest", "threads", "python", _hashing,
             "hash 4 KiB in N threads",
             axes=[Axis("algorithm", ["sha256", "md5"]),
                   threads(values=(1, 2), quick=(1, 2))]),
    CaseSpec(FAMILY, "digest", "processes", "python", _hashing,
             "hash 4 KiB in N processes", driver=PROCESSES,
             axes=[Axis("algorithm", ["sha256", "md5"]),
                   processes(values=(1, 2), quick=(1, 2))]),
]

TABLES = [
    table("Digest time", rows="threads", per=["algorithm"],
          where={"variant": "threads"}, cell=value()),
    table("Threads over processes", rows="threads", per=["algorithm"],
          where={"variant": "threads"},
          cell=ratio(over="variant", numerator="threads",
                     denominator="processes")),
    table("Fastest algorithm", rows="threads", where={"variant": "threads"},
          cell=best(over="algorithm")),
]

FINDINGS = [
    finding("Threads over processes, sha256, 2 of each?",
            ratio(over="variant", numerator="threads",
                  denominator="processes"),
            at={"algorithm": "sha256", "threads": 2}),
    finding("Fastest algorithm, 1 thread?", best(over="algorithm"),
            at={"variant": "threads", "threads": 1}),
]
