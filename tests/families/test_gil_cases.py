"""Every GIL-family case, once, through the real CLI on this interpreter.

One ``python -m gilbench run`` (module-scoped) at threads 1 and 2.  Loops
are calibrated by pyperf (no -l) with a 50 ms minimum per value so that the
CPU utilisation of the timed region is measurable.
"""
import json

import pyperf
import pytest
from helpers import run_harness, run_module

from gilbench.model import drivers, registry

THREADS = (1, 2)
PYPERF_OPTIONS = ["-p", "1", "-n", "1", "-w", "0", "--min-time", "0.05"]
REQUIRED_METADATA = ("family", "case", "variant", "backend", "threads",
                     "value_means", "python_gil", "cpus_usable")


def registered_cases():
    """Cases as `python -m gilbench list --json` gives them, all runnable."""
    listing = run_harness("list", "--json", "--threads", "1,2", "--case",
                          "gil.*")
    assert listing.code == 0, listing
    cases = json.loads(listing.stdout)["cases"]
    not_ok = {c["name"]: c["not_runnable"] for c in cases
              if c["not_runnable"]}
    assert not not_ok, "cases that cannot run here: %r" % (not_ok,)
    return cases


@pytest.fixture(scope="module")
def expected_names():
    cases = registered_cases()
    bases = [case["name"] for case in cases]
    # The list command and the registry agree on what is registered.
    selection = registry.Selection(params={"threads": "1,2"})
    benchmarks = registry.load(None, selection, ["gil.*"])
    assert bases == [s.base_name for s in registry.unique_specs(benchmarks)]
    for case in cases:
        (axis,) = case["axes"]
        assert axis["name"] == "threads" and axis["values"] == [1, 2, 3, 4, 5]
        assert axis["quick"] == [1, 2] and case["benchmarks"] == 2
    return {"%s/t%d" % (base, t) for base in bases for t in THREADS}


@pytest.fixture(scope="module")
def gil_run(tmp_path_factory):
    output = tmp_path_factory.mktemp("gil_cases") / "gil.json"
    result = run_harness("run", "--case", "gil.*",
                         "--threads", ",".join(map(str, THREADS)),
                         "-o", output, *PYPERF_OPTIONS, timeout=170)
    return result, output


@pytest.fixture(scope="module")
def suite(gil_run):
    result, output = gil_run
    assert result.code == 0, result
    assert output.exists(), result
    return pyperf.BenchmarkSuite.load(str(output))


def test_run_succeeds_and_summarises(gil_run, expected_names):
    result, output = gil_run
    assert result.code == 0, result
    assert "%d of %d benchmarks written to %s; 0 n/a, 0 failed" % (
        len(expected_names), len(expected_names), output) in result.stdout
    assert "Traceback" not in result.stderr


def test_every_registered_case_was_exercised(suite, expected_names):
    names = [b.get_name() for b in suite.get_benchmarks()]
    assert len(names) == len(set(names))
    assert set(names) == expected_names, (
        "not run: %r; unexpected: %r" % (sorted(expected_names - set(names)),
                                         sorted(set(names) - expected_names)))


def test_results_are_in_registry_order(suite):
    names = [b.get_name() for b in suite.get_benchmarks()]
    selection = registry.Selection(params={"threads": "1,2"})
    assert names == [b.name for b in registry.load(None, selection,
                                                   ["gil.*"])]


def test_every_value_is_positive(suite):
    for bench in suite.get_benchmarks():
        values = bench.get_values()
        assert values, bench.get_name()
        assert all(v > 0 for v in values), bench.get_name()
        assert bench.mean() > 0


def test_metadata(suite):
    for bench in suite.get_benchmarks():
        meta = bench.get_metadata()
        missing = [k for k in REQUIRED_METADATA if k not in meta]
        assert not missing, (bench.get_name(), missing)
        base, threads = bench.get_name().split("/t")
        assert meta["threads"] == int(threads)
        assert ".".join(meta[k] for k in ("family", "case", "variant",
                                          "backend")) == base
        assert meta["value_means"] == drivers.value_means("threads")
        assert meta["ops_per_loop"] == meta["concurrency"] == meta["threads"]
        assert meta["driver"] == "threads"
        declared = json.loads(meta["gilbench_declarations"])["gil"]
        case = declared["cases"][" ".join(base.split(".")[1:])]
        assert "gilbench_axes" not in meta  # once per case, below
        assert json.loads(case["gilbench_axes"]) == [
            {"name": "threads", "unit": "threads", "log": False}]
        assert meta["python_gil"] in ("enabled", "disabled")
        assert isinstance(meta["cpus_usable"], int)
        assert meta["cpus_usable"] >= 1
        assert meta.get("unit") == "second"
        assert "gilbench_missing" not in meta
        assert "gilbench_tables" not in meta  # once per file
        tables = json.loads(declared["gilbench_tables"])
        assert [t["title"] for t in tables] == [
            "nogil/gil slowdown", "lock/trivial factor",
            "Scaling over threads",
            "Efficiency against this machine's ceiling",
            "Scalability-law fit over threads"]


def test_every_run_records_cpu_utilisation(suite):
    for bench in suite.get_benchmarks():
        runs = bench.get_runs()
        assert runs
        for run in runs:
            utilisation = run.get_metadata().get("cpu_utilisation")
            assert isinstance(utilisation, float), bench.get_name()
            assert utilisation > 0, bench.get_name()


@pytest.mark.e2e
def test_pyperf_show(gil_run, suite):
    _, output = gil_run
    result = run_module("pyperf", ["show", output])
    assert result.code == 0, result
    assert "gil.trivial.gil.cython/t1" in result.stdout


@pytest.mark.e2e
def test_pyperf_compare_to_itself(gil_run, suite):
    _, output = gil_run
    result = run_module("pyperf", ["compare_to", output, output])
    assert result.code == 0, result


@pytest.mark.e2e
def test_report_renders_the_real_result(gil_run, suite, tmp_path):
    _, output = gil_run
    out = tmp_path / "report.rst"
    result = run_harness("report", output, "-o", out)
    assert result.code == 0, result
    from gilbench.report.pages import render
    text = out.read_text(encoding="utf-8")
    assert render.rst_problems(text) == ""
    assert "nogil/gil slowdown: case=trivial, backend=cffi" in text
