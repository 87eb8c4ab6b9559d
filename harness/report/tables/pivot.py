"""The generic pivot: declared tables (gilbench.model.tables) from records.

Dimensions are the name parts, the axes and ``interpreter``, all read from
metadata.  ``rows`` and ``columns`` name one each; every dimension that
the declaration does not mention (and the cell does not consume) joins
``per``, so two benchmarks never compete for one cell.  A table's title
names the ``per`` values that tell it from the declaration's other tables;
those they all share are its ``common`` values, stated once by the page.
"""
from __future__ import annotations

import contextlib
import numbers

from gilbench.model import resultformat as fmt
from gilbench.model.resultformat import INTERPRETER
from gilbench.model.tables import named_dimensions
from gilbench.report import kinds
from gilbench.report.data import interruptions
from gilbench.report.data.lookup import Ceiling, Lookup
from gilbench.report.data.records import Table, label
from gilbench.report.tables import builds, listings

HIDDEN_IN_TITLES = ("family",)  # every table of a family shares it
# Who else all_tables hands each declaration's tables as it makes them
# (handing_tables): the HTML page's figures are drawn while the rest are
# made.
_RECEIVERS = []


@contextlib.contextmanager
def handing_tables(receiver):
    """Inside, all_tables hands each declaration's tables (a list, maybe
    empty) to ``receiver`` as soon as it has made them."""
    _RECEIVERS.append(receiver)
    try:
        yield receiver
    finally:
        _RECEIVERS.remove(receiver)


def _numeric(values):
    return all(isinstance(v, numbers.Real) and not isinstance(v, bool)
               for v in values)


def ordered(dim, records, interpreters):
    """The values of ``dim``: interpreters in file order (all of them, so
    an absent file shows "n/a: not run"), numbers ascending, anything
    else in first-seen (registry) order."""
    if dim == INTERPRETER:
        return list(interpreters)
    seen = []
    for record in records:
        value = record.dims.get(dim)
        if value is not None and value not in seen:
            seen.append(value)
    return sorted(seen) if _numeric(seen) else seen


def split_dimensions(declaration, kind, records):
    """``per`` as declared, then every other dimension the records have
    and the declaration does not mention, in metadata order."""
    mentioned = ({declaration["rows"], declaration["columns"]}
                 | set(declaration["per"]) | set(kind.consumed))
    per = list(declaration["per"])
    for record in records:
        per += [d for d in record.dims if d not in mentioned and d not in per]
    return per


def matches(record, where):
    """``where`` maps a dimension to a value, or to a list of values any
    of which will do."""
    return all(record.dims.get(k) in v if isinstance(v, list)
               else record.dims.get(k) == v for k, v in where.items())


def _groups(per, anchors):
    """{combination of the ``per`` values: its anchors}, in first-seen
    order: the registry's, as the files list their benchmarks."""
    groups = {}
    for record in anchors:
        groups.setdefault(tuple(record.dims.get(d) for d in per),
                          []).append(record)
    return groups


def dimension_label(dim, axes):
    """The header of the row labels: "Threads", or an axis with its unit."""
    if dim == "threads":
        return "Threads"
    unit = axes.get(dim, {}).get("unit") or ""
    if unit and unit != dim and not dim.endswith("_" + unit):
        return "%s (%s)" % (dim, unit)
    return dim


def lacking_dimensions(declaration, records):
    """Dimensions the declaration names that no benchmark here has: a run
    of part of a family (``--case``) lacks some tables' axes, and those
    tables are left out.  Typos are refused where tables are declared
    (gilbench.model.registry), not here."""
    known = {INTERPRETER}
    for record in records:
        known.update(record.dims)
    return [d for d in named_dimensions(declaration) if d not in known]


def equals_list(values):
    """``a=1, b=x`` of a {dimension: value} dict, leaving out what no
    title needs: the family (every table of a family shares it) and
    dimensions a benchmark does not have (None)."""
    return ", ".join("%s=%s" % (d, v) for d, v in values.items()
                     if d not in HIDDEN_IN_TITLES and v is not None)


def fixed_values(combos, per):
    """{dimension: value} of the ``per`` dimensions whose value is the
    same in every combination: the declaration's tables share them, so
    they are stated once (Table.common), not in every title."""
    if not combos:
        return {}
    return {d: combos[0][i] for i, d in enumerate(per)
            if all(combo[i] == combos[0][i] for combo in combos)}


def _title(declaration, per_values, common):
    shown = equals_list({d: v for d, v in per_values.items()
                         if d not in common})
    return "%s: %s" % (declaration["title"], shown) if shown \
        else declaration["title"]


def _text(value):
    return "-" if value is None else str(value)


def family_records(results, family):
    """The records of ``family`` in every file, in file order."""
    return [r for result in results for r in result.records
            if r.dims["family"] == family]


