"""Free-threaded builds against their twins: the cross-build questions
gilbench.model.builds declares, answered from two result files each.

A pair's cell is the geometric mean, over the matched benchmarks of a
family, of the ratio of their means; the overall answer the geometric
mean of the families' (each family weighs the same, however many
benchmarks it has).  Its interval comes from the same bootstrap draws as
every cell's (gilbench.report.numbers.intervals), without the blocks'
shifts, which are within a run: draw by draw, the geometric means of the
drawn ratios, each file's family moved by a drift between runs (DRIFT).
"""
from __future__ import annotations

from dataclasses import replace

import numpy

from gilbench.model import builds
from gilbench.model.resultformat import INTERPRETER
from gilbench.report.data import interpreters, lookup
from gilbench.report.data.records import Cell, Table, label
from gilbench.report.kinds.base import interval_text
from gilbench.report.numbers import cells, intervals
from gilbench.report.numbers.cells import spaced

FAMILY = "free-threaded builds"  # the findings' group and the section
ALL = "all families (geometric mean)"
NOT_FREE = "n/a: not a free-threaded build"
# Two runs of one interpreter move a family's benchmarks together (they
# are measured in one stretch of time): each file's family draws a shift
# of this standard deviation in log terms, per point, on top of its
# benchmarks' own draws (without their blocks' shifts, which are within
# a run).  Fitted by bench/fit_build_drift.py on the A/A runs kept in
# bench/aa/ (its --check says whether these are its fit);
# docs/free-threaded.rst gives the fit and its coverage.
DRIFT = {builds.ONE: 0.075, builds.USABLE: 0.05}
NOTE = ("A family's cell: the geometric mean over the benchmarks both files "
        "measured with a threads axis (matched by their dimensions), with "
        "their count in parentheses; the last row: the geometric mean of "
        "the families'. [low-high]: the 95%% interval of the same "
        "bootstrap as every cell's (without the blocks' shifts, which are "
        "within a run), each file's family also drawing a shift common to "
        "its benchmarks, fitted on A/A runs (%s)."
        % ", ".join("%g%% at %s" % (DRIFT[p] * 100, builds.POINTS[p][0])
                    for p in sorted(DRIFT)))


def is_free(result):
    """A free-threaded build run without its GIL."""
    return result.version_key[2] and not result.version_key[3]


def twin(result, results, relation):
    """The result file that is ``result``'s twin of kind ``relation``
    (gilbench.model.builds.TWINS), or None."""
    version, _, _, _ = result.version_key
    for other in results:
        if other is result or other.host != result.host:
            continue
        _, other_pypy, other_free, other_gil_on = other.version_key
        if other.version_key[0] != version or other_pypy:
            continue
        if relation == builds.GIL_ON and other_free and other_gil_on and (
                other.facts.get("python") == result.facts.get("python")):
            return other
        if relation == builds.DEFAULT and not other_free:
            return other
    return None


def threads_at(free, twin_file, point):
    """The thread count a point reads: 1, or the usable CPUs of the
    two files (the fewer)."""
    if point == builds.ONE:
        return 1
    usable = [r.cpus_usable for r in free.records + twin_file.records
              if r.measured]
    return min(usable) if usable else None


def matched(free, twin_file, family, count):
    """[(free record, twin record)] of ``family`` at threads=``count``:
    measured times both files have, with equal dimensions."""
    theirs = {lookup.identity(r): r for r in twin_file.records
              if r.measured and r.dims["family"] == family}
    pairs = []
    for record in free.records:
        if (record.measured and record.unit == "second"
                and record.dims["family"] == family
                and record.dims.get("threads") == count):
            other = theirs.get(lookup.identity(record))
            if other is not None and other.unit == "second":
                pairs.append((record, other))
    return pairs


def within_run(pairs, point):
    """(geometric mean of the ratios of ``pairs`` (matched's), its logged
    draws as each run's own spread gives them -- without a drift between
    the runs -- or None)."""
    if point == builds.ONE:
        ordered = pairs
    else:
        ordered = [(twin_, free) for free, twin_ in pairs]
    logs = [numpy.log(top.mean / bottom.mean) for top, bottom in ordered]
    value = float(numpy.exp(numpy.mean(logs)))
    drawn = [(intervals.SHARED.means(top, shifts=False),
              intervals.SHARED.means(bottom, shifts=False))
             for top, bottom in ordered]
    if any(top is None or bottom is None for top, bottom in drawn):
        return value, None
    return value, numpy.mean([numpy.log(top / bottom)
                              for top, bottom in drawn], axis=0)


def _ratios(pairs, point, family):
    """(geometric mean of the ratios, its logged draws or None): within
    each run, plus each file's family's drift."""
    value, logged = within_run(pairs, point)
    if logged is None:
        return value, None
    free, twin_ = pairs[0]
    for record in (free, twin_):
        logged = logged + intervals.shift(
            (record.dims[INTERPRETER], family, point), DRIFT[point])
    return value, logged


