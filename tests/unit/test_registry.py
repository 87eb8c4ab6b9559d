import json
import os
import sys
from collections import OrderedDict

import fake_cases
import model_cases
import pytest
from helpers import FIXTURES, TESTS

from gilbench.errors import UsageError
from gilbench.model import modules, registry
from gilbench.runner.run import availability

FAKE_PATH = os.path.join(FIXTURES, "fake_cases.py")
MODEL_PATH = os.path.join(FIXTURES, "model_cases.py")


@pytest.fixture(autouse=True)
def _keep_sys_path(restore_sys_path):
    """Loading a .py path prepends its directory to sys.path: undo it."""


def load_fake(threads="1,2", quick=False, patterns=None):
    params = {"threads": threads} if threads else {}
    selection = registry.Selection(quick=quick, params=params)
    return registry.load(["fake_cases"], selection, patterns)


def load_model(patterns=None, quick=False, **params):
    selection = registry.Selection(quick=quick, params=params)
    return registry.load(["model_cases"], selection, patterns)


def test_expansion_order_is_spec_order_then_threads_ascending():
    names = [b.name for b in load_fake("3,1,2")]
    expected = ["%s/t%d" % (base, t)
                for base in fake_cases.BASE_NAMES for t in (1, 2, 3)]
    assert names == expected


def test_expansion_is_deterministic():
    first = [b.name for b in load_fake("1-4")]
    assert first == [b.name for b in load_fake("1-4")]
    assert len(first) == len(fake_cases.BASE_NAMES) * 4


def test_default_and_quick_profiles_of_the_threads_axis():
    default = registry.load(["fake_cases"])
    quick = registry.load(["fake_cases"], registry.Selection(quick=True))
    assert sorted(set(b.params["threads"] for b in default)) == [1, 2, 3, 4,
                                                                 5]
    assert sorted(set(b.params["threads"] for b in quick)) == [1, 2]


def test_cross_product_last_axis_fastest_and_constraint_kept_as_na():
    grid = load_model(["model.grid*"], threads="1,2")
    assert [b.name for b in grid] == [
        "model.grid.v.python[kind=%s,hold_ms=%s]/t%d" % (k, h, t)
        for k in ("mutex", "spin") for h in ("0.5", "2.0") for t in (1, 2)]
    excluded = [b for b in grid if b.excluded]
    assert [(b.params["kind"], b.params["hold_ms"]) for b in excluded] == [
        ("spin", 0.5), ("spin", 0.5)]
    assert all(b.excluded == "n/a: " + model_cases.EXCLUDED_REASON
               for b in excluded)
    # Recorded as not applicable by the run, not silently dropped.
    missing = availability(grid)
    assert sorted(missing) == sorted(b.name for b in excluded)


def test_a_case_declaring_interruptions_says_so_in_its_metadata():
    spec = registry.CaseSpec("f", "c", "v", "b", lambda p: None, "d",
                             outliers=registry.resultformat.INTERRUPTIONS)
    declared = registry.Benchmark(spec, OrderedDict(threads=1),
                                  registry.Declared())
    plain = registry.Benchmark(
        registry.CaseSpec("f", "c", "v", "b", lambda p: None, "d"),
        OrderedDict(threads=1), registry.Declared())
    assert declared.metadata()["gilbench_outliers"] == "interruptions"
    assert "gilbench_outliers" not in plain.metadata()


def test_every_axis_is_its_own_typed_metadata_key():
    bench = load_model(["model.grid*"], threads="4", kind="spin",
                       hold_ms="2.0")[0]
    meta = bench.metadata()
    assert meta["threads"] == 4 and type(meta["threads"]) is int
    assert meta["kind"] == "spin"
    assert meta["hold_ms"] == 2.0 and type(meta["hold_ms"]) is float
    assert json.loads(meta["gilbench_axes"]) == [
        {"name": "kind", "unit": "", "log": False},
        {"name": "hold_ms", "unit": "ms", "log": True},
        {"name": "threads", "unit": "threads", "log": False}]
    assert meta["family"] == "model" and meta["case"] == "grid"
    assert meta["driver"] == "threads"
    assert meta["ops_per_loop"] == meta["concurrency"] == 4
    assert meta["gilbench_format"] == 2
    assert all(isinstance(v, (str, int, float)) for v in meta.values())


def test_tables_travel_in_metadata_and_without_tables_no_key(tmp_path):
    bench = load_fake("2")[0]
    assert json.loads(bench.metadata()["gilbench_tables"]) == json.loads(
        json.dumps(fake_cases.TABLES))
    path = tmp_path / "no_table_cases_for_registry.py"
    path.write_text(
        "from gilbench.api import CaseSpec\n"
        "CASES = [CaseSpec('nr', 'c', 'v', 'b', lambda p: None, 'd')]\n")
    (bench,) = registry.load([str(path)],
                             registry.Selection(params={"threads": "1"}))
    assert "gilbench_tables" not in bench.metadata()
    assert bench.name == "nr.c.v.b/t1"


