"""Table declarations: what a family wants the report to show.

A case module lists them in ``TABLES``; they travel, as JSON, in the
``gilbench_tables`` metadata of every benchmark of the family, so the
renderer (``gilbench.report``) draws a new family without an edit.  These
constructors only build and check plain dicts (worker side: Python 2.7
compatible); the report side interprets them.

Every table pivots benchmarks by their *dimensions*: the name parts
(``family``, ``case``, ``variant``, ``backend``), every declared axis
(``threads``, ``kind``, ...), and ``interpreter`` (one result file).
``rows`` and ``columns`` name one dimension each; ``per`` names dimensions
that split the table into one table per combination of their values;
``where`` keeps only benchmarks whose dimensions have the given values (a
list: any of them).  A
dimension that a table does not mention (and its cell does not consume) is
added to ``per``, so two benchmarks never compete for one cell.
"""
from gilbench.errors import UsageError
from gilbench.model.resultformat import CELL_KINDS, COUNT_AXES, INTERPRETER

IDEAL, CEILING = "ideal", "ceiling"
# The cells a best-of can rank.
BEST_OF = ("value", "throughput", "recorded", "efficiency")
LOWEST, HIGHEST = "lowest", "highest"


def value(per_op=False):
    """The mean with its unit; ``per_op`` divides it by ``ops_per_loop``."""
    return {"kind": "value", "per_op": bool(per_op)}


def ratio(over, numerator, denominator, fallback=None):
    """Benchmarks whose dimension ``over`` is ``numerator`` divided by their
    twins where it is ``denominator`` (all other dimensions equal).

    ``fallback`` gives other dimension values to try for the denominator
    when no such twin was registered (e.g. a cffi row, which has no GIL-held
    twin, divided by the GIL-held Cython one).
    """
    return {"kind": "ratio", "over": over, "numerator": numerator,
            "denominator": denominator, "fallback": dict(fallback or {})}


def speedup(over, baseline, scaled=False):
    """How much faster than the twin whose ``over`` is ``baseline``:
    baseline value / this value.

    ``scaled``: each loop's work grows with ``over`` (N threads each make a
    call per loop), so multiply by this ``over`` / ``baseline``; the
    1-thread value x N / the N-thread value is the speedup then.
    """
    return {"kind": "speedup", "over": over, "baseline": baseline,
            "scaled": bool(scaled)}


def throughput(unit="ops"):
    """Operations per second: the benchmark's ``ops_per_loop`` / value."""
    return {"kind": "throughput", "unit": unit}


def recorded(key, unit="", bounds=None):
    """A number the case recorded per run with ``gilbench.api.record`` (peak
    memory, per-role throughput, errors...): its mean over the measured
    runs, with ``unit`` after it; "n/a: not recorded" where absent.

    ``bounds``: (low, high) of a bounded index (a share, Jain's index),
    each a number or "1/AXIS" (one over the benchmark's value of a count
    axis: Jain's index over N threads is at least 1/N).  Its interval
    then lies within them (gilbench.report.numbers.intervals.bounded)."""
    cell = {"kind": "recorded", "key": key, "unit": unit}
    if bounds is not None:  # absent otherwise: older files read the same
        low, high = bounds
        cell["bounds"] = [low, high]
    return cell


def crossover(along, over, numerator, denominator, fallback=None, unit="",
              rises=False):
    """Along the numeric axis ``along``, where numerator/denominator (as in
    :func:`ratio`) falls to 1 or below for good: the smallest ``along``
    value from which the ratio stays <= 1, interpolated on a log scale
    between the last point above 1 and the next one.  "always" when no
    point is above 1, "never in range" when the last point is.

    ``rises``: where the ratio rises to 1 or above for good instead (e.g.
    the write fraction from which a read-write lock loses to a mutex).
    """
    cell = ratio(over, numerator, denominator, fallback)
    cell.update(kind="crossover", along=along, unit=unit, rises=bool(rises))
    return cell


def best(over, of=None, pick=LOWEST, among=None):
    """Which value of the dimension ``over`` gives the lowest (or, with
    ``pick="highest"``, the highest) ``of`` cell -- a value, a
    throughput, a recorded number or an efficiency -- and by what factor
    over the runner-up.  ``among`` limits the candidates (e.g. leave out
    a no-lock baseline)."""
    of = of or value()
    if of.get("kind") not in BEST_OF:
        raise UsageError("best(over=%r): of must be value(), throughput(), "
                         "recorded() or efficiency()" % over)
    if pick not in (LOWEST, HIGHEST):
        raise UsageError("best(over=%r): pick is %r or %r"
                         % (over, LOWEST, HIGHEST))
    return {"kind": "best", "over": over, "of": of, "pick": pick,
            "among": list(among or [])}


