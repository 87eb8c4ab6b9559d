"""Finding declarations: the questions a family answers, one figure each.

A case module lists them in ``FINDINGS`` next to ``TABLES``; like tables
they travel as JSON in the ``gilbench_findings`` metadata of every
benchmark of the family, so the report (``gilbench.report.tables.questions``)
opens with a family's answers without an edit.  Worker side: Python 2.7
compatible, plain dicts only.

A finding is a question in plain words, a cell (any kind of
:mod:`gilbench.model.tables`: a ratio, speedup, crossover, best-of, ...)
and the point ``at`` which to compute it, e.g. ``{"case": "trivial", "threads":
2}``.  The report computes the cell once per interpreter; dimensions
``at`` leaves out must have one value among the benchmarks it selects
(else the answer is "n/a: ambiguous").  Comparing interpreters is what
the findings table's columns do, so ``at`` never names the interpreter.

A question "at N", N the usable CPUs, gives a count axis the value
``USABLE`` in ``at`` and may say ``{N}`` in its words: each column reads
the count its run was planned for (``gilbench.model.machine.planned``,
recorded as ``gilbench_planned_cpus``), and the question reads "at 2
threads" where every column's N is 2, "at N threads" with each column's
N in its header otherwise.

A finding may name a ``contrast``: the same question at another value of
dimensions its point names (``at={"argument": "own", ...},
contrast={"argument": "shared"}``).  Where the answer there differs
significantly from the answer at ``at``, the report marks the answer and
gives both (gilbench.report.tables.questions); the contrast is not a
second row, it qualifies the first.
"""
from gilbench.errors import UsageError
from gilbench.model.resultformat import CELL_KINDS, INTERPRETER
from gilbench.model.tables import cell_dimensions

USABLE = "usable"  # in ``at``: the count the run was planned for
N_PLACE = "{N}"  # in a question: that count


# The smallest difference that matters, unless a finding declares less: an
# answer inside it both ways is "the same" (gilbench.report.numbers.
# intervals.MARGIN says it again on the report side).
MARGIN = 0.10


def finding(question, cell, at=None, evidence=None, oversubscribed=False,
            contrast=None, margin=None, precision=None):
    """One question and how the results answer it.

    ``evidence`` is the title of the family's table that shows the
    answer in context (the HTML page links to it); by default the first
    table declared with the same computation.  A question that reads
    more threads or processes at once than the machine has usable CPUs
    is answered "n/a" there, unless ``oversubscribed`` says that is the
    question.  ``contrast`` gives other values of dimensions ``at``
    names: where the answer there differs significantly, the answer is
    marked and both are given.  ``margin``: the smallest difference
    that matters to the question, as a share (0.05 for 5%), at most
    MARGIN (the default); an answer whose interval lies within it of 1
    both ways is "the same", a decision.  ``precision``: for an answer
    others are read against (a reference such as the machine's ceiling,
    which every efficiency divides by), a share (0.02 for 2%), at most
    MARGIN: once decided, an adaptive run's rounds keep measuring it
    until its interval lies within that share of its point both ways.
    """
    at = dict(at or {})
    contrast = dict(contrast or {})
    odd = [dim for dim in contrast
           if dim not in at or at[dim] == contrast[dim] or at[dim] == USABLE]
    if odd:
        raise UsageError("finding %r: a contrast gives another value of a "
                         "dimension at names (%s)" % (question,
                                                      ", ".join(sorted(odd))))
    if N_PLACE in question and USABLE not in at.values():
        raise UsageError("finding %r: a question saying %s reads a count "
                         "at USABLE" % (question, N_PLACE))
    if not isinstance(cell, dict) or cell.get("kind") not in CELL_KINDS:
        raise UsageError("finding %r: cell must be one of %s"
                         % (question, ", ".join(CELL_KINDS)))
    if INTERPRETER in at or INTERPRETER in cell_dimensions(cell):
        raise UsageError("finding %r: a comparison of interpreters is the "
                         "findings table's columns, not a finding"
                         % question)
    if margin is not None and not 0 < margin <= MARGIN:
        raise UsageError("finding %r: margin must be above 0 and at most "
                         "%g" % (question, MARGIN))
    if precision is not None and not 0 < precision <= MARGIN:
        raise UsageError("finding %r: precision must be above 0 and at "
                         "most %g" % (question, MARGIN))
    declaration = {"question": question, "cell": cell, "at": at,
                   "evidence": evidence,
                   "oversubscribed": bool(oversubscribed)}
    if contrast:  # absent otherwise: older result files read the same
        declaration["contrast"] = contrast
    if margin is not None:
        declaration["margin"] = margin
    if precision is not None:
        declaration["precision"] = precision
    return declaration


def named_dimensions(declaration):
    """Every dimension a finding names: its point and its cell's."""
    return list(declaration["at"]) + cell_dimensions(declaration["cell"])
