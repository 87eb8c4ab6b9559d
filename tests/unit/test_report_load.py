"""Report side (Python >= 3.9): loading format-2 result files into
records, interpreter labels and order, and refusing other files."""
import json
import os
import sys

import pytest
from helpers import (
    FIXTURES,
    assert_one_line_usage_error,
    benchmark_metadata,
    dims,
    gil,
    gil_tables,
    missing_entry,
    run_metadata,
    write_result,
)

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

import pyperf  # noqa: E402

from gilbench.errors import UsageError  # noqa: E402
from gilbench.model.tables import table, value  # noqa: E402
from gilbench.report.data import loader  # noqa: E402


def load(path):
    return loader.load_results([str(path)])


def test_results_are_in_interpreter_version_order(tmp_path):
    write_result(tmp_path, "b_py27.json", "2.7.18")
    write_result(tmp_path, "a_py39.json", "3.9.18")
    results = load(tmp_path)
    assert [r.interpreter for r in results] == ["CPython 2.7", "CPython 3.9"]
    assert results[0].path.endswith("b_py27.json")
    assert results[0].tables == {"gil": json.loads(json.dumps(gil_tables()))}
    assert results[0].axes == {"gil": {"threads": {
        "name": "threads", "unit": "threads", "log": False}}}


FREE = {"py_gil_disabled_build": 1, "python_gil": "disabled"}
FREE_GIL_ON = {"py_gil_disabled_build": 1, "python_gil": "enabled"}


def test_interpreter_order_and_labels(tmp_path):
    versions = [("f1.json", "3.13.1", "cpython", FREE),
                ("f2.json", "3.10.4", "cpython", {}),
                ("f3.json", "3.9.18", "pypy", {}),
                ("f4.json", "3.14.0", "cpython", {}),
                ("f5.json", "3.13.1", "cpython", FREE_GIL_ON),
                ("f6.json", "3.13.1", "cpython", {"python_gil": "enabled",
                                                  "py_gil_disabled_build": 0}),
                ("f7.json", "2.7.18", "cpython", {}),
                ("f8.json", "3.9.18", "cpython", {})]
    for filename, version, impl, extra in versions:
        write_result(tmp_path, filename, version, implementation=impl,
                     extra=extra)
    labels = [r.interpreter for r in load(tmp_path)]
    assert labels == ["CPython 2.7", "CPython 3.9", "PyPy 3.9",
                      "CPython 3.10", "CPython 3.13", "CPython 3.13t",
                      "CPython 3.13t (GIL on)", "CPython 3.14"]


def test_pypy_version_is_its_python_version(tmp_path):
    write_result(tmp_path, "pypy.json", "PyPy 7.3.11 (Python 3.9.16)",
                 implementation="pypy")
    assert [r.interpreter for r in load(tmp_path)] == ["PyPy 3.9"]


def test_same_interpreter_twice_is_told_apart_by_file_name(tmp_path):
    first = write_result(tmp_path / "x", "laptop.json", "3.9.1")
    second = write_result(tmp_path / "y", "server.json", "3.9.2")
    results = loader.load_results([str(first), str(second)])
    labels = sorted(r.interpreter for r in results)
    assert labels == ["CPython 3.9 (laptop)", "CPython 3.9 (server)"]
    # Records carry the final label as their interpreter dimension.
    assert {r.records[0].dims["interpreter"] for r in results} == set(labels)


def test_records_from_measured_and_missing_benchmarks(tmp_path):
    axes = [{"name": "threads", "unit": "threads", "log": False},
            {"name": "kind", "unit": "", "log": False},
            {"name": "cs_ns", "unit": "ns", "log": True}]
    measured = dims("lk", "c", "nogil", "cffi", threads=3, kind="spin",
                    cs_ns=100)
    lost = dict(measured, kind="mutex")
    write_result(tmp_path, "py311.json", "3.11.7",
                 [(measured, [1.39e-3, 1.39e-3], {"ops_per_loop": 30,
                                                  "concurrency": 6})],
                 missing=[(lost, "hung: killed after 600 s")], axes=axes,
                 cpus_usable=4)
    (result,) = load(tmp_path)
    first, second = result.records
    assert first.dims == {"family": "lk", "case": "c", "variant": "nogil",
                          "backend": "cffi", "threads": 3, "kind": "spin",
                          "cs_ns": 100, "interpreter": "CPython 3.11"}
    assert type(first.dims["threads"]) is int
    assert first.name == "lk.c.nogil.cffi[kind=spin,cs_ns=100]/t3"
    assert (first.mean, first.stdev, first.rsd) == (
        pytest.approx(1.39e-3), 0.0, 0.0)
    assert (first.ops_per_loop, first.concurrency, first.cpus_usable) == (
        30, 6, 4)
    assert first.oversubscribed and first.measured
    assert second.dims["kind"] == "mutex" and not second.measured
    assert second.reason == "hung: killed after 600 s"
    assert second.mean is None


