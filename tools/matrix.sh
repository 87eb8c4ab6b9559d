#!/usr/bin/env bash
# The main job: set up, run the suite on every interpreter tox can reach
# (results/<env>.json; each run sizes itself, its findings judged by the
# report side between its rounds), then render results/report.rst,
# report.md and report.html.
# Extra arguments go to `python -m gilbench run` in every env, e.g.
#   bash tools/matrix.sh --threads 1,2,4 --rigorous
source "$(dirname "$0")/bootstrap.sh"
start=$(date +%s)
status=0
# The judge first: every run's rounds ask it which benchmarks an
# undecided finding still needs.
report_python=
if tox_run -e judge -q >/dev/null; then
    report_python="$GILBENCH_ROOT/.tox/report/bin/python"
    export GILBENCH_JUDGE_PYTHON="$report_python"
else
    say "no report side to judge the findings: each run is sized by its spread alone"
fi
# py313t-gil is py313t's binary with PYTHON_GIL=1 (so are 3.14t's and
# 3.15t's twins); an interpreter not found is SKIP.
tox_run -e py27,py38,py39,pypy3,py310,py311,pypy311,py312,py313,py313t,py313t-gil,py314,py314t,py314t-gil,py315,py315t,py315t-gil \
    -- "$@" || status=$?
# The judge env is the report env under another name, and tox would
# rebuild it for the name; so where it was made, it runs the report env's
# command (tox.ini, [testenv:report]): the three pages in one process.
if [ -n "$report_python" ]; then
    results="$GILBENCH_ROOT/results"
    "$report_python" -m gilbench report "$results" -o "$results/report.rst" \
        -o "$results/report.md" -o "$results/report.html" || status=$?
else
    tox_run -e report || status=$?
fi
say "matrix took $(( $(date +%s) - start )) s; see results/report.rst"
exit $status
