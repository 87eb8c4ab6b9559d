"""The report's data: records loaded from result files, and tables of
structured cells built from them.

Cells keep their numbers (value, spread) next to their wording so that a
page with plots can be drawn from the same tables; only ``render`` turns
them into escaped text.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from gilbench.model.resultformat import BUSY_SHARE, COUNT_AXES
from gilbench.report.numbers import intervals

__all__ = ["COUNT_AXES", "Record", "ResultFile", "Cell", "Table", "label"]


@dataclass(frozen=True)
class Record:
    """One benchmark of one result file, measured or missing."""
    name: str
    dims: dict  # name parts, every axis, and INTERPRETER
    unit: str = "second"
    mean: float | None = None  # None when missing
    stdev: float = 0.0
    ops_per_loop: int = 1
    concurrency: int = 1
    cpus_usable: int = 1
    cpu_utilisation: float | None = None  # mean over runs
    recorded: dict = field(default_factory=dict)  # numeric run metadata,
    # each key's mean over the measured runs (gilbench.api.record)
    recorded_runs: dict = field(default_factory=dict)  # key -> per run
    count_axis: str | None = None  # "threads", "processes" (its driver's)
    foreign_cpu: float | None = None  # most other processes took of the
    # CPUs while one of its runs was measured (None: not recorded)
    reason: str | None = None  # "n/a: ...", "failed: ...", "hung: ..."
    values: tuple = ()  # pyperf's values, for compare's significance test
    run_values: tuple = ()  # the same values, a tuple per worker process
    # How many values its case's declared rule left out as interrupted
    # (gilbench.report.data.interruptions; None: no rule declared).
    interruptions: int | None = None
    run_blocks: tuple = ()  # each worker process's block (None: unknown)
    # The benchmark each worker process measured beside it, value by value
    # (a duet, gilbench.measure.duet; None: none).
    run_partners: tuple = ()
    # Each worker process's machine probe, ns per iteration (None: none;
    # gilbench.measure.probe).
    run_probes: tuple = ()
    # What its measurement cost (gilbench.model.design): looks at its
    # values, those at which an undecided finding kept it going, and why
    # it stopped (None: not recorded).
    looks: int = 1
    decision_looks: int = 1
    stopped: str | None = None
    # Why --why took no samples ("n/a: ..."), where it was asked for.
    why_unavailable: str | None = None

    @property
    def measured(self):
        return self.reason is None

    @property
    def rsd(self):
        return self.stdev / self.mean if self.mean else 0.0

    @cached_property
    def split(self):
        """Its worker processes disagree beyond their values' scatter
        (gilbench.report.numbers.intervals.processes_split)."""
        return intervals.processes_split(self.run_values)

    @property
    def oversubscribed(self):
        return self.concurrency > self.cpus_usable

    @property
    def busy(self):
        """Measured while other processes took a real share of its
        CPUs (gilbench.measure.foreign)."""
        return (self.foreign_cpu or 0.0) > BUSY_SHARE


@dataclass
class ResultFile:
    path: str
    interpreter: str  # e.g. "CPython 3.11", "CPython 3.13t (GIL on)"
    version_key: tuple
    records: list  # Records in file order: measured, then missing
    tables: dict  # family -> list of table declarations
    axes: dict  # family -> {axis name: {"unit": ..., "log": ...}}
    findings: dict = field(default_factory=dict)  # family -> declarations
    order: dict = field(default_factory=dict)  # family -> ORDER
    # family -> its reference points, for the family declaring them
    references: dict = field(default_factory=dict)
    facts: dict = field(default_factory=dict)  # for the Runs table
    host: str = ""  # pyperf's hostname metadata ("" when absent)
    executable: str = ""  # the interpreter that measured it
    # The usable CPUs its run was planned for: a finding's N.
    planned_cpus: int | None = None


@dataclass(frozen=True)
class Cell:
    """One table cell.  ``text`` is the wording without flags; ``value``
    is the number a plot would draw (None for a reason, a label, or a
    crossover that does not cross); ``spread`` one standard deviation of
    ``value`` where that is meaningful."""
    text: str
    value: float | None = None
    spread: float | None = None
    flags: str = ""
    missing: bool = False  # text is a reason (n/a, failed, hung)
    fallback: bool = False  # a ratio divided by the declared fallback twin
    interval: tuple | None = None  # (low, high) of ``value``'s 95% CI
    significant: bool | None = None  # None: no comparison, or untold
    # Where its interval lies within the margin of its reference both
    # ways: how close (0.04 for "the same within 4%"); else None.
    same: float | None = None
    link: str = ""  # HTML: the anchor of the evidence (findings)
    winner: object = None  # a best-of's winning value, else None
    # A remark after the wording ("(up to 6 processes)"): part of what
    # the text formats print, a hover mark on the HTML page.
    note: str = ""
    # The answer alone -- its number, or a best-of's winner -- without
    # its interval or note: what a compact findings matrix shows ("": the
    # text is already that short).
    brief: str = ""
    # The measured Records it was computed from (findings; refine reads
    # them); not part of what the cell says.
    read: tuple = field(default=(), compare=False, repr=False)
    # The two of them its number divides where it reads more (a best-of's
    # winner and runner-up): the partners the runs measure side by side.
    duel: tuple = field(default=(), compare=False, repr=False)
    # What measuring them cost (findings: questions.cost), one hover away.
    cost: dict | None = field(default=None, compare=False, repr=False)
    # Why it does not scale (findings: a numbers.causes.Cause), or None.
    cause: object = field(default=None, compare=False, repr=False)

    @property
    def short(self):
        """The wording a compact matrix shows."""
        return self.brief or self.text

    @property
    def display(self):
        """The text, its note and its flags, as the text formats print
        it."""
        return " ".join(part for part in (self.text, self.note, self.flags)
                        if part)


def label(text):
    """A header or row-label cell."""
    return Cell(str(text))


@dataclass
class Table:
    """A titled grid of Cells; the first column labels the rows.

    For declared tables the structure is kept too (which dimensions the
    rows and columns are, their typed values, the ``per`` values and the
    declaration), so a plot needs no parsing of the text.
    """
    title: str
    note: str
    header: list  # Cells
    rows: list  # lists of Cells, as long as the header
    family: str | None = None
    declaration: dict | None = None
    per: dict = field(default_factory=dict)
    # The per values every table of the declaration shares: left out of
    # the title, which names only what tells the tables apart.
    common: dict = field(default_factory=dict)
    row_dim: str | None = None
    column_dim: str | None = None
    row_values: list = field(default_factory=list)
    column_values: list = field(default_factory=list)
    axes: dict = field(default_factory=dict)  # name -> {"unit", "log"}
    # The reference points its family declares (the ceiling's), or {}.
    reference: dict = field(default_factory=dict)
    shaded: bool = False  # HTML: shade numeric cells by distance from 1
    # Lines under the table for rows it leaves out: the benchmarks n/a in
    # every file, by their reasons (gilbench.report.tables.listings).
    left_out: list = field(default_factory=list)
    # {interpreter: the usable CPUs its run of this family had}: a
    # figure's scalability fits count only the counts within them, as the
    # fit's own cells do (gilbench.report.numbers.scalability.not_fitted).
    cpus: dict = field(default_factory=dict)
