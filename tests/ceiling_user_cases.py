"""Case module for tests/test_findings.py: a user's family that reads its
threads' efficiency against this machine's ceiling, and nothing else."""
from gilbench.api import CEILING, CaseSpec, efficiency, finding


def _sum(params):
    def work(loops):
        for _ in range(loops):
            sum(range(200))
    return work


CASES = [CaseSpec("usersum", "sum", "v", "python", _sum,
                  "sum(range(200)) in N threads")]
FINDINGS = [finding("sum(range(200)) at 2 threads: efficiency against the "
                    "ceiling?", efficiency(over="threads", against=CEILING),
                    at={"threads": 2})]
