"""The family ``gilbench timeit`` generates: a user's statement as a case.

``timeit`` hands over the statement, its set-up, its name and the thread
(and process) counts in the environment (:mod:`gilbench.model.timeitspec`); the
run and every benchmark program inherit it (pyperf's workers through
``--inherit-environ``, as every ``GILBENCH_*`` setting), and this module
builds ``CASES``, ``TABLES`` and ``FINDINGS`` from it -- no code is written
anywhere.  So a timeit result is an ordinary family: ``report`` and
``compare`` read it from its metadata like any other.

``timeit.NAME.threads.python``: N threads each run the statement once per
loop (the threads driver), at each value of the ``objects`` axis: ``own``,
each thread in a namespace of its own (the set-up run once per thread),
or ``shared``, all in one (as ``python -m timeit``: on a free-threaded
build the threads then contend on the shared objects' reference counts
and locks).  ``timeit.NAME.processes.python``: N worker processes (the
processes driver), when counts are given; each has its own objects
anyway.  The set-up runs in each pyperf worker before any clock, as a
case's ``prepare()``, in the program's thread: a thread's own objects are
made there, and only that thread touches them afterwards.  The
built-in ceiling family runs alongside at the same counts, so efficiency
is read against this machine as well as against N.

Worker side: Python 2.7-compatible.
"""
from gilbench.api import (
    CEILING,
    IDEAL,
    PROCESSES,
    THREADS,
    Axis,
    CaseSpec,
    efficiency,
    finding,
    processes,
    ratio,
    scaling,
    speedup,
    table,
    threads,
    value,
    worker_index,
)
from gilbench.measure import statement
from gilbench.model import resultformat, timeitspec

FAMILY = resultformat.TIMEIT_FAMILY
BACKEND = "python"
ORDER = 1  # the statement the user asked about opens the page
# Every speedup divides by the 1-worker value: more values per process
# than the harness default (3) steady it, as for the ceiling.
SIZING = ["-n", "6"]


OBJECTS = "objects"


def _prepare(stmt, setup):
    def prepare(params):
        if params.get(OBJECTS) != timeitspec.OWN:
            return statement.prepare(stmt, setup)
        loops = [statement.prepare(stmt, setup)
                 for _ in range(params[THREADS])]

        def work(count):
            return loops[worker_index()](count)
        return work
    return prepare


def _describe(stmt, setup):
    return "%s%s" % (stmt, " (setup: %s)" % setup if setup.strip() else "")


def cases(spec):
    """One case per driver that has counts."""
    found = []
    objects = [Axis(OBJECTS, spec["objects"])]
    for variant, driver, axis, counts, more in (
            (THREADS, THREADS, threads, spec["threads"], objects),
            (PROCESSES, PROCESSES, processes, spec["processes"], [])):
        if counts:
            found.append(CaseSpec(
                FAMILY, spec["name"], variant, BACKEND,
                _prepare(spec["stmt"], spec["setup"]),
                _describe(spec["stmt"], spec["setup"]), driver=driver,
                axes=[axis(values=counts, quick=counts)] + more,
                sizing=SIZING))
    return found


def _tables(axis, what, described, objects):
    where = {"variant": axis}
    # The threads' tables: a column per objects value (own, shared).
    columns = {"columns": OBJECTS} if axis == THREADS else {}
    tables = [
        table("Time per loop, %s" % axis, rows=axis, where=where,
              cell=value(), note="One loop: each of the %s runs the "
              "statement once: %s." % (what, described), **columns),
        table("Speedup over 1 worker, %s" % axis, rows=axis, where=where,
              cell=speedup(over=axis, baseline=1, scaled=True),
              note="Statements per second at N over 1's; the dashed line "
              "is this machine's ceiling.", **columns),
        table("Efficiency against the ideal, %s" % axis, rows=axis,
              where=where, cell=efficiency(over=axis, against=IDEAL),
              **columns),
        table("Efficiency against this machine's ceiling, %s" % axis,
              rows=axis, where=where,
              cell=efficiency(over=axis, against=CEILING), **columns),
        table("Scalability-law fit over %s" % axis,
              rows=OBJECTS if columns else "variant",
              where=where, cell=scaling(over=axis)),
    ]
    if axis == THREADS and len(objects) > 1:
        tables.append(table(
            SHARING_TABLE, rows=axis, where=where, cell=SHARING,
            note="Above 1: threads sharing the set-up's objects are slower "
            "than threads with their own."))
    return tables


_ONE = {THREADS: "thread", PROCESSES: "process"}
SHARING = ratio(over=OBJECTS, numerator=timeitspec.SHARED,
                denominator=timeitspec.OWN)
SHARING_TABLE = "Sharing the set-up's objects over each thread its own (time)"


def _findings(axis, counts, objects):
    point = {"variant": axis}
    contrast = {}
    if axis == THREADS:
        # The threads' answers read their own objects where both were
        # measured; where sharing's answer differs, it is marked and given.
        point[OBJECTS] = objects[0]
        if len(objects) > 1:
            contrast = {OBJECTS: objects[1]}
    found = [finding("Time per call of the statement, 1 %s?" % _ONE[axis],
                     value(), at=dict(point, **{axis: 1}))]
    for count in [c for c in counts if c > 1]:
        at = dict(point, **{axis: count})
        found += [
            finding("Speedup at %d %s?" % (count, axis),
                    speedup(over=axis, baseline=1, scaled=True), at=at,
                    contrast=contrast),
            finding("... efficiency against this machine's ceiling?",
                    efficiency(over=axis, against=CEILING), at=at,
                    contrast=contrast),
        ]
        if contrast:
            found.append(finding(
                "... what sharing the set-up's objects costs (shared/own "
                "time)?", SHARING, at={"variant": axis, axis: count},
                evidence=SHARING_TABLE))
    if len(counts) >= 3:
        found.append(finding("Scalability-law fit over %s (s, k, peak)?"
                             % axis, scaling(over=axis), at=point))
    return found


def declarations(spec):
    """(TABLES, FINDINGS) for the drivers that have counts."""
    tables, found = [], []
    for axis, what in ((THREADS, "threads"),
                       (PROCESSES, "worker processes")):
        if spec[axis]:
            tables += _tables(axis, what,
                              _describe(spec["stmt"], spec["setup"]),
                              spec["objects"])
            found += _findings(axis, spec[axis], spec["objects"])
    return tables, found


SPEC = timeitspec.received()
CASES = cases(SPEC)
TABLES, FINDINGS = declarations(SPEC)