def _cell(value, logged, records):
    """A geometric-mean Cell: ``logged`` the draws' mean logs or None."""
    interval = None if logged is None else intervals.bounds(
        numpy.exp(logged))
    significant, same = intervals.decided(interval)
    flags = cells.flags(significant=significant, same=same)
    brief = cells.compact_multiple(value)
    text = spaced(cells.multiple(value), interval_text(interval))
    if same is not None:
        text = "%s, %s" % (text, cells.within(same))
    return Cell(text, value, flags=flags, interval=interval,
                significant=significant, same=same, read=tuple(records),
                brief=brief)


def family_cells(free, twin_file, point, families):
    """({family: (Cell, benchmarks read)} for the families with matched
    benchmarks, (overall Cell, families read)); the overall Cell says
    why there is none when no family has any."""
    count = threads_at(free, twin_file, point)
    found, logs, records, values = {}, [], [], []
    for family in families:
        pairs = matched(free, twin_file, family, count)
        if not pairs:
            continue
        value, logged = _ratios(pairs, point, family)
        members = [r for pair in pairs for r in pair]
        found[family] = (_cell(value, logged, members), len(pairs))
        values.append(value)
        logs.append(logged)
        records += members
    if not found:
        return found, (cells.missing(
            "n/a: no benchmark with threads=%s in both files" % count), 0)
    value = float(numpy.exp(numpy.mean(numpy.log(values))))
    logged = (None if any(x is None for x in logs)
              else numpy.mean(logs, axis=0))
    return found, (_cell(value, logged, records), len(found))


def answer(result, results, declaration, families):
    """A cross-build finding's Cell in ``result``'s column."""
    if not is_free(result):
        return cells.missing(NOT_FREE)
    spec = declaration["cell"]
    other = twin(result, results, spec["twin"])
    if other is None:
        return cells.missing("n/a: no %s among the results"
                             % builds.TWINS[spec["twin"]][0])
    found = family_cells(result, other, spec["point"], families)[1][0]
    differ = interpreters.build_difference(result.facts, other.facts)
    if found.missing or not differ:
        return found
    return replace(found, note=spaced(found.note, "(%s)" % differ))


def title(relation, point):
    """The title of the table that shows a relation at a point."""
    return "Free-threaded build against %s: %s" % (
        builds.TWINS[relation][1], builds.POINTS[point][0])


def findings(results, families):
    """[(declaration, [Cell per result], evidence title)] of every
    cross-build question, or [] when no result is a free-threaded
    build."""
    if not any(is_free(r) for r in results):
        return []
    return [(declaration, [answer(r, results, declaration, families)
                           for r in results],
             title(declaration["cell"]["twin"], declaration["cell"]["point"]))
            for declaration in builds.FINDINGS]


def _counted(found, count, one, many):
    """A cell that says how many benchmarks (families) it reads."""
    if found.missing:
        return found
    return replace(found, text="%s (%d %s)" % (
        found.text, count, one if count == 1 else many))


def _row(family, columns):
    """A table row's cells, or None where no column has the family."""
    if family == ALL:
        return [_counted(c, n, "family", "families") for c, n in
                (column[1] for column in columns)]
    got = [column[0].get(family) for column in columns]
    if all(g is None for g in got):
        return None
    none = cells.missing("n/a: no benchmark with a threads axis")
    return [_counted(g[0], g[1], "benchmark", "benchmarks") if g else none
            for g in got]


def tables(results, families):
    """One Table per twin relation and point: families down the side,
    each free-threaded build that has such a twin across."""
    frees = [r for r in results if is_free(r)]
    shown = []
    for relation in builds.TWINS:
        pairs = [(free, twin(free, results, relation)) for free in frees]
        pairs = [(free, other) for free, other in pairs if other]
        if not pairs:
            continue
        for point, (_, what) in builds.POINTS.items():
            columns = [family_cells(free, other, point, families)
                       for free, other in pairs]
            rows = [[label(family)] + row for family, row in
                    ((f, _row(f, columns)) for f in families + [ALL])
                    if row is not None]
            header = [label("family")] + [
                label("%s vs %s" % (free.interpreter, other.interpreter))
                for free, other in pairs]
            differ = ["%s vs %s: %s" % (free.interpreter, other.interpreter,
                                        interpreters.build_difference(
                                            free.facts, other.facts))
                      for free, other in pairs
                      if interpreters.build_difference(free.facts,
                                                       other.facts)]
            shown.append(Table(
                title=title(relation, point),
                note=spaced("%s%s. %s" % (what[0].upper(), what[1:], NOTE),
                            "; ".join(differ) + "." if differ else ""),
                header=header, rows=rows, family=FAMILY,
                column_dim=INTERPRETER))
    return shown
