"""Cross-build findings: a free-threaded build read against its twins.

A finding of a family reads one result file; these read two.  Where the
results hold a free-threaded build, they pair it with each TWIN found
among them and ask, for every family, what the free-threaded build costs
one thread and what it gives at N threads (the usable CPUs):

* ``gil-on``: the same build run with its GIL forced on (PYTHON_GIL=1:
  the same binary and version; only the GIL differs);
* ``default``: the default (GIL) build of the same CPython version.

A pair reads the benchmarks both files measured with a ``threads`` axis,
matched by their dimensions: at threads=1 the free-threaded time over
the twin's (above 1: it costs), at threads=N the twin's time over the
free-threaded one's (above 1: it gives).  A family's answer is the
geometric mean over its benchmarks, the overall answer the geometric
mean over families.  Nothing here names an interpreter or a family, so
a 3.14t file pairs with 3.14t (GIL on) and 3.14 the day they are run.
(Data only; gilbench.report.tables.builds computes them.)
"""
from gilbench.model.findings import USABLE

GIL_ON, DEFAULT = "gil-on", "default"
ONE = "one"  # threads=1; USABLE: threads=the usable CPUs

# key: (its name, as a table title says it, how it is found)
TWINS = {
    GIL_ON: ("GIL-on twin", "its GIL-on twin", "the same build and version "
             "run with PYTHON_GIL=1"),
    DEFAULT: ("default build", "the default build of its version", "the "
              "same CPython version built with a GIL"),
}
# key: (where, what the ratio is)
POINTS = {
    ONE: ("one thread", "free-threaded time / twin time at threads=1 "
          "(above 1: slower)"),
    USABLE: ("N threads", "twin time / free-threaded time at threads=N, N "
             "the usable CPUs (above 1: faster)"),
}


def comparison(question, twin, point):
    """One cross-build question: ``twin`` a key of TWINS, ``point`` one
    of POINTS."""
    if twin not in TWINS or point not in POINTS:
        raise ValueError("comparison(%r): twin is one of %s, point one of "
                         "%s" % (question, sorted(TWINS), sorted(POINTS)))
    return {"question": question, "cell": {"kind": "builds", "twin": twin,
                                           "point": point}, "at": {}}


FINDINGS = [
    comparison("What does the free-threaded build cost one thread, against "
               "its GIL-on twin (time, geometric mean over families)?",
               GIL_ON, ONE),
    comparison("... against the default build of its version?", DEFAULT,
               ONE),
    comparison("What does it give at N threads (N the usable CPUs), against "
               "its GIL-on twin (throughput)?", GIL_ON, USABLE),
    comparison("... against the default build of its version?", DEFAULT,
               USABLE),
]
