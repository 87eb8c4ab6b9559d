"""Report side (Python >= 3.9): tables and pages rendered from result JSON.

Reads only pyperf JSON written by ``gilbench run`` (format 2, see
gilbench.model.resultformat); the tables come from the ``gilbench_tables``
declarations the case modules put there, so a new family needs no change
here.  One subpackage per concern: ``data`` (loader -> records,
lookups), ``kinds`` (one module per cell kind), ``numbers`` (intervals,
fits, wording), ``tables`` (pivot, findings, listings, layout: Tables of
structured Cells), ``pages`` (render: text, escaping, templates; html
and plots, whose SVG svgtrim makes smaller) and ``commands`` (report,
compare, refine).
"""
