"""Tables with one row per benchmark name (raw values, CPU use) and one
per result file (runs).  Names are display identities: never split."""
from __future__ import annotations

import os

from gilbench.report.data.interpreters import BUILD_FACTS
from gilbench.report.data.records import Table, label
from gilbench.report.numbers import cells
from gilbench.report.numbers.cells import NOT_RUN


def _names(results):
    names = []
    for result in results:
        for record in result.records:
            if record.name not in names:
                names.append(record.name)
    return names


def _by_name(result):
    found = {}
    for record in result.records:
        if record.name not in found or record.measured:
            found[record.name] = record
    return found


def _per_benchmark(results, title, note, format_cell):
    """A row per benchmark, a column per file; a benchmark n/a in every
    file is no row of n/a cells but a name in its reasons' line under
    the table (Table.left_out)."""
    files = [_by_name(result) for result in results]
    rows, nowhere = [], {}
    for name in _names(results):
        row = [label(name)]
        for records in files:
            record = records.get(name)
            if record is None:
                row.append(cells.missing(NOT_RUN))
            elif record.measured:
                row.append(format_cell(record))
            else:
                row.append(cells.missing(record.reason))
        reasons = cells.not_applicable(row[1:])
        if reasons:
            nowhere.setdefault(tuple(reasons), []).append(name)
        else:
            rows.append(row)
    return Table(title=title, note=note,
                 header=[label("Benchmark")]
                 + [label(r.interpreter) for r in results], rows=rows,
                 left_out=["n/a in every file (%d): %s -- %s" % (
                     len(names), ", ".join(names), "; ".join(reasons))
                     for reasons, names in nowhere.items()])


def raw_table(results):
    """Every benchmark's mean +- std dev per interpreter."""
    return _per_benchmark(
        results, "Raw results: mean +- std dev",
        "pyperf values; see each file's value_means metadata for what one "
        "value is.", cells.raw)


def cpu_table(results):
    """CPU utilisation over the timed region (100% = one busy core)."""
    return _per_benchmark(
        results, "CPU utilisation over the timed region",
        "CPU time of the process (or process tree) / wall time; above 100% "
        "means threads or processes really ran in parallel.", cells.cpu)


FACTS = ("python", "gil", "host", "cpu model", "cpus", "pinned", "load",
         "pyperf")


def environment_table(results):
    return Table(
        title="Runs", note="load is the 1-minute load average during the "
        "runs; pinned is pyperf's --affinity and gilbench's --pin-threads, "
        "if given; cpu model is pyperf's cpu_model_name x cpu_count.",
        header=[label(h) for h in ("Interpreter", "file") + FACTS],
        rows=[[label(r.interpreter), label(os.path.basename(r.path))]
              + [label(r.facts.get(k, "?")) for k in FACTS]
              for r in results])


def build_table(results):
    """Where each column's interpreter came from and how it was built."""
    return Table(
        title="How each interpreter was built",
        note="origin: where it came from (gilbench's own installs say "
        "so); compiler: pyperf's python_compiler; optimizations: PGO and "
        "LTO from its configure options or its distribution's build rules; "
        "libc: the C library it ran on. A comparison across columns whose "
        "builds differ in these says so. named: whether the interpreter is "
        "the one its tox env and file name name (a column that is not is "
        "labelled misnamed).",
        header=[label(h) for h in ("Interpreter",) + _BUILT],
        rows=[[label(r.interpreter)]
              + [label(r.facts.get(k, "?")) for k in _BUILT]
              for r in results])


_BUILT = tuple(BUILD_FACTS) + ("named",)


def all_listings(results):
    return [raw_table(results), cpu_table(results),
            environment_table(results), build_table(results)]
