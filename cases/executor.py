"""Executor family: which concurrent.futures executor to pick, and what its
start-up, transfer and shut-down cost (the PEP 554 executor write-up).
The mechanics are in ``_executor_batch`` (batches, phases) and
``_executor_tasks`` (the workloads a pool runs); the methods, workloads,
phases and findings are described in docs/families/executor.rst.
"""
from gilbench.api import (
    CUSTOM,
    HIGHEST,
    Axis,
    CaseSpec,
    best,
    counts,
    efficiency,
    finding,
    ratio,
    recorded,
    speedup,
    table,
    value,
)

from ._executor_batch import (
    DEFAULT_METHODS,
    EXTRA_METHODS,
    PHASES,
    WORKLOADS,
    check,
    concurrency,
    exclude,
    prepare,
)

FAMILY = "executor"
ORDER = 40

CASES = [
    CaseSpec(
        FAMILY, "batch", "phases", "python", prepare,
        "a batch of `tasks` tasks on an executor (or in the caller), "
        "results checked", driver=CUSTOM,
        axes=[Axis("workload", WORKLOADS, quick=["sleep", "nbody"]),
              Axis("payload", ["none", "large"], quick=["none"]),
              Axis("method", DEFAULT_METHODS, extra=EXTRA_METHODS,
                   quick=["serial", "thread", "process-fork", "interp",
                          "interp-stdlib"]),
              counts("workers", (1, 4), (1, 2), "workers", machine=True),
              Axis("phase", PHASES, quick=["warm"]),
              counts("tasks", (4,), (2,), "tasks"),
              Axis("task_ms", [20], quick=[5], unit="ms", open=True,
                   minimum=0, maximum=10000)],
        value_means="wall seconds per batch of `tasks` tasks (warm); per "
        "executor creation and first batch (cold); per shutdown(wait=True) "
        "after a batch (teardown)",
        exclude=exclude, check=check, ops_per_loop="tasks",
        concurrency=concurrency),
]

_RESULTS = ("Every result the executor returned was checked; `tasks` tasks "
            "per batch.")
TABLES = [
    # Interpreters as columns (like every other table of the family), so
    # each phase is one table for all of them, not one per interpreter.
    table("Executor phases", rows="method",
          per=["phase", "workload", "payload", "workers"],
          cell=value(),
          note="Warm: a batch on a live executor; Cold: create it and run "
          "the first batch; Teardown: shutdown(wait=True). " + _RESULTS),
    table("Warm speedup over serial", rows="method",
          per=["workload", "payload", "workers"], where={"phase": "warm"},
          cell=speedup(over="method", baseline="serial"),
          note="The same batch run in the caller / on the executor."),
    table("CPU utilisation (warm)", rows="method",
          per=["workload", "payload", "workers"], where={"phase": "warm"},
          cell=recorded("cpu_percent", "%"),
          note="CPU time of the process tree (executor processes "
          "included) over the timed batches; 100% = one busy core."),
    table("Peak memory of the process tree (warm)", rows="method",
          per=["workload", "payload", "workers"], where={"phase": "warm"},
          cell=recorded("peak_pss_bytes", "B"),
          note="PSS summed over the benchmark process and its children "
          "with the executor live after a batch (USS would miss the pages "
          "a forked pool shares with its parent; the runs record the USS "
          "sum too, as peak_uss_bytes)."),
    table("Peak USS of the process tree (warm)", rows="method",
          per=["workload", "payload", "workers"], where={"phase": "warm"},
          cell=recorded("peak_uss_bytes", "B"),
          note="USS summed over the process tree: pages shared between "
          "the parent and forked workers count in none of them."),
    table("Warm speedup over serial, nbody", rows="method", per=["workers"],
          where={"phase": "warm", "workload": "nbody", "payload": "none"},
          cell=speedup(over="method", baseline="serial"),
          note="Pure Python holding the GIL: only processes, own-GIL "
          "subinterpreters and free-threaded threads can scale."),
    table("Warm speedup over serial, native kernel", rows="method",
          per=["workers"],
          where={"phase": "warm", "workload": "native", "payload": "none"},
          cell=speedup(over="method", baseline="serial"),
          note="C inside Cython's `with nogil`: threads scale too."),
]


def _point(workload, phase):
    return {"workload": workload, "phase": phase, "payload": "none",
            "workers": 4}


_FASTEST = best(over="method")
# Which method is fastest, and which starts or stops slowest, for a pool of
# 4 is a question on any machine (oversubscribed=True); so is the seed's
# nbody speedup of a subinterpreter pool of 4 (^ where fewer CPUs bound it).
FINDINGS = [
    finding("Fastest method for a batch of %s tasks, 4 workers, warm?"
            % workload, _FASTEST, at=_point(workload, "warm"),
            evidence="Executor phases", oversubscribed=True)
    for workload in WORKLOADS
] + [
    finding("Slowest cold start (create the executor, first batch of "
            "trivial tasks), 4 workers?", best(over="method", pick=HIGHEST),
            at=_point("trivial", "cold"), evidence="Executor phases",
            oversubscribed=True),
    finding("Slowest teardown (shutdown after a batch of trivial tasks), "
            "4 workers?", best(over="method", pick=HIGHEST),
            at=_point("trivial", "teardown"), evidence="Executor phases",
            oversubscribed=True),
    finding("Subinterpreter pool speedup over serial for nbody, 4 workers, "
            "warm?", speedup(over="method", baseline="serial"),
            at=dict(_point("nbody", "warm"), method="interp"),
            evidence="Warm speedup over serial, nbody", oversubscribed=True),
    finding("Stdlib InterpreterPoolExecutor speedup over serial for nbody, "
            "4 workers, warm?", speedup(over="method", baseline="serial"),
            at=dict(_point("nbody", "warm"), method="interp-stdlib"),
            evidence="Warm speedup over serial, nbody", oversubscribed=True),
    # The seed found a subinterpreter pool's start comparable with spawn
    # processes'.
    finding("Stdlib InterpreterPoolExecutor cold start against a spawn "
            "process pool's (create it, first batch of trivial tasks; "
            "its time / spawn's), 4 workers?",
            ratio(over="method", numerator="interp-stdlib",
                  denominator="process-spawn"),
            at=_point("trivial", "cold"), evidence="Executor phases",
            oversubscribed=True),
    finding("A fork process pool's efficiency at 4 workers, nbody, warm "
            "(its 1-worker time / its 4-worker time / 4)?",
            efficiency(over="workers", scaled=False),
            at=dict(_point("nbody", "warm"), method="process-fork"),
            evidence="Warm speedup over serial, nbody"),
]