def test_cpu_utilisation_is_the_mean_over_runs(tmp_path):
    metadata = benchmark_metadata(gil("trivial", "gil", "cython", 2))
    runs = []
    for utilisation, values in ((1.0, [1e-6, 1.1e-6]), (2.0, [1.2e-6])):
        meta = dict(metadata, **run_metadata("3.11.7", cpu_utilisation=(
            utilisation)))
        runs.append(pyperf.Run(values, metadata=meta,
                               collect_metadata=False))
    path = tmp_path / "py311.json"
    pyperf.BenchmarkSuite([pyperf.Benchmark(runs)]).dump(str(path))
    (record,) = load(path)[0].records
    assert record.cpu_utilisation == pytest.approx(1.5)
    assert record.mean == pytest.approx(1.1e-6)


def test_first_declaration_of_a_family_wins(tmp_path):
    mine = [table("mine", rows="threads", cell=value())]
    write_result(tmp_path, "a.json", "3.9.18", tables=mine)
    write_result(tmp_path, "b.json", "3.11.7")
    tables = {r.interpreter: r.tables["gil"] for r in load(tmp_path)}
    assert tables["CPython 3.9"] == mine


# -- refused files ------------------------------------------------------------

def format_one(path):
    """A result as gilbench wrote it before format 2."""
    run = pyperf.Run([1e-6], metadata={
        "name": "gil.trivial.gil.cython/t1", "unit": "second",
        "family": "gil", "case": "trivial", "variant": "gil",
        "backend": "cython", "threads": 1, "gilbench_ratios": "[]",
        "python_version": "3.11.7"}, collect_metadata=False)
    pyperf.BenchmarkSuite([pyperf.Benchmark([run])]).dump(str(path))
    return path


def refusal(path):
    with pytest.raises(UsageError) as error:
        load(path)
    message = str(error.value)
    assert "\n" not in message
    return message


def test_format_one_is_refused(tmp_path):
    message = refusal(format_one(tmp_path / "old.json"))
    assert "format 1" in message and "re-run" in message


def test_newer_format_is_refused(tmp_path):
    path = write_result(tmp_path, "new.json", "3.11.7",
                        extra={"gilbench_format": 99})
    message = refusal(path)
    assert "format 99" in message and "update gilbench" in message


def test_foreign_pyperf_file_is_refused(tmp_path):
    run = pyperf.Run([1e-3], metadata={"name": "timeit", "unit": "second"},
                     collect_metadata=False)
    path = tmp_path / "foreign.json"
    pyperf.BenchmarkSuite([pyperf.Benchmark([run])]).dump(str(path))
    assert "not a gilbench result" in refusal(path)


@pytest.mark.parametrize("drop", ["ops_per_loop", "concurrency", "backend",
                                  "threads"])
def test_format_two_without_a_key_is_refused(tmp_path, drop):
    metadata = dict(benchmark_metadata(gil("trivial", "gil", "cython", 1)),
                    **run_metadata("3.11.7"))
    del metadata[drop]
    run = pyperf.Run([1e-6], metadata=metadata, collect_metadata=False)
    path = tmp_path / "partial.json"
    pyperf.BenchmarkSuite([pyperf.Benchmark([run])]).dump(str(path))
    message = refusal(path)
    assert "has no %s metadata" % drop in message


@pytest.mark.parametrize("missing, problem", [
    ([{"name": "x", "reason": "n/a: y"}], "needs a name, a reason"),
    ([{"name": "x", "reason": "n/a: y", "metadata": {"family": "gil"}}],
     "has no case"),
])
def test_bad_missing_entries_are_refused(tmp_path, missing, problem):
    path = write_result(tmp_path, "py311.json", "3.11.7", missing=missing)
    assert problem in refusal(path)


def test_missing_list_that_is_not_a_list_is_refused(tmp_path):
    path = write_result(tmp_path, "py311.json", "3.11.7",
                        extra={"gilbench_missing": '{"a": "n/a: b"}'})
    assert "gilbench_missing" in refusal(path)


