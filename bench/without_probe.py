"""Another bench script with the report's machine-probe covariate off.

Usage: python bench/without_probe.py SCRIPT [ARGS...]
e.g.   python bench/without_probe.py bench/decided.py results/

Runs SCRIPT (bench/coverage.py, bench/decided.py...) in this process
with gilbench.report.numbers.variance fitting no probe slope, as files
written before ``machine_probe_ns`` are fitted: the same result files
read with and without the covariate, so the difference is the method's
alone (the figures in docs/reading.rst, "Intervals", were made so).
"""
import os
import runpy
import sys


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: python bench/without_probe.py SCRIPT "
                         "[ARGS...]\n")
        return 2
    from gilbench.report.numbers import variance
    variance.MIN_SLOPE_DF = float("inf")  # no family has enough for a slope
    script = sys.argv[1]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    sys.argv = sys.argv[1:]
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
