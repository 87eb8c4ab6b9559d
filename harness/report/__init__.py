"""Report side (Python >= 3.9): tables and pages rendered from result JSON.

Reads only pyperf JSON written by ``gilbench run`` (format 2, see
gilbench.model.resultformat); the tables come from the ``gilbench_tables``
declarations the case modules put there, so a new family needs no change
here.  loader -> records (model) -> pivot/kinds/listings -> Tables of
structured Cells -> layout (a declaration's tables under one heading, a
table without a value as one line) -> render (text, escaping, templates;
html and plots, whose SVG svgtrim makes smaller).
"""
