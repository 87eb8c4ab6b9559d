"""The family ``gilbench timeit`` generates: a user's statement as a case.

``timeit`` hands over the statement, its set-up, its name and the thread
(and process) counts in the environment (:mod:`gilbench.model.timeitspec`); the
run and every benchmark program inherit it (pyperf's workers through
``--inherit-environ``, as every ``GILBENCH_*`` setting), and this module
builds ``CASES``, ``TABLES`` and ``FINDINGS`` from it -- no code is written
anywhere.  So a timeit result is an ordinary family: ``report`` and
``compare`` read it from its metadata like any other.

``timeit.NAME.threads.python``: N threads each run the statement once per
loop (the threads driver); ``timeit.NAME.processes.python``: N worker
processes (the processes driver), when counts are given.  The set-up runs
once per pyperf worker before any clock, as a case's ``prepare()``.  The
built-in ceiling family runs alongside at the same counts, so efficiency
is read against this machine as well as against N.

Worker side: Python 2.7-compatible.
"""
from gilbench.api import (
    CEILING,
    IDEAL,
    PROCESSES,
    THREADS,
    CaseSpec,
    efficiency,
    finding,
    processes,
    scaling,
    speedup,
    table,
    threads,
    value,
)
from gilbench.measure import statement
from gilbench.model import resultformat, timeitspec

FAMILY = resultformat.TIMEIT_FAMILY
BACKEND = "python"
ORDER = 1  # the statement the user asked about opens the page
# Every speedup divides by the 1-worker value: more values per process
# than the harness default (3) steady it, as for the ceiling.
SIZING = ["-n", "6"]


def _prepare(stmt, setup):
    def prepare(params):
        return statement.prepare(stmt, setup)
    return prepare


def _describe(stmt, setup):
    return "%s%s" % (stmt, " (setup: %s)" % setup if setup.strip() else "")


def cases(spec):
    """One case per driver that has counts."""
    found = []
    for variant, driver, axis, counts in (
            (THREADS, THREADS, threads, spec["threads"]),
            (PROCESSES, PROCESSES, processes, spec["processes"])):
        if counts:
            found.append(CaseSpec(
                FAMILY, spec["name"], variant, BACKEND,
                _prepare(spec["stmt"], spec["setup"]),
                _describe(spec["stmt"], spec["setup"]), driver=driver,
                axes=[axis(values=counts, quick=counts)], sizing=SIZING))
    return found


def _tables(axis, what, described):
    where = {"variant": axis}
    return [
        table("Time per loop, %s" % axis, rows=axis, where=where,
              cell=value(),
              note="One loop: each of the %s runs the statement once: %s."
              % (what, described)),
        table("Speedup over 1 worker, %s" % axis, rows=axis, where=where,
              cell=speedup(over=axis, baseline=1, scaled=True),
              note="Statements per second at N over 1's; the dashed line "
              "is this machine's ceiling."),
        table("Efficiency against the ideal, %s" % axis, rows=axis,
              where=where, cell=efficiency(over=axis, against=IDEAL)),
        table("Efficiency against this machine's ceiling, %s" % axis,
              rows=axis, where=where,
              cell=efficiency(over=axis, against=CEILING)),
        table("Scalability-law fit over %s" % axis, rows="variant",
              where=where, cell=scaling(over=axis)),
    ]


_ONE = {THREADS: "thread", PROCESSES: "process"}


def _findings(axis, counts):
    point = {"variant": axis}
    found = [finding("Time per run of the statement, 1 %s?"
                     % _ONE[axis], value(), at=dict(point, **{axis: 1}))]
    for count in [c for c in counts if c > 1]:
        found += [
            finding("Speedup at %d %s?" % (count, axis),
                    speedup(over=axis, baseline=1, scaled=True),
                    at=dict(point, **{axis: count})),
            finding("... efficiency against this machine's ceiling?",
                    efficiency(over=axis, against=CEILING),
                    at=dict(point, **{axis: count})),
        ]
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
                              _describe(spec["stmt"], spec["setup"]))
            found += _findings(axis, spec[axis])
    return tables, found


SPEC = timeitspec.received()
CASES = cases(SPEC)
TABLES, FINDINGS = declarations(SPEC)
