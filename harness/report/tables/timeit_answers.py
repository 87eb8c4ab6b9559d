"""What ``gilbench timeit`` prints: a few lines answering "does this
statement scale?" from its result file.

Every number is a cell of the report's own kinds (value, speedup,
efficiency against the ideal and against this machine's ceiling, the
scalability-law fit), with their bootstrap intervals and flags, so the
lines say what ``gilbench report`` says of the same file.  The verdict
on the GIL reads the speedup at the largest count within the usable CPUs
against the ceiling's there, with the CPU utilisation as evidence.
"""
from __future__ import annotations

from gilbench.model import resultformat as fmt
from gilbench.model.tables import (
    CEILING,
    IDEAL,
    efficiency,
    ratio,
    scaling,
    speedup,
)
from gilbench.report import kinds
from gilbench.report.data import loader
from gilbench.report.data.lookup import Lookup
from gilbench.report.data.records import COUNT_AXES
from gilbench.report.numbers import cells
from gilbench.report.tables import pivot, why

# The share of the ceiling's gain (speedup - 1) from which a statement
# runs in parallel, and up to which it does not: in between, partly.
PARALLEL_SHARE = 0.75
SERIAL_SHARE = 0.25
# Below this ceiling speedup (half a second core) the machine gave too
# little parallelism to judge by: a gain that small is within the noise.
MIN_CEILING = 1.5
_ONE = {"threads": "thread", "processes": "process"}


def _kind(cell, results):
    return kinds.make({"cell": cell, "note": ""},
                        pivot.family_axes(results, fmt.TIMEIT_FAMILY),
                        pivot.ceiling_lookup(results))


OBJECTS = "objects"
_OBJECTS_SAID = {"own": "each thread its own objects",
                 "shared": "the set-up's objects shared by all"}


class Curve:
    """One driver's records of the statement (at one objects value, for
    threads) and the cells along it."""

    def __init__(self, axis, records, results, gil_on):
        self.axis = axis
        self.gil_on = gil_on  # the runs' GIL state (python_gil)
        self.lookup = Lookup(records)
        self.base = {k: v for k, v in records[0].dims.items() if k != axis}
        self.objects = self.base.get(OBJECTS)
        self.counts = sorted({r.dims[axis] for r in records})
        self.speedup = _kind(speedup(over=axis, baseline=1, scaled=True),
                             results)
        self.ideal = _kind(efficiency(over=axis, against=IDEAL), results)
        self.ceiling = _kind(efficiency(over=axis, against=CEILING), results)
        self.fit = _kind(scaling(over=axis), results)

    def dims(self, count):
        return {**self.base, self.axis: count}

    def named(self, count):
        return "%d %s" % (count, self.axis if count > 1 else _ONE[self.axis])

    def title(self):
        """What the curve measured, where a driver has several."""
        said = _OBJECTS_SAID.get(self.objects)
        return "%s, %s (--objects %s):" % (self.axis.capitalize(), said,
                                            self.objects) if said else None

    def line(self, count):
        record, reason = self.lookup.get(self.dims(count))
        if record is None:
            return "%s: %s" % (self.named(count), reason)
        used = "CPU %s" % cells.cpu(record).text
        if count == 1:
            return "%s: %s per call of the statement, %s" % (
                self.named(count), cells.raw(record).display, used)
        dims = self.dims(count)
        faster = self.speedup.answer(self.lookup, dims)
        return "%s: %s as fast as 1; efficiency %s against the ideal, " \
               "%s against this machine's ceiling; %s" % (
                   self.named(count), faster.display,
                   self.ideal.cell(self.lookup, dims).display,
                   self.ceiling.cell(self.lookup, dims).display, used)

    def fitted(self):
        return "Scalability law over %s: %s" % (
            self.axis, self.fit.cell(self.lookup, self.base).display)

    def lines(self):
        return ([self.line(n) for n in self.counts] + [self.fitted()]
                + [verdict(self)])


