"""The cause behind an answer that does not scale: gathers
gilbench.report.numbers.causes' Signals from a result's records (the
answer's benchmarks at N and at its baseline, the memory ceiling beside
them, the runs' GIL) and names it.

Findings get a cause where their cell is a speedup or an efficiency over
a count axis (or a best-of such efficiencies: its winner's) and its
interval lies below this machine's compute ceiling at the same count by
more than the finding's margin, and an "unclear" one saying why none is
named where its point lies short of the ceiling but its interval still
reaches within the margin of it; ``gilbench timeit`` gets one under its
verdict.
"""
from __future__ import annotations

from gilbench.measure import gilguard
from gilbench.model.resultformat import COUNT_AXES, INTERPRETER, WHY_CLASSES
from gilbench.model.tables import speedup
from gilbench.report import kinds
from gilbench.report.kinds.base import margin_of
from gilbench.report.numbers import causes, cells, intervals
from gilbench.report.numbers.cells import Cell

_SCALING_KINDS = ("speedup", "efficiency")


def cpu_ratio(this, base):
    """CPU utilisation at N over that at the baseline (None where either
    is not recorded)."""
    if base is None or not base.cpu_utilisation or \
            this.cpu_utilisation is None:
        return None
    return this.cpu_utilisation / base.cpu_utilisation


def speedup_kind(axis, axes, ceiling):
    return kinds.make({"cell": speedup(over=axis, baseline=1, scaled=True),
                       "note": ""}, axes, ceiling)


def memory_speedup(ceiling, axis, count, interpreter, axes):
    """The memory ceiling's speedup Cell at ``count`` of ``axis``, or None
    where it was not measured."""
    if ceiling is None:
        return None
    where = ceiling.points.get("memory", {}).get(axis)
    if where is None:
        return None
    found = speedup_kind(axis, axes, ceiling).answer(
        ceiling.lookup, {"family": ceiling.family, **where, axis: count,
                         INTERPRETER: interpreter})
    return None if found.missing else found


def compute_speedup(ceiling, axis, count, interpreter):
    """The compute ceiling's speedup at ``count`` (its point), or None."""
    if ceiling is None:
        return None
    one, _ = ceiling.get(axis, 1, interpreter)
    many, _ = ceiling.get(axis, count, interpreter)
    if one is None or many is None:
        return None
    return one.mean / many.mean * count


def reenabled_by(cell):
    """The modules a failed answer says re-enabled the GIL, else ()."""
    if cell.missing and cell.text.startswith(gilguard.REENABLED):
        return tuple(cell.text[len(gilguard.REENABLED):].split(", "))
    return ()


def finding_cause(found, declaration, lookup, dims, ceiling, axes, gil):
    """A causes.Cause for one finding's answer ``found`` at ``dims`` (its
    located point; None where it has none), or None where its question is
    not whether something scales, or the answer reaches its ceiling.
    ``gil``: the file's python_gil."""
    modules = reenabled_by(found)
    if modules:
        return causes.diagnose(causes.Signals(0, "threads", found,
                                              reenabled_by=modules))
    cell = declaration["cell"]
    if dims is not None and ceiling is not None and \
            dims.get("family") == ceiling.family:
        return None  # the ceilings are what others are read against
    if cell["kind"] == "best" and found.winner is not None and \
            dims is not None:
        # "Which scales worst?": why its winner does not scale.
        dims = {**dims, cell["over"]: found.winner}
        cell = cell["of"]
    axis = cell.get("over")
    if found.missing or dims is None or cell["kind"] not in _SCALING_KINDS \
            or axis not in COUNT_AXES or cell.get("baseline", 1) != 1:
        return None
    margin = margin_of(declaration)
    found_cause = scaling_cause(lookup, dims, axis, ceiling, axes, gil,
                                margin) or unsure_cause(
        lookup, dims, axis, ceiling, axes, margin)
    if found_cause is None and declaration["cell"]["kind"] == "efficiency" \
            and found.significant and found.value < 1 and found.same is None:
        return causes.Cause(causes.UNCLEAR, "no cause is named: below the "
                            "ceiling, but by less than the %d%% margin can "
                            "tell" % round(margin * 100))
    return found_cause


def scaling_cause(lookup, dims, axis, ceiling, axes, gil,
                  margin=intervals.MARGIN, sharing=None):
    """The causes.Cause of the speedup at ``dims`` (a count of ``axis``
    and the rest of a benchmark's dimensions) falling short of the
    compute ceiling there by more than ``margin`` (its interval's high
    end below the ceiling's speedup / (1 + margin)), or None where it
    does not (or either was not measured).  ``sharing``: shared/own time
    there."""
    found = against_ceiling(lookup, dims, axis, ceiling, axes)
    if found is None:
        return None
    kind, (_, interval, this, base), ceiling_gain = found
    count = dims[axis]
    if interval is None or interval[1] * (1 + margin) >= ceiling_gain:
        return None  # within the margin's reach of it: no cause to name
    return causes.diagnose(causes.Signals(
        count, axis, kind.answer(lookup, dims), ceiling=ceiling_gain,
        cpu_ratio=cpu_ratio(this, base), gil=gil, sharing=sharing,
        memory=memory_speedup(ceiling, axis, count, dims.get(INTERPRETER),
                              axes),
        margin=margin, samples=samples(this),
        samples_unavailable=this.why_unavailable))


def unsure_cause(lookup, dims, axis, ceiling, axes, margin):
    """A causes.UNCLEAR Cause saying why none is named where the speedup
    at ``dims`` lies short of the compute ceiling by more than ``margin``
    but its interval still reaches within it (more worker processes
    would tell); else None."""
    found = against_ceiling(lookup, dims, axis, ceiling, axes)
    if found is None:
        return None
    _, measured, ceiling_gain = found
    return short_of_ceiling(measured[0], measured[1], ceiling_gain, margin)


def against_ceiling(lookup, dims, axis, ceiling, axes):
    """(the speedup kind, its measure at ``dims``: (speedup, interval,
    this, base), the compute ceiling's speedup there), or None where
    either was not measured or the count is the baseline's."""
    count = dims.get(axis)
    ceiling_gain = compute_speedup(ceiling, axis, count,
                                   dims.get(INTERPRETER))
    kind = speedup_kind(axis, axes, ceiling)
    measured = kind.measure(lookup, dims)
    if isinstance(measured, Cell) or ceiling_gain is None or count <= 1:
        return None
    return kind, measured, ceiling_gain


def short_of_ceiling(speedup, interval, ceiling_gain, margin):
    """:func:`unsure_cause`'s verdict for a ``speedup`` (its point and
    ``interval``) against the ceiling's ``ceiling_gain``."""
    if interval is None or speedup * (1 + margin) >= ceiling_gain or \
            interval[1] * (1 + margin) < ceiling_gain:
        return None
    return causes.Cause(causes.UNCLEAR, "no cause is named: the speedup, "
                        "%.2fx [%s-%s], may yet reach the ceiling's %.2fx "
                        "(within the %d%% margin)" % (
                            speedup, cells.significant(interval[0]),
                            cells.significant(interval[1]), ceiling_gain,
                            round(margin * 100)))


def samples(record):
    """--why's shares of ``record``'s samples (whysampler), or None."""
    if "why_samples" not in record.recorded:
        return None
    found = {name: record.recorded.get("why_" + name, 0.0)
             for name in WHY_CLASSES}
    found["samples"] = int(record.recorded["why_samples"])
    return found
