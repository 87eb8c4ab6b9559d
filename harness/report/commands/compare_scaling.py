"""``compare``'s scaling check: for every scalability-law declaration of a
family, did the change make scaling worse?

Each declaration's curves (one per combination of the other dimensions)
are paired across the two files.  At the largest count both measured,
efficiency is speedup / N = the 1-worker time / the N-worker time (x N /
N for work that grows with N): the change is changed efficiency / base
efficiency - 1, with a bootstrap interval over the four benchmarks'
processes and values (gilbench.report.numbers.intervals).  A drop is
significant when that interval lies below 0% and a time change behind it is
significant by compare's process-level test: the N-worker benchmark
slower, or the 1-worker one faster: the interval alone can miss the
run-to-run spread that two processes a side hide.  The fitted s and k
of both sides are shown with it.
"""
from __future__ import annotations

from dataclasses import dataclass

from gilbench.model.resultformat import INTERPRETER
from gilbench.report import kinds
from gilbench.report.data.lookup import Lookup, identity
from gilbench.report.data.records import Cell, Table, label
from gilbench.report.kinds import fit_text
from gilbench.report.numbers import cells, intervals, scalability
from gilbench.report.tables import pivot


@dataclass
class ScalingChange:
    family: str
    curve: str  # which curve: its dimensions
    count: int | float  # the largest count both sides measured
    base: float  # efficiency at count
    changed: float
    interval: tuple | None  # of changed / base
    fits: tuple  # (base fit text, changed fit text)
    pair: str = ""  # which files, as compare's Change.pair
    behind: tuple = ()  # identities of the (1-worker, N-worker) benchmarks
    backed: bool = False  # a time change behind the drop is significant

    @property
    def percent(self):
        return (self.changed / self.base - 1.0) * 100.0

    @property
    def significant_drop(self):
        return (self.backed and self.interval is not None
                and self.interval[1] < 1.0)


def _curves(kind, records, over):
    """{key: the dims of a curve (all but ``over`` and the interpreter)}
    among one file's records of the family."""
    anchors = [r for r in records
               if over in r.dims and pivot.matches(r, kind.declaration[
                   "where"])]
    found = {}
    for record in anchors:
        dims = {k: v for k, v in record.dims.items()
                if k not in (over, INTERPRETER)}
        found.setdefault(tuple(sorted(dims.items())), dims)
    return found


def _speedups(kind, lookup, dims, interpreter):
    """{N: speedup} of one curve in one file."""
    points, _ = kind.points(lookup, {**dims, INTERPRETER: interpreter})
    return {n: s for n, s, _ in points}


def _fit_text(kind, lookup, dims, interpreter):
    found = kind.fitted(lookup, {**dims, INTERPRETER: interpreter})
    return found.text if isinstance(found, Cell) else fit_text(found[0])


def changes(base_file, changed_file, pair=""):
    """A ScalingChange per curve of every scaling declaration found in
    both files (``pair`` names the two files)."""
    found = []
    for family, declarations in base_file.tables.items():
        for declaration in declarations:
            if declaration["cell"]["kind"] != "scaling":
                continue
            found += _declaration_changes(family, declaration, base_file,
                                          changed_file)
    for change in found:
        change.pair = pair
    return found


def _declaration_changes(family, declaration, base_file, changed_file):
    over = declaration["cell"]["over"]
    kind = kinds.make(declaration, base_file.axes.get(family, {}))
    sides = [[r for r in f.records if r.dims["family"] == family
              and r.measured] for f in (base_file, changed_file)]
    base_lookup, changed_lookup = [Lookup(records) for records in sides]
    found = []
    for dims in _curves(kind, sides[0], over).values():
        base = _speedups(kind, base_lookup, dims, base_file.interpreter)
        changed = _speedups(kind, changed_lookup, dims,
                            changed_file.interpreter)
        common = sorted(set(base) & set(changed) - {1})
        if not common:
            continue
        n = common[-1]
        interval, behind = _interval(kind, dims, n,
                                     (base_lookup, base_file),
                                     (changed_lookup, changed_file))
        found.append(ScalingChange(
            family, pivot.equals_list(dims), n, base[n] / n, changed[n] / n,
            interval,
            (_fit_text(kind, base_lookup, dims, base_file.interpreter),
             _fit_text(kind, changed_lookup, dims,
                       changed_file.interpreter)), behind=behind))
    return found


def _interval(kind, dims, n, base_side, changed_side):
    """(Bootstrap of changed efficiency / base efficiency at ``n``, the
    identities of the 1- and N-worker benchmarks)."""
    over, baseline = kind.spec["over"], kind.spec["baseline"]
    ratios = []
    for lookup, result in (base_side, changed_side):
        at = {**dims, INTERPRETER: result.interpreter}
        one, _ = lookup.get({**at, over: baseline})
        many, _ = lookup.get({**at, over: n * baseline})
        if one is None or many is None:
            return None, ()
        behind = (identity(one), identity(many))
        means = [intervals.SHARED.means(r) for r in (one, many)]
        if any(m is None for m in means):
            return None, behind
        ratios.append(means[0] / means[1])
    return intervals.bounds(ratios[1] / ratios[0]), behind


def back(found, time_changes):
    """Marks each scaling change whose drop a significant time change
    explains (``time_changes``: compare's Changes, already tested)."""
    by_identity = {}
    for change in time_changes:
        for record in (change.base, change.changed):
            if record is not None:
                by_identity[(change.pair, identity(record))] = change
    for change in found:
        if not change.behind:
            continue
        one, many = (by_identity.get((change.pair, i))
                     for i in change.behind)
        change.backed = bool((many and many.slower)
                             or (one and one.faster))


def table(found, pair):
    rows = []
    for change in found:
        ratio = change.changed / change.base
        flags = cells.flags(significant=intervals.excludes(change.interval))
        rows.append([
            label("%s: %s" % (change.family, change.curve)),
            label(cells.significant(change.count)),
            Cell("%.2f" % change.base, change.base),
            Cell("%.2f" % change.changed, change.changed),
            Cell(cells.percent_change(ratio, change.interval), ratio,
                 flags=flags),
            label(change.fits[0]), label(change.fits[1])])
    return Table(
        title="Scaling: %s" % pair,
        note="Efficiency (speedup / N) at the largest count both sides "
        "measured, its change with a 95% bootstrap interval (? where it "
        "holds 0%), and each side's " + scalability.METHOD + ".",
        header=[label(h) for h in ("Curve", "N", "base efficiency",
                                   "changed efficiency", "change",
                                   "base fit", "changed fit")],
        rows=rows, family="Scaling", shaded=True)


def drops_above(found, percent):
    """Significant efficiency drops of more than ``percent``."""
    return [c for c in found if c.significant_drop and -c.percent > percent]