def test_undrawable_table_declaration_is_refused(tmp_path):
    path = write_result(tmp_path, "py311.json", "3.11.7",
                        tables=[{"title": "t", "cell": {"kind": "pie"}}])
    assert "cannot read" in refusal(path)


@pytest.mark.parametrize("which", ["old", "new"])
@pytest.mark.e2e
def test_cli_refuses_other_formats_in_one_line(harness, tmp_path, which):
    if which == "old":
        path = format_one(tmp_path / "old.json")
    else:
        path = write_result(tmp_path, "new.json", "3.11.7",
                            extra={"gilbench_format": 99})
    result = harness("report", path)
    assert_one_line_usage_error(result)
    assert "format %s" % (1 if which == "old" else 99) in result.stderr


def test_declarations_are_kept_once_per_file(tmp_path):
    """Every family's tables and findings, from measured benchmarks and
    missing entries alike, end up once in the file's common metadata;
    neither benchmarks nor entries repeat them, and every table still
    renders from the merged file."""
    from gilbench.model.resultformat import (
        DECLARATIONS_KEY,
        FINDINGS_KEY,
        MISSING_KEY,
        TABLES_KEY,
    )
    from gilbench.runner import results
    extra = {FINDINGS_KEY: json.dumps([{"question": "q?", "at": {},
                                        "cell": {"kind": "value",
                                                 "per_op": False}}])}
    measured = write_result(tmp_path / "m", "one.json", "3.11.7",
                            [(gil("trivial", "gil", "cython", n),
                              [1e-6, 1e-6]) for n in (1, 2)], extra=extra)
    entries = [missing_entry(gil("trivial", "nogil", "cython", 1), "n/a: x",
                             extra=extra),
               missing_entry(dims("other", "c", "v", "b", threads=1),
                             "n/a: y", tables=gil_tables(), extra=extra),
               missing_entry(dims("other", "c", "v", "b", threads=2),
                             "n/a: y", tables=gil_tables(), extra=extra)]
    output = str(tmp_path / "merged.json")
    assert results.merge([str(measured)], entries, output) == 2
    with open(output) as stored:
        raw = json.load(stored)
    assert set(json.loads(raw["metadata"][DECLARATIONS_KEY])) == {
        "gil", "other"}
    assert all(TABLES_KEY not in b.get("metadata", {})
               and FINDINGS_KEY not in b.get("metadata", {})
               for b in raw["benchmarks"])
    assert json.dumps(raw).count('"question"') == 0  # all inside one string
    suite = pyperf.BenchmarkSuite.load(output)
    kept = json.loads(suite.get_benchmarks()[0].get_metadata()[MISSING_KEY])
    assert not any(TABLES_KEY in e["metadata"] or FINDINGS_KEY in
                   e["metadata"] for e in kept)
    loaded = loader.load_result(output)
    assert set(loaded.tables) == {"gil", "other"}
    assert set(loaded.findings) == {"gil", "other"}
    assert loaded.tables["other"] == gil_tables()


def test_a_file_with_declarations_per_benchmark_still_loads():
    """The layout before declarations were kept once: a small file from
    a real run (tests/data), rendered by today's report."""
    from gilbench.report.pages import render
    path = os.path.join(FIXTURES, "data",
                        "per-benchmark-declarations.json")
    loaded = loader.load_result(path)
    assert {"gil", "ceiling"} <= set(loaded.tables)
    assert "gil" in loaded.findings
    page = render.render(loader.load_results([path]), "md")
    assert "nogil/gil slowdown" in page


def test_many_bytes_of_files_load_in_two_processes_as_in_one(tmp_path,
                                                             monkeypatch):
    for name, version in [("a.json", "3.9.18"), ("b.json", "3.10.4"),
                          ("c.json", "3.11.7"), ("d.json", "2.7.18")]:
        write_result(tmp_path, name, version)
    alone = load(tmp_path)
    monkeypatch.setattr(loader, "PARALLEL_FROM", 1)
    loaded_where = []
    real = loader.load_result
    monkeypatch.setattr(loader, "load_result", lambda path: (
        loaded_where.append(os.getpid()) or real(path)))
    both = load(tmp_path)
    assert both == alone
    # The child's loads are not seen here: some files were loaded there.
    assert 1 <= len(loaded_where) < 4