def declared_tables(results, family, declaration, axes, shared=None):
    """One Table per combination of the ``per`` values (maybe none);
    ``shared``: the family's Lookup and this machine's Ceiling
    (ceiling_lookup), made once by a caller for all of a family's
    declarations (else made here)."""
    # Twins (denominators, baselines) may lie outside ``where``: it picks
    # the cells, not what they are computed from.
    lookup, ceiling = shared or (Lookup(family_records(results, family)),
                                 ceiling_lookup(results))
    kind = kinds.make(declaration, axes, ceiling)
    records = lookup.records
    if lacking_dimensions(declaration, records):
        return []
    anchors = [r for r in kind.anchors(records)
               if matches(r, declaration["where"])]
    interpreters = [result.interpreter for result in results]
    per = split_dimensions(declaration, kind, anchors)
    rows_dim, columns_dim = declaration["rows"], declaration["columns"]
    tables = []
    groups = _groups(per, anchors)
    common = fixed_values(list(groups), per)
    cpus = _usable_cpus(records)
    for combo, members in groups.items():
        per_values = dict(zip(per, combo))
        row_values = ordered(rows_dim, members, interpreters)
        column_values = ordered(columns_dim, members, interpreters)
        grid = [[kind.cell(lookup, {**per_values, rows_dim: row,
                                    columns_dim: column})
                 for column in column_values] for row in row_values]
        header = [label(dimension_label(rows_dim, axes))] + [
            label(_text(c) if columns_dim == INTERPRETER
                  else "%s=%s" % (columns_dim, c)) for c in column_values]
        tables.append(Table(
            title=_title(declaration, per_values, common),
            note=_with_interruptions(kind.note(grid), members),
            common=common,
            header=header,
            rows=[[label(_text(row))] + cells
                  for row, cells in zip(row_values, grid)],
            family=family, declaration=declaration, per=per_values,
            reference=_reference(results, family),
            row_dim=rows_dim, column_dim=columns_dim, row_values=row_values,
            column_values=column_values, axes=axes, cpus=cpus))
    return tables


def _with_interruptions(note, members):
    """The kind's note, and what the members' declared rule left out."""
    left_out = interruptions.note(members)
    return "%s %s" % (note, left_out) if left_out else note


def _usable_cpus(records):
    """{interpreter: the most usable CPUs among its ``records``}."""
    found = {}
    for record in records:
        interpreter = record.dims.get(INTERPRETER)
        found[interpreter] = max(found.get(interpreter, 0),
                                 record.cpus_usable)
    return found


def _reference(results, family):
    """The reference points ``family`` declares ({} for most)."""
    for result in results:
        if family in result.references:
            return result.references[family]
    return {}


def ceiling_lookup(results):
    """This machine's Ceiling: the family that declares reference points
    and its records; None without them."""
    for result in results:
        for family, points in result.references.items():
            records = family_records(results, family)
            return Ceiling(Lookup(records), family, points) if records \
                else None
    return None


def family_axes(results, family):
    """{axis name: description} of a family over every file."""
    axes = {}
    for result in results:
        for name, axis in result.axes.get(family, {}).items():
            axes.setdefault(name, axis)
    return axes


def declarations(results):
    """{family: (table declarations, axes)}, first file declaring wins."""
    found = {}
    for result in results:
        for family, tables in result.tables.items():
            if family not in found:
                found[family] = (tables, family_axes(results, family))
    return found


def family_order(results):
    """Every family of the results, by its declared ORDER (the question
    it answers; 100 when it declares none), then by name."""
    order, families = {}, set()
    for result in results:
        families.update(r.dims["family"] for r in result.records)
        for family, rank in result.order.items():
            order.setdefault(family, rank)
    return sorted(families,
                  key=lambda f: (order.get(f, fmt.DEFAULT_ORDER), f))


def declared_families(results):
    """The families that declare tables, in page order."""
    found = declarations(results)
    return [f for f in family_order(results) if f in found]


def family_declared_tables(results, families):
    """The declared tables of ``families`` (in that order), tables in
    declaration order."""
    tables = []
    found = declarations(results)
    ceiling = ceiling_lookup(results)
    for family in families:
        family_tables, axes = found[family]
        shared = (Lookup(family_records(results, family)), ceiling)
        for declaration in family_tables:
            made = declared_tables(results, family, declaration, axes,
                                   shared)
            for receiver in _RECEIVERS:
                receiver(made)
            tables.extend(made)
    return tables


def other_tables(results):
    """The tables after the declared ones: the free-threaded builds'
    comparison, raw values, CPU utilisation and runs."""
    return (builds.tables(results, family_order(results))
            + listings.all_listings(results))


def all_tables(results):
    """Declared tables (families in page order, tables in declaration
    order), then raw values, CPU utilisation and runs."""
    return (family_declared_tables(results, declared_families(results))
            + other_tables(results))
