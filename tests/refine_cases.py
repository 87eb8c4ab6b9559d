"""Case module for tests/test_refine.py: one call and the same call five
times, and the question of their ratio (about 5x: decided, unless the
test disturbs a worker process's values).

Loaded by path: standard library and gilbench.api only.
"""
from gilbench.api import Axis, CaseSpec, finding, ratio, table, threads

FAMILY = "refining"


def _summing(params):
    size = 2000 * params["times"]

    def work(loops):
        for _ in range(loops):
            sum(range(size))
    return work


CASES = [CaseSpec(FAMILY, "sum", "python", "python", _summing,
                  "sum a range, once or five times",
                  axes=[Axis("times", [1, 5]),
                        threads(values=(1,), quick=(1,))])]

TABLES = [table("Five over one", rows="case",
                cell=ratio(over="times", numerator=5, denominator=1))]

FINDINGS = [finding("Five sums over one?",
                    ratio(over="times", numerator=5, denominator=1),
                    at={"case": "sum"})]
