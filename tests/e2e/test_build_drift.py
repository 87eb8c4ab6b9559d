"""The cross-build answers' drift is a fit, not a choice: builds.DRIFT
is what bench/fit_build_drift.py fits on the A/A runs kept in bench/aa/
(report side, Python >= 3.9)."""
import os
import sys

import pytest
from helpers import ROOT, run_bench_script

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

from gilbench.report.tables import builds  # noqa: E402


def fit(*extra):
    return run_bench_script("fit_build_drift.py", *extra)


def test_the_drift_is_the_fit_of_the_aa_runs_kept_in_bench():
    done = fit("--check")
    assert done.returncode == 0, done.stderr
    fitted = done.stdout.splitlines()[-1]
    assert fitted == "DRIFT = %r" % (builds.DRIFT,)
    assert all(sd > 0 for sd in builds.DRIFT.values())


def test_the_check_fails_on_runs_whose_fit_differs(tmp_path):
    """Two runs of which one is the other scaled by a fifth: their drift
    is not the kept one, and --check says so."""
    import gzip
    import json
    kept = os.path.join(ROOT, "bench", "aa", "3.11")
    names = sorted(os.listdir(kept))[:2]
    for k, name in enumerate(names):
        with gzip.open(os.path.join(kept, name), "rt") as stream:
            suite = json.load(stream)
        for bench in suite["benchmarks"]:
            for run in bench["runs"]:
                if k and "values" in run:
                    run["values"] = [v * 1.2 for v in run["values"]]
        with open(str(tmp_path / name.replace(".gz", "")), "w") as stream:
            json.dump(suite, stream)
    done = fit("--runs", str(tmp_path), "--check")
    assert done.returncode == 1
    assert "builds.DRIFT is not this fit" in done.stderr