def efficiency(over, baseline=1, scaled=True, against=IDEAL):
    """A speedup over the count axis ``over`` (as :func:`speedup`) read
    against what N workers could give: against ``"ideal"``, speedup /
    (N / baseline); against ``"ceiling"``, speedup / this machine's
    ceiling speedup at the same N (the ``ceiling`` family's perfectly
    parallel C loop, same interpreter and driver).  1.0 is perfect."""
    if against not in (IDEAL, CEILING):
        raise UsageError("efficiency(over=%r): against is %r or %r"
                         % (over, IDEAL, CEILING))
    return {"kind": "efficiency", "over": over, "baseline": baseline,
            "scaled": bool(scaled), "against": against}


def scaling(over, baseline=1, scaled=True):
    """The Universal Scalability Law fitted to the speedups over the count
    axis ``over``: speedup(N) = N / (1 + s(N-1) + k N(N-1)), with s the
    contention and k the coherence cost, and the N where it peaks."""
    return {"kind": "scaling", "over": over, "baseline": baseline,
            "scaled": bool(scaled)}


def reference(memory=None, **points):
    """What a family offers as this machine's ceiling, per count axis: the
    name parts (case, variant, backend) of the benchmarks every
    ``efficiency(..., against=CEILING)`` cell, and every scaling figure,
    reads at the same count, e.g. ``reference(threads={"case": "spin",
    "variant": "threads", "backend": "cython"})``.  ``memory``: the same,
    per count axis, for a memory-bandwidth ceiling (threads streaming
    through buffers larger than the last-level cache), which the report's
    causes read: a call that gains no more than it is memory-bound.  A
    module declares it as ``REFERENCE``; the built-in ceiling family
    does."""
    found = _reference_points(points, "reference")
    if memory is not None:
        if not isinstance(memory, dict):
            raise UsageError("reference(memory=...): a dict of count axes")
        found["memory"] = _reference_points(memory, "reference(memory=...)")
    return found


def _reference_points(points, said):
    for axis, where in points.items():
        if axis not in COUNT_AXES:
            raise UsageError("%s(%s=...): a reference is given per count "
                             "axis (%s)" % (said, axis, ", ".join(COUNT_AXES)))
        if not isinstance(where, dict) or set(where) - set(POINT_PARTS):
            raise UsageError("%s(%s=...): a dict of %s"
                             % (said, axis, ", ".join(POINT_PARTS)))
    return dict((axis, dict(where)) for axis, where in points.items())


POINT_PARTS = ("case", "variant", "backend")


def cell_dimensions(cell):
    """The dimensions a cell names itself (its over and along)."""
    return [cell[k] for k in ("over", "along") if k in cell]


def named_dimensions(declaration):
    """Every dimension a table declaration names: rows, columns, per,
    where, and its cell's over/along.  The registry checks them against a
    family's axes; the report leaves out a table whose dimensions a
    partial run lacks."""
    return ([declaration["rows"], declaration["columns"]]
            + list(declaration["per"]) + list(declaration["where"])
            + cell_dimensions(declaration["cell"]))


def table(title, rows, columns=INTERPRETER, per=(), where=None, cell=None,
          note="", plot=True):
    """One table (or one per combination of ``per``) of ``cell`` values.
    ``plot=False``: the HTML page draws no figure of it -- a check (must
    be 0) or a fact of the set-up (the CPUs a side had), read in its
    table."""
    cell = cell or value()
    if cell.get("kind") not in CELL_KINDS:
        raise UsageError("table %r: cell must be one of %s"
                         % (title, ", ".join(CELL_KINDS)))
    # A speedup's (or efficiency's) ``over`` may be the rows or columns
    # themselves (threads down the side, each row against the 1-thread
    # one); a ratio's or a crossover's dimensions are consumed by the cell.
    consumed = [cell[k] for k in ("over", "along")
                if k in cell and cell["kind"] not in ("speedup",
                                                      "efficiency")]
    named = [rows, columns] + list(per) + consumed
    if len(set(named)) != len(named):
        raise UsageError("table %r names a dimension twice (rows, columns, "
                         "per, and a ratio's over/along must differ)"
                         % title)
    return {"title": title, "rows": rows, "columns": columns,
            "per": list(per), "where": dict(where or {}), "cell": cell,
            "note": note, "plot": bool(plot)}