def _judged_count(curve):
    """The largest count above 1 within the usable CPUs with a speedup."""
    for count in reversed(curve.counts):
        record, _ = curve.lookup.get(curve.dims(count))
        if count > 1 and record is not None and not record.oversubscribed:
            return count, record
    return None, None


def _judgement(curve):
    """(count, evidence, against, what the statement does or a
    CANNOT_TELL key), or None without a count to judge."""
    count, record = _judged_count(curve)
    if count is None:
        return None
    dims = curve.dims(count)
    faster = curve.speedup.answer(curve.lookup, dims)
    evidence = "%s used %s CPU and ran %s as fast as 1" % (
        curve.named(count), cells.cpu(record).text, faster.display)
    ceiling = _ceiling_speedup(curve, dims)
    doubt = (UNMEASURED if ceiling is None
             else BUSY if ceiling < MIN_CEILING else None)
    against = ("this machine's ceiling: %.2fx" % ceiling if ceiling
               else "no ceiling measured; the ideal: %dx" % count)
    said = judged(faster, _cpu_ratio(curve, record),
                  float(count) if doubt else ceiling,
                  curve.axis == "threads" and curve.gil_on, doubt)
    return count, evidence, against, said


def verdict(curve):
    """Whether the statement runs in parallel, with the evidence."""
    found = _judgement(curve)
    if found is None:
        return ("Parallel? Cannot tell: no count from 2 up to the usable "
                "CPUs was measured.")
    _, evidence, against, said = found
    if said in CANNOT_TELL:
        return "Parallel? Cannot tell: %s (%s); %s." % (
            evidence, against, CANNOT_TELL[said])
    return "Parallel? %s (%s): the statement %s." % (evidence, against,
                                                       said)


def short_verdict(curve):
    """The verdict in a few words, for a table cell."""
    found = _judgement(curve)
    if found is None:
        return "cannot tell (no count to judge)"
    said = found[3]
    return "cannot tell: %s" % SHORT[said] if said in CANNOT_TELL else said


BUSY, UNMEASURED, NOISY = "busy", "unmeasured", "noisy"
CANNOT_TELL = {
    BUSY: "this machine's ceiling shows too little parallelism to fall "
          "short of (its CPUs are busy elsewhere)",
    UNMEASURED: "without the ceiling a busy machine looks the same (build "
                "gilbench's extensions to measure it)",
    NOISY: "the interval reaches both serial and parallel (more values "
           "tell: -p 4, --rigorous)",
}


SHORT = {BUSY: "the machine is busy", UNMEASURED: "no ceiling measured",
         NOISY: "too noisy (-p 4)"}


def _cpu_ratio(curve, record):
    """CPU utilisation at N over that at 1 (None where not recorded)."""
    one, _ = curve.lookup.get(curve.dims(1))
    if one is None or not one.cpu_utilisation or \
            record.cpu_utilisation is None:
        return None
    return record.cpu_utilisation / one.cpu_utilisation


def judged(faster, cpu_ratio, reference, gil, doubt=None):
    """What a speedup Cell and the CPU utilisation ratio behind it say
    against the ``reference`` speedup (the ceiling's, else N), or a key
    of CANNOT_TELL.  Running in parallel takes the CPU to show for it:
    threads that wait for the GIL use none, threads that contend for
    memory or a spinning lock use it without the speedup.  ``gil``: a
    GIL build's threads; ``doubt``: BUSY or UNMEASURED when the ceiling
    did not show this machine's parallelism, so only a statement that
    reaches the ideal can tell."""
    def share(ratio):
        return (ratio - 1.0) / max(reference - 1.0, 1e-9)

    gained = bool(faster.significant) and faster.value > 1.0
    speed = share(faster.value)
    used = speed if cpu_ratio is None else share(cpu_ratio)
    released = " (it appears to release the GIL)" if gil else ""
    if gained and min(speed, used) >= PARALLEL_SHARE:
        return "runs in parallel" + released
    # A gain with the CPU to show for it is parallelism even where the
    # machine's own is unknown; only its lack could be the machine's.
    if gained and used >= PARALLEL_SHARE and not doubt:
        return ("runs in parallel%s, but gains %d%% of what the ceiling "
                "gains: its threads contend for something else (memory "
                "bandwidth, shared caches, a lock)"
                % (released, round(speed * 100)))
    if gained and min(speed, used) > SERIAL_SHARE:
        return "runs %spartly in parallel" % ("at least " if doubt else "")
    if doubt:
        return doubt
    serial = 1.0 + SERIAL_SHARE * (reference - 1.0)
    if not gained and (faster.interval is None
                       or faster.interval[1] > serial):
        return NOISY  # not significant, yet parallel is within reach
    if used >= PARALLEL_SHARE:
        return ("does not run faster in parallel: its threads were busy "
                "together, contending (a lock that spins, such as 2.7's "
                "GIL; cache lines they share)")
    return "does not run in parallel" + (
        " (it appears to hold the GIL)" if gil else
        " (something serialises it: a lock, shared objects' reference "
        "counts)")


