"""The null check's family: two identical copies of one workload, at 1
and 2 threads.  Every answer comparing a copy with the other should read
"the same" or undecided, and "different" no more often than the
intervals' level allows (bench/null_check.py counts it).

Loaded by path: standard library and gilbench.api only.
"""
from gilbench.api import CaseSpec, finding, ratio, threads

FAMILY = "null"
ORDER = 1


def _summing(params):
    def work(loops):
        for _ in range(loops):
            sum(range(200))
    return work


CASES = [CaseSpec(FAMILY, "sum", copy, "python", _summing,
                  "sum(range(200)) in N threads, copy %s" % copy,
                  axes=[threads(values=(1, 2), quick=(1, 2))])
         for copy in ("a", "b")]

TABLES = []

FINDINGS = [
    finding("Copy b over copy a, 1 thread (identical)?",
            ratio(over="variant", numerator="b", denominator="a"),
            at={"threads": 1}),
    finding("Copy b over copy a, 2 threads (identical)?",
            ratio(over="variant", numerator="b", denominator="a"),
            at={"threads": 2}),
]
