"""The public API for case modules: import everything from here.

::

    from harness.api import (Axis, CaseSpec, Unavailable, record, table,
                             ratio, speedup, throughput, value, crossover,
                             worker_index)

See README.rst, "Adding a case", for one example per driver.
"""
from harness.axes import Axis, counts, processes, threads
from harness.drivers import CUSTOM, PROCESSES, THREADS
from harness.lifelines import die_with_parent
from harness.metrics import TreeCpuClock
from harness.pinning import current as pinning
from harness.record import record
from harness.registry import CaseSpec, Unavailable
from harness.workerindex import worker_index
from harness.tables import (crossover, ratio, recorded, speedup, table,
                            throughput, value)

__all__ = [
    "Axis", "CaseSpec", "Unavailable", "record", "pinning", "TreeCpuClock",
    "worker_index", "die_with_parent",
    "THREADS", "PROCESSES", "CUSTOM", "counts", "threads", "processes",
    "table", "value", "ratio", "speedup", "throughput", "crossover",
    "recorded",
]
