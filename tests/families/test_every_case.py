"""Every registered case of every family, once, in the quick profile with
the smallest pyperf settings: each benchmark is measured or n/a with a
reason -- none failed, hung, or went unexercised -- and the declared
tables of every family render."""
import json

import pyperf
import pytest
from helpers import MINIMAL_PYPERF, run_harness


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    listing = run_harness("list", "--json", "--quick")
    assert listing.code == 0, listing
    cases = json.loads(listing.stdout)["cases"]
    output = tmp_path_factory.mktemp("every_case") / "quick.json"
    result = run_harness("run", "--quick", "-o", output, "--timeout", "60",
                         *MINIMAL_PYPERF, timeout=600)
    return cases, result, output


def test_no_benchmark_failed_or_hung(quick_run):
    _, result, _ = quick_run
    assert result.code == 0, result
    assert " 0 failed" in result.stdout, result


def test_every_listed_benchmark_is_measured_or_na(quick_run):
    cases, _, output = quick_run
    suite = pyperf.BenchmarkSuite.load(str(output))
    common = suite.get_benchmarks()[0].get_metadata()
    entries = json.loads(common.get("gilbench_missing", "[]"))
    assert all(e["reason"].startswith("n/a: ") for e in entries), entries
    listed_na = {e["name"] for case in cases for e in case["not_runnable"]}
    assert listed_na <= {e["name"] for e in entries}
    # Counted by metadata, never by splitting names.
    per_case = {}
    metadatas = [b.get_metadata() for b in suite.get_benchmarks()]
    for meta in metadatas + [e["metadata"] for e in entries]:
        key = ".".join(meta[k] for k in ("family", "case", "variant",
                                         "backend"))
        per_case[key] = per_case.get(key, 0) + 1
    assert per_case == {case["name"]: case["benchmarks"] for case in cases}


@pytest.mark.e2e
def test_every_family_renders(quick_run, tmp_path):
    _, _, output = quick_run
    result = run_harness("report", output, "-o", tmp_path / "r.rst")
    assert result.code == 0, result