def test_custom_driver_has_no_count_axis_and_needs_value_means():
    (bench,) = load_model(["model.meta*"], quick=True)
    assert bench.name == "model.meta.v.python[size=1]"
    meta = bench.metadata()
    assert "threads" not in meta and meta["driver"] == "custom"
    assert meta["ops_per_loop"] == 1 and meta["concurrency"] == 1
    with pytest.raises(UsageError, match="value_means"):
        registry.CaseSpec("f", "c", "v", "b", lambda p: None, "d",
                          driver="custom")


def test_processes_driver_names_and_default_axis():
    benchmarks = load_model(["model.window*"])
    assert [b.name for b in benchmarks] == [
        "model.window.v.python/p%d" % n for n in (1, 2, 3, 4)]
    assert benchmarks[1].metadata()["concurrency"] == 2


@pytest.mark.parametrize("kwargs, message", [
    (dict(axes=[registry.axes_module.Axis("loops", [1])]), "reserved"),
    (dict(axes=[registry.axes_module.Axis("k", [1]),
                registry.axes_module.Axis("k", [2])]), "twice"),
    (dict(driver="fibres"), "driver"),
    (dict(outliers="slow ones"), "outliers must be None or 'interruptions'"),
])
def test_bad_declarations_are_refused(kwargs, message):
    with pytest.raises(UsageError, match=message):
        registry.CaseSpec("f", "c", "v", "b", lambda p: None, "d", **kwargs)


def test_param_narrows_cases_that_have_the_axis_only():
    benchmarks = registry.load(
        ["model_cases", "fake_cases"],
        registry.Selection(params={"kind": "spin", "threads": "1"}))
    grid = [b for b in benchmarks if b.spec.case == "grid"]
    assert set(b.params["kind"] for b in grid) == {"spin"}
    assert any(b.spec.family == "fake" for b in benchmarks)


@pytest.mark.parametrize("params, message", [
    ({"colour": "red"}, "unknown axis 'colour'"),
    ({"kind": "ticket"}, "no case declares 'ticket'"),
    ({"hold_ms": "fast"}, "'fast' is not a number"),
    ({"threads": "two"}, "'two' is not a whole number"),
    ({"threads": "0"}, "below 1"),
    ({"threads": "3-1"}, "backwards"),
    ({"threads": "1,,2"}, "empty value"),
    ({"hold_ms": "nan"}, "not finite"),
])
def test_bad_params_are_usage_errors(params, message):
    with pytest.raises(UsageError, match=message):
        load_model(**params)


def test_open_axis_takes_undeclared_counts_closed_axis_does_not():
    assert [b.params["threads"] for b in load_fake("7")][:1] == [7]
    with pytest.raises(UsageError):
        load_model(hold_ms="1.0")


def test_params_round_trip_through_the_child_command_line():
    bench = load_model(["model.grid*"], threads="3", kind="spin",
                       hold_ms="2.0")[0]
    decoded = registry.decode_params(bench.spec,
                                     registry.encode_params(bench.params))
    assert decoded == bench.params and isinstance(decoded, OrderedDict)
    assert list(decoded) == ["kind", "hold_ms", "threads"]
    with pytest.raises(UsageError):
        registry.decode_params(bench.spec, '{"kind": "spin"}')


def test_select_glob_matches_base_name_at_every_thread_count():
    selected = load_fake(patterns=["fake.alpha.*"])
    assert [b.name for b in selected] == [
        "fake.alpha.on.python/t1", "fake.alpha.on.python/t2",
        "fake.alpha.off.python/t1", "fake.alpha.off.python/t2"]


def test_select_exact_names_with_brackets_are_not_globs():
    name = "model.grid.v.python[kind=spin,hold_ms=2.0]/t2"
    (bench,) = load_model([name], threads="1,2")
    assert bench.name == name
    selected = load_model(["model.grid.v.python[kind=spin,hold_ms=2.0]"],
                          threads="1,2")
    assert [b.params["threads"] for b in selected] == [1, 2]


def test_select_several_patterns_keeps_registry_order_without_duplicates():
    selected = load_fake("1", patterns=["fake.beta.*", "*.python",
                                        "fake.beta.*"])
    assert [b.name for b in selected] == [
        "fake.alpha.on.python/t1", "fake.alpha.off.python/t1",
        "fake.beta.on.widget/t1", "fake.beta.off.python/t1"]


@pytest.mark.parametrize("patterns", [["nosuch"], ["fake.alpha.*", "zzz*"],
                                      ["fake.alpha.on.python/t9"],
                                      ["FAKE.*"]])
def test_unknown_glob_is_a_usage_error(patterns):
    with pytest.raises(UsageError, match="unknown case"):
        load_fake("1,2", patterns=patterns)


def test_case_outside_the_quick_profile_says_so():
    with pytest.raises(UsageError, match="quick profile"):
        load_fake(None, quick=True, patterns=["fake.alpha.on.python/t4"])


def test_duplicate_names_across_modules_are_a_usage_error():
    with pytest.raises(UsageError, match="fake.alpha.on.python"):
        registry.load(["fake_cases", "fake_cases"])


