"""Each family's block-shift prior is a fit, not a choice:
variance.SHIFT_PRIOR is what bench/fit_shift_prior.py fits on the A/A
runs kept in bench/aa_shifts/ (report side, Python >= 3.9)."""
import os
import sys

import pytest
from helpers import ROOT, run_bench_script

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

from gilbench.report.numbers import variance  # noqa: E402


def fit(*extra):
    return run_bench_script("fit_shift_prior.py", *extra)


def test_the_shift_prior_is_the_fit_of_the_aa_runs_kept_in_bench():
    done = fit("--check")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("SHIFT_PRIOR = ")
    assert sorted(variance.SHIFT_PRIOR) == [
        "ceiling", "executor", "gil", "grwl", "lock", "pyops", "service"]
    assert all(sd > 0 and df >= 6
               for sd, df in variance.SHIFT_PRIOR.values())


def test_the_check_fails_on_runs_whose_shifts_differ(tmp_path):
    """One run whose second block is a fifth slower in every family: its
    shifts are not the kept ones, and --check says so."""
    import gzip
    import json
    kept = os.path.join(ROOT, "bench", "aa_shifts", "3.11")
    name = sorted(os.listdir(kept))[0]
    with gzip.open(os.path.join(kept, name), "rt") as stream:
        suite = json.load(stream)
    for bench in suite["benchmarks"]:
        measured = [run for run in bench["runs"] if run.get("values")]
        for run in measured[1:2]:
            run["values"] = [v * 1.2 for v in run["values"]]
    with open(str(tmp_path / name.replace(".gz", "")), "w") as stream:
        json.dump(suite, stream)
    done = fit("--runs", str(tmp_path), "--check")
    assert done.returncode == 1
    assert "variance.SHIFT_PRIOR is not this fit" in done.stderr