def _ceiling_speedup(curve, dims):
    found = curve.ceiling.efficiency(curve.lookup, dims)
    return None if isinstance(found, cells.Cell) else found[2]


def _curves(path):
    """(ResultFile, its GIL state, {(axis, objects): Curve}, its results)
    of a timeit result; objects is None for processes."""
    results = loader.load_results([path])
    result = results[0]
    mine = [r for r in result.records
            if r.dims["family"] == fmt.TIMEIT_FAMILY]
    gil = result.facts.get("gil", "?")
    curves = {}
    for axis in COUNT_AXES:
        records = [r for r in mine if r.dims["variant"] == axis]
        for objects in dict.fromkeys(r.dims.get(OBJECTS) for r in records):
            curves[axis, objects] = Curve(
                axis, [r for r in records if r.dims.get(OBJECTS) == objects],
                results, gil != "disabled")
    return result, gil, curves, results


def sharing(path_results, curves):
    """(count, Cell): shared time over own at the largest count within
    the usable CPUs, where both were measured; else None."""
    own = curves.get(("threads", "own"))
    if own is None or ("threads", "shared") not in curves:
        return None
    count, _ = _judged_count(own)
    if count is None:
        return None
    kind = _kind(ratio(over=OBJECTS, numerator="shared", denominator="own"),
                 path_results)
    records = [r for curve in curves.values() if curve.axis == "threads"
               for r in curve.lookup.records]
    dims = {k: v for k, v in own.dims(count).items() if k != OBJECTS}
    return count, kind.answer(Lookup(records), dims)


def why_line(curve, results, shares=None):
    """"Why not: <cause>" where the curve's speedup at its judged count
    falls short of the ceiling (tables.why); else None.  ``shares``:
    ``sharing``'s (count, Cell), the shared curve's evidence."""
    cause = _cause(curve, results, shares)
    return None if cause is None else "Why not: %s." % cause.text


def _short_cause(curves, key, results, shares):
    """The cause of ``curves[key]`` in words (its text before the
    evidence), else None.  ``shares``: ``sharing(results, curves)``."""
    if key not in curves:
        return None
    cause = _cause(curves[key], results, shares)
    return None if cause is None else cause.text.split(":")[0]


def _cause(curve, results, shares):
    count, _ = _judged_count(curve)
    if count is None:
        return None
    shared = None
    if shares is not None and shares[0] == count and \
            curve.objects == "shared":
        shared = shares[1]
    return why.scaling_cause(
        curve.lookup, curve.dims(count), curve.axis,
        pivot.ceiling_lookup(results),
        pivot.family_axes(results, fmt.TIMEIT_FAMILY),
        "enabled" if curve.gil_on else "disabled", sharing=shared)


