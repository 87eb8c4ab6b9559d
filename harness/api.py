"""The public API for case modules: import everything from here.

::

    from gilbench.api import (Axis, CaseSpec, Unavailable, record, table,
                             ratio, speedup, throughput, value, crossover,
                             worker_index, finding, best)

See docs/writing-cases.rst for a tutorial with one case per driver.
"""
from gilbench.measure.interpreterpool import (
    interpreter_pool_name,
    interpreters_unavailable,
    make_interpreter_pool,
)
from gilbench.measure.lifelines import die_with_parent
from gilbench.measure.metrics import TreeCpuClock, process_cpu_seconds
from gilbench.measure.pinning import current as pinning
from gilbench.measure.record import record, record_per_value
from gilbench.measure.team import Team, fork_context
from gilbench.measure.workerindex import worker_index
from gilbench.model.axes import Axis, counts, processes, threads
from gilbench.model.casehelpers import (
    calling,
    import_extension,
    needs,
    perf_counter,
)
from gilbench.model.drivers import CUSTOM, PROCESSES, THREADS
from gilbench.model.findings import USABLE, finding
from gilbench.model.registry import CaseSpec, Unavailable
from gilbench.model.resultformat import INTERRUPTIONS
from gilbench.model.tables import (
    CEILING,
    HIGHEST,
    IDEAL,
    LOWEST,
    best,
    crossover,
    efficiency,
    ratio,
    recorded,
    reference,
    scaling,
    speedup,
    table,
    throughput,
    value,
)

__all__ = [
    "Axis", "CaseSpec", "Unavailable", "INTERRUPTIONS", "record",
    "record_per_value",
    "pinning", "TreeCpuClock",
    "worker_index", "die_with_parent",
    "THREADS", "PROCESSES", "CUSTOM", "counts", "threads", "processes",
    "table", "value", "ratio", "speedup", "throughput", "crossover",
    "recorded", "best", "LOWEST", "HIGHEST", "finding", "USABLE",
    "efficiency",
    "scaling", "IDEAL", "CEILING", "reference", "import_extension", "needs",
    "perf_counter", "calling",
    # What the built-in families use to start processes and pools of
    # their own; a user's family may too (docs/writing-cases.rst).
    "Team", "fork_context", "process_cpu_seconds",
    "make_interpreter_pool", "interpreters_unavailable",
    "interpreter_pool_name",
]
