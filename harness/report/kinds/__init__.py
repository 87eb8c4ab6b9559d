"""The cell kinds of declared tables (gilbench.model.tables builds their
declarations), one module each: what a cell computes from the records,
how a table cell and a finding's answer word it, the note under its
table, and what a plot of it draws.  Adding a kind is a module here,
its entry in KINDS, and its builder in gilbench.model.tables with its
keys in gilbench.model.resultformat.CELL_KEYS (docs/architecture.rst).

Derived numbers carry an interval (gilbench.report.numbers.intervals); a
comparison whose interval holds 1 (or a best-of whose runner-up is
within reach) is flagged not significant.
"""
from __future__ import annotations

from gilbench.report.kinds.base import Kind, interval_text, problem
from gilbench.report.kinds.best import Best
from gilbench.report.kinds.crossover import ALWAYS, NEVER, Crossover, crossing
from gilbench.report.kinds.efficiency import Efficiency
from gilbench.report.kinds.ratio import Ratio
from gilbench.report.kinds.recorded import Recorded
from gilbench.report.kinds.scaling import Scaling, fit_text
from gilbench.report.kinds.speedup import Speedup
from gilbench.report.kinds.throughput import Throughput
from gilbench.report.kinds.value import Value

KINDS = {"value": Value, "ratio": Ratio, "speedup": Speedup,
         "throughput": Throughput, "crossover": Crossover,
         "recorded": Recorded, "best": Best, "efficiency": Efficiency,
         "scaling": Scaling}

__all__ = ["KINDS", "make", "problem", "Kind", "interval_text", "crossing",
           "ALWAYS", "NEVER", "fit_text"] + [k.__name__
                                              for k in KINDS.values()]


def make(declaration, axes, ceiling=None):
    """The kind object for a (checked) declaration; ``axes`` describes the
    family's axes ({name: {"unit", "log"}}); ``ceiling`` is this
    machine's lookup.Ceiling, for efficiency against it."""
    return KINDS[declaration["cell"]["kind"]](declaration, axes, ceiling)