def sharing_line(path_results, curves):
    """What sharing the set-up's objects costs the threads (``sharing``),
    in a line; else None."""
    found = sharing(path_results, curves)
    if found is None:
        return None
    count, found = found
    if found.value is None:
        return "Sharing at %d threads: %s" % (count, found.display)
    if found.same:
        said = "sharing costs nothing that matters"
    elif found.significant and found.value > 1:
        said = ("sharing is what costs: the threads contend on the shared "
                "objects (their reference counts, their locks)")
    elif found.significant:
        said = "sharing is faster here"
    else:
        said = "cannot tell whether sharing costs (more values tell: -p 4)"
    return ("Sharing at %d threads: shared objects take %s the time of "
            "own: %s." % (count, found.display, said))


def lines(path, stmt):
    """The answers for the timeit result at ``path``."""
    result, gil, curves, results = _curves(path)
    cpus = max((r.cpus_usable for r in result.records), default=0)
    # A worker whose GIL an import re-enabled fails instead of measuring
    # (gilbench.measure.gilguard): a disabled GIL in the file stayed disabled.
    state = ("disabled (no import re-enabled it)" if gil == "disabled"
             else gil)
    found = ["%s -- %s, %d usable CPUs, GIL %s:" % (
        stmt.splitlines()[0] if stmt.strip() else stmt,
        result.interpreter, cpus, state)]
    shares = sharing(results, curves)
    for curve in curves.values():
        title = curve.title() if len(curves) > 1 else None
        indent = "    " if title else "  "
        found += ["  " + title] if title else []
        found += [indent + line for line in curve.lines()]
        said = why_line(curve, results, shares)
        found += [indent + said] if said else []
    shared = sharing_line(results, curves)
    return found + (["  " + shared] if shared else [])


def _cell(curve, count):
    """A count's compact answer: the time at 1, the speedup above."""
    record, reason = curve.lookup.get(curve.dims(count))
    if record is None:
        return reason
    if count == 1:
        return cells.raw(record).display
    return curve.speedup.answer(curve.lookup, curve.dims(count)).display


def table_lines(paths, stmt):
    """One table, a column per interpreter: each count's time (1) or
    speedup, and the verdict, for timeit results of the same statement
    on several interpreters; threads' rows per objects value where any
    interpreter measured more than one (the others say "-")."""
    found = [_curves(path) for path in paths]
    header = [""] + [result.interpreter + (" (GIL off)"
                                          if gil == "disabled" else "")
                     for result, gil, _, _ in found]
    keys = list(dict.fromkeys(key for _, _, curves, _ in found
                              for key in curves))
    several = len({objects for axis, objects in keys
                   if axis == "threads"}) > 1
    shares = [sharing(results, curves) for _, _, curves, results in found]
    rows = []
    for key in keys:
        axis, objects = key
        named_too = " %s" % objects if several and objects else ""
        counts = sorted({n for _, _, curves, _ in found if key in curves
                         for n in curves[key].counts})
        for count in counts:
            named = "%d %s%s" % (count, axis if count > 1 else _ONE[axis],
                                 named_too)
            rows.append([named] + [
                _cell(curves[key], count) if key in curves else "-"
                for _, _, curves, _ in found])
        if counts:
            rows.append(["parallel? (%s%s)" % (axis, named_too)] + [
                short_verdict(curves[key]) if key in curves else "-"
                for _, _, curves, _ in found])
            causes = [_short_cause(curves, key, results, share)
                      for (_, _, curves, results), share
                      in zip(found, shares)]
            if any(causes):
                rows.append(["why not? (%s%s)" % (axis, named_too)] + [
                    cause or "-" for cause in causes])
    if several:
        rows.append(["shared/own time (N threads)"] + [
            "-" if share is None else "%s (%d)" % (share[1].display, share[0])
            for share in shares])
    widths = [max(len(row[i]) for row in [header] + rows)
              for i in range(len(header))]
    first = stmt.splitlines()[0] if stmt.strip() else stmt
    return ["%s -- 1: time per call; N: as fast as 1:" % first] + [
        "  " + " | ".join(cell.ljust(width) for cell, width
                          in zip(row, widths)).rstrip()
        for row in [header] + rows]