def test_module_given_as_py_path_and_relative_path(monkeypatch):
    by_path = registry.load([FAKE_PATH])
    assert by_path[0].name == "fake.alpha.on.python/t1"
    monkeypatch.chdir(os.path.dirname(TESTS))
    relative = registry.load(
        [os.path.join("tests", "fixtures", "fake_cases.py")])
    assert [b.name for b in relative] == [b.name for b in by_path]


def test_py_path_named_like_an_imported_module_loads_that_file(tmp_path):
    assert "json" in sys.modules
    path = tmp_path / "json.py"
    path.write_text(
        "from gilbench.api import CaseSpec\n"
        "CASES = [CaseSpec('shadow', 'c', 'v', 'b', lambda p: None, 'd')]\n")
    benchmarks = registry.load([str(path)],
                               registry.Selection(params={"threads": "1"}))
    assert [b.name for b in benchmarks] == ["shadow.c.v.b/t1"]


@pytest.mark.parametrize("name", [
    "no_such_case_module_xyz", "no_such_package_xyz.cases",
    os.path.join("no", "such", "dir", "cases.py"), "missing_file_xyz.py"])
def test_nonexistent_module_is_a_usage_error(name):
    with pytest.raises(UsageError):
        registry.load([name])


@pytest.mark.parametrize("body", ["CASES = ()\n", "CASES = [1]\n",
                                  "raise ValueError('at import')\n"])
def test_bad_case_modules_are_usage_errors(tmp_path, body):
    path = tmp_path / "bad_cases_for_registry.py"
    path.write_text(body)
    with pytest.raises(UsageError):
        registry.load([str(path)])


def test_default_module_names_and_load():
    names = modules.default_module_names()
    assert "gilbench.cases.gil" in names and names == sorted(names)
    assert all(n.startswith("gilbench.cases.")
               and not n.startswith("gilbench.cases._") for n in names)
    assert [b.name for b in registry.load(None)] == [
        b.name for b in registry.load(names)]


def test_availability_reports_each_refused_benchmark():
    missing = availability(load_fake("1,2"))
    assert missing == {"fake.beta.on.widget/t1": "n/a: no widget here",
                       "fake.beta.on.widget/t2": "n/a: no widget here"}


def test_name_parts_with_dots_are_refused(tmp_path):
    module = tmp_path / "dotted_cases.py"
    module.write_text(
        "from gilbench.api import CaseSpec\n"
        "CASES = [CaseSpec('fam', 'a.b', 'v', 'python', lambda p: None, "
        "'x')]\n")
    with pytest.raises(UsageError, match="'a.b'"):
        registry.load([str(module)])


def test_the_ceiling_declares_its_reference_points():
    from gilbench.cases import ceiling
    assert ceiling.REFERENCE == {
        "threads": {"case": "spin", "variant": "threads",
                    "backend": "cython"},
        "processes": {"case": "spin", "variant": "processes",
                      "backend": "cython"},
        "memory": {"threads": {"case": "stream", "variant": "threads",
                               "backend": "cython"}}}
    found = [b for b in registry.load(["gilbench.cases.ceiling"])
             if b.declared.is_reference(b.spec)]
    assert {b.spec.base_name for b in found} == {
        "ceiling.spin.threads.cython", "ceiling.spin.processes.cython",
        "ceiling.stream.threads.cython"}
    meta = found[0].metadata()
    assert json.loads(meta["gilbench_reference"]) == ceiling.REFERENCE


def test_a_module_reading_the_ceiling_brings_only_its_reference_points():
    """For the count axes the module's cases use (threads here), at the
    selection's counts; the whole ceiling family when a glob names it."""
    path = os.path.join(FIXTURES, "ceiling_user_cases.py")
    selection = registry.Selection(params={"threads": "1,2"})
    names = [b.name for b in registry.load([path], selection)]
    assert names == ["usersum.sum.v.python/t1", "usersum.sum.v.python/t2",
                     "ceiling.spin.threads.cython/t1",
                     "ceiling.spin.threads.cython/t2",
                     "ceiling.stream.threads.cython/t1",
                     "ceiling.stream.threads.cython/t2"]
    everything = registry.load([path], selection, ["usersum.*", "ceiling.*"])
    assert "ceiling.spin.threads.cffi/t1" in [b.name for b in everything]


@pytest.mark.parametrize("body, message", [
    ("REFERENCE = [1]\n", "REFERENCE must be"),
    ("REFERENCE = {'workers': {'case': 'x'}}\n", "per count axis"),
    ("REFERENCE = {'threads': {'family': 'x'}}\n", "a dict of case"),
    ("REFERENCE = {'memory': [1]}\n", "memory=...\\): a dict of count"),
    ("REFERENCE = {'memory': {'workers': {'case': 'x'}}}\n",
     "per count axis"),
])
def test_bad_reference_declarations_are_refused(tmp_path, body, message):
    path = tmp_path / "bad_reference_cases.py"
    path.write_text("from gilbench.api import CaseSpec\n"
                    "CASES = [CaseSpec('ref', 'c', 'v', 'python', "
                    "lambda params: (lambda loops: None), 'x')]\n" + body)
    with pytest.raises(UsageError, match=message):
        registry.load([str(path)])
