"""Turns result files into tables: ratio pivots, raw values, CPU use.

A table here is plain data (title, note, header, rows of cell strings);
templates decide how it is drawn.  Cell wording lives in ``cells``.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from harness.report import cells
from harness.report.loader import DIMENSIONS

NOT_RUN = "n/a: not run"


@dataclass
class Table:
    title: str
    note: str
    header: list
    rows: list  # lists of strings, same length as header

    def with_cells(self, convert):
        """A copy with every header and body cell passed through convert."""
        return Table(self.title, self.note,
                     [convert(c) for c in self.header],
                     [[convert(c) for c in row] for row in self.rows])

    @property
    def widths(self):
        return [max(len(row[i]) for row in [self.header] + self.rows)
                for i in range(len(self.header))]


def parse_name(name):
    """Dimensions and thread count from ``family.case.variant.backend/tN``."""
    base, _, suffix = name.partition("/t")
    parts = base.split(".")
    if len(parts) != len(DIMENSIONS) or not suffix.isdigit():
        return None, None
    return dict(zip(DIMENSIONS, parts)), int(suffix)


def _key(dims, threads):
    return tuple(dims[d] for d in DIMENSIONS) + (threads,)


class Index:
    """One result file's measurements and missing reasons by dimensions."""

    def __init__(self, result):
        self.result = result
        self.measured = {_key(m.dims, m.threads): m
                         for m in result.measurements}
        self.missing = {}
        for name, reason in result.missing.items():
            dims, threads = parse_name(name)
            if dims is not None:
                self.missing[_key(dims, threads)] = reason

    def lookup(self, dims, threads):
        """(Measurement or None, reason when None)."""
        key = _key(dims, threads)
        if key in self.measured:
            return self.measured[key], None
        return None, self.missing.get(key, NOT_RUN)

    def keys(self):
        return list(self.measured) + list(self.missing)


def _with(dims, **changes):
    new = dict(dims)
    new.update(changes)
    return new


def _denominator(index, declaration, dims, threads):
    """The twin to divide by, trying the declared fallback dimensions when
    the exact twin was never registered (e.g. cffi has no GIL-held row)."""
    twin = _with(dims, **{declaration["over"]: declaration["denominator"]})
    found, reason = index.lookup(twin, threads)
    fallback = declaration.get("fallback")
    if found is None and fallback:
        alternative = index.lookup(_with(twin, **fallback), threads)
        if alternative[0] is not None or reason == NOT_RUN:
            found, reason = alternative
    return found, reason


def _groups(indexes, family, declaration):
    """Numerator dimension sets (without threads) and their thread counts."""
    groups = {}
    for index in indexes:
        for key in index.keys():
            dims = dict(zip(DIMENSIONS, key[:len(DIMENSIONS)]))
            if (dims["family"] == family
                    and dims[declaration["over"]] == declaration["numerator"]):
                groups.setdefault(key[:len(DIMENSIONS)], set()).add(key[-1])
    # Insertion order: the registry's order, as the results list them.
    return [(dict(zip(DIMENSIONS, g)), sorted(t))
            for g, t in groups.items()]


def ratio_tables(results, family, declaration):
    """One table per numerator group: rows = threads, columns = files."""
    indexes = [Index(r) for r in results]
    tables = []
    over = declaration["over"]
    for dims, thread_counts in _groups(indexes, family, declaration):
        rows = []
        for threads in thread_counts:
            row = [str(threads)]
            for index in indexes:
                num, num_reason = index.lookup(dims, threads)
                den, den_reason = _denominator(index, declaration, dims,
                                               threads)
                row.append(cells.ratio_cell(num, den, num_reason or
                                            den_reason))
            rows.append(row)
        shown = ", ".join("%s=%s" % (d, dims[d]) for d in DIMENSIONS
                          if d not in ("family", over))
        tables.append(Table(
            title="%s: %s" % (declaration["title"], shown),
            note=_ratio_note(declaration, dims),
            header=["Threads"] + [r.interpreter for r in results],
            rows=rows))
    return tables


def _ratio_note(declaration, dims):
    over = declaration["over"]
    note = "%s=%s divided by %s=%s" % (over, declaration["numerator"],
                                       over, declaration["denominator"])
    fallback = declaration.get("fallback") or {}
    if any(dims.get(k) != v for k, v in fallback.items()):
        alt = ", ".join("%s=%s" % kv for kv in sorted(fallback.items()))
        note += " (or, where there is no such twin, with %s)" % alt
        if declaration.get("note"):
            note += ": " + declaration["note"]
    return note + "."


def _all_names(results):
    names = []
    for result in results:
        for name in [m.name for m in result.measurements] + sorted(
                result.missing):
            if name not in names:
                names.append(name)
    return names


def raw_table(results):
    """Every benchmark's mean +- std dev per interpreter."""
    return _per_benchmark_table(
        results, "Raw results: mean +- std dev",
        "pyperf values; see each file's value_means metadata for what one "
        "value is.", cells.raw_cell)


def cpu_table(results):
    """CPU utilisation over the timed region (100% = one busy core)."""
    return _per_benchmark_table(
        results, "CPU utilisation over the timed region",
        "process CPU time / wall time; above 100% means threads really "
        "ran in parallel.", cells.cpu_cell)


def _per_benchmark_table(results, title, note, format_cell):
    indexes = [Index(r) for r in results]
    rows = []
    for name in _all_names(results):
        dims, threads = parse_name(name)
        row = [name]
        for index in indexes:
            found, reason = (index.lookup(dims, threads) if dims
                             else (None, NOT_RUN))
            row.append(format_cell(found) if found else reason)
        rows.append(row)
    return Table(title=title, note=note,
                 header=["Benchmark"] + [r.interpreter for r in results],
                 rows=rows)


def environment_table(results):
    keys = ["python", "gil", "cpus", "pinned", "load", "pyperf"]
    return Table(
        title="Runs", note="load is the 1-minute load average during the "
        "runs; pinned is pyperf's --affinity, if given.",
        header=["Interpreter", "file"] + keys,
        rows=[[r.interpreter, os.path.basename(r.path)]
              + [str(r.facts.get(k, "?")) for k in keys] for r in results])


def all_tables(results):
    """Ratio tables of every family present, then raw, CPU and runs."""
    declarations = {}
    for result in results:
        for family, ratios in result.ratios.items():
            declarations.setdefault(family, ratios)
    tables = []
    for family in sorted(declarations):
        for declaration in declarations[family]:
            tables.extend(ratio_tables(results, family, declaration))
    return tables + [raw_table(results), cpu_table(results),
                     environment_table(results)]
