"""Report side (Python >= 3.9): tables and pages rendered from result JSON.

Reads only pyperf JSON written by ``python -m harness run``; what to divide
by what comes from the ``gilbench_ratios`` metadata the case modules put
there, so a new family needs no change here.
"""
