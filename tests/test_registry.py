import json
import os
import sys

import pytest

import fake_cases
from helpers import TESTS
from harness import registry
from harness.errors import UsageError
from harness.run import availability
from harness.threadspec import parse_threads

FAKE_PATH = os.path.join(TESTS, "fake_cases.py")


@pytest.fixture(autouse=True)
def _keep_sys_path(restore_sys_path):
    """Loading a .py path prepends its directory to sys.path: undo it."""


def load_fake(spec="1,2"):
    return registry.load(["fake_cases"], parse_threads(spec))


def test_expansion_order_is_spec_order_then_threads_ascending():
    names = [b.name for b in load_fake("3,1,2")]
    expected = ["%s/t%d" % (base, t)
                for base in fake_cases.BASE_NAMES for t in (1, 2, 3)]
    assert names == expected


def test_expansion_is_deterministic():
    first = [b.name for b in load_fake("1-4")]
    second = [b.name for b in load_fake("1-4")]
    assert first == second
    assert len(first) == len(fake_cases.BASE_NAMES) * 4


def test_benchmark_carries_its_spec_and_thread_count():
    benchmarks = load_fake("2,5")
    assert [b.threads for b in benchmarks[:2]] == [2, 5]
    assert benchmarks[0].spec is fake_cases.CASES[0]
    assert benchmarks[2].spec is fake_cases.CASES[1]


def test_names_are_family_case_variant_backend_slash_threads():
    bench = load_fake("4")[2]
    assert bench.name == "fake.beta.on.widget/t4"
    assert bench.spec.base_name == "fake.beta.on.widget"


def test_metadata_is_exactly_keyed():
    bench = registry.find(load_fake("1,3"), "fake.alpha.off.python/t3")
    meta = bench.metadata()
    assert set(meta) == {"family", "case", "variant", "backend", "threads",
                         "value_means", "description", "gilbench_ratios"}
    assert meta["family"] == "fake"
    assert meta["case"] == "alpha"
    assert meta["variant"] == "off"
    assert meta["backend"] == "python"
    assert meta["threads"] == 3 and type(meta["threads"]) is int
    assert meta["value_means"] == registry.THREADED_VALUE_MEANS
    assert meta["description"] == "alpha, off"
    # Every value must be something pyperf accepts as metadata.
    assert all(isinstance(v, (str, int, float)) for v in meta.values())


def test_metadata_ratios_round_trip_and_custom_value_means():
    bench = registry.find(load_fake("2"), "fake.beta.off.python/t2")
    meta = bench.metadata()
    assert meta["value_means"] == fake_cases.CUSTOM_VALUE_MEANS
    assert json.loads(meta["gilbench_ratios"]) == fake_cases.RATIOS
    assert json.loads(meta["gilbench_ratios"])[0]["fallback"] == {
        "backend": "python"}


def test_metadata_without_ratios_has_no_ratio_key(tmp_path):
    path = tmp_path / "no_ratio_cases_for_registry.py"
    path.write_text(
        "from harness.registry import CaseSpec\n"
        "CASES = [CaseSpec('nr', 'c', 'v', 'b', lambda: None, 'd')]\n")
    (bench,) = registry.load([str(path)], [1])
    assert "gilbench_ratios" not in bench.metadata()
    assert bench.name == "nr.c.v.b/t1"


def test_ratio_declaration_defaults():
    declared = registry.ratio("t", over="case", numerator="a",
                              denominator="b")
    assert declared == {"title": "t", "over": "case", "numerator": "a",
                        "denominator": "b", "fallback": {}, "note": ""}


def test_select_without_patterns_keeps_everything_in_order():
    benchmarks = load_fake("1,2")
    assert registry.select(benchmarks, None) == benchmarks
    assert registry.select(benchmarks, []) == benchmarks


def test_select_glob_matches_base_name_at_every_thread_count():
    selected = registry.select(load_fake("1,2"), ["fake.alpha.*"])
    assert [b.name for b in selected] == [
        "fake.alpha.on.python/t1", "fake.alpha.on.python/t2",
        "fake.alpha.off.python/t1", "fake.alpha.off.python/t2"]


def test_select_exact_base_name():
    selected = registry.select(load_fake("1,2"), ["fake.beta.off.python"])
    assert [b.name for b in selected] == ["fake.beta.off.python/t1",
                                          "fake.beta.off.python/t2"]


def test_select_glob_matches_full_name():
    selected = registry.select(load_fake("1,2,3"), ["*/t2"])
    assert [b.name for b in selected] == [
        base + "/t2" for base in fake_cases.BASE_NAMES]
    selected = registry.select(load_fake("1,2"), ["fake.alpha.on.python/t1"])
    assert [b.name for b in selected] == ["fake.alpha.on.python/t1"]


def test_select_several_patterns_keeps_registry_order_without_duplicates():
    selected = registry.select(load_fake("1"),
                               ["fake.beta.*", "*.python", "fake.beta.*"])
    assert [b.name for b in selected] == [
        "fake.alpha.on.python/t1", "fake.alpha.off.python/t1",
        "fake.beta.on.widget/t1", "fake.beta.off.python/t1"]


@pytest.mark.parametrize("patterns", [["nosuch"], ["fake.alpha.*", "zzz*"],
                                      ["fake.alpha.on.python/t9"],
                                      ["FAKE.*"]])
def test_unknown_glob_is_a_usage_error(patterns):
    with pytest.raises(UsageError) as info:
        registry.select(load_fake("1,2"), patterns)
    assert "unknown case" in str(info.value)


def test_find_exact_name_and_unknown():
    benchmarks = load_fake("1,2")
    assert registry.find(benchmarks, "fake.beta.on.widget/t2").threads == 2
    with pytest.raises(UsageError):
        registry.find(benchmarks, "fake.beta.on.widget")


def test_duplicate_names_across_modules_are_a_usage_error():
    with pytest.raises(UsageError) as info:
        registry.load(["fake_cases", "fake_cases"], [1])
    assert "fake.alpha.on.python/t1" in str(info.value)


def test_duplicate_names_within_a_module_are_a_usage_error(tmp_path):
    path = tmp_path / "dup_cases_for_registry.py"
    path.write_text(
        "from harness.registry import CaseSpec\n"
        "CASES = [CaseSpec('d', 'c', 'v', 'b', lambda: None, 'one'),\n"
        "         CaseSpec('d', 'c', 'v', 'b', lambda: None, 'two')]\n")
    with pytest.raises(UsageError) as info:
        registry.load([str(path)], [1, 2])
    assert "d.c.v.b/t1" in str(info.value)


def test_module_given_as_py_path():
    by_path = registry.load([FAKE_PATH], [1])
    assert [b.name for b in by_path] == [
        base + "/t1" for base in fake_cases.BASE_NAMES]


def test_module_given_as_relative_py_path(monkeypatch):
    monkeypatch.chdir(os.path.dirname(TESTS))
    benchmarks = registry.load([os.path.join("tests", "fake_cases.py")], [2])
    assert benchmarks[0].name == "fake.alpha.on.python/t2"


def test_py_path_named_like_an_imported_module_loads_that_file(tmp_path):
    """BUG: harness/registry.py _import_module imports a .py path by its
    bare file name, so a case file whose name is already in sys.modules
    (here json.py; also any second file with the same name in another
    directory) silently resolves to the other module instead of the file."""
    assert "json" in sys.modules
    path = tmp_path / "json.py"
    path.write_text(
        "from harness.registry import CaseSpec\n"
        "CASES = [CaseSpec('shadow', 'c', 'v', 'b', lambda: None, 'd')]\n")
    benchmarks = registry.load([str(path)], [1])
    assert [b.name for b in benchmarks] == ["shadow.c.v.b/t1"]


@pytest.mark.parametrize("name", [
    "no_such_case_module_xyz", "no_such_package_xyz.cases",
    os.path.join("no", "such", "dir", "cases.py"), "missing_file_xyz.py"])
def test_nonexistent_module_is_a_usage_error(name):
    with pytest.raises(UsageError):
        registry.load([name], [1])


def test_module_without_cases_list_is_a_usage_error(tmp_path):
    path = tmp_path / "tuple_cases_for_registry.py"
    path.write_text("CASES = ()\n")
    with pytest.raises(UsageError) as info:
        registry.load([str(path)], [1])
    assert "CASES" in str(info.value)


def test_default_module_names():
    names = registry.default_module_names()
    assert "cases.gil" in names
    assert names == sorted(names)
    assert all(n.startswith("cases.") and not n.startswith("cases._")
               for n in names)


def test_default_load_is_the_cases_package():
    benchmarks = registry.load(None, [1])
    assert benchmarks
    assert {b.spec.family for b in benchmarks} >= {"gil"}
    assert [b.name for b in benchmarks] == [
        b.name for b in registry.load(registry.default_module_names(), [1])]


def test_availability_reports_unavailable_specs_once():
    missing = availability(load_fake("1,2,3"))
    assert missing == {"fake.beta.on.widget": "n/a: no widget here"}


def test_list_command_shows_unavailable_reason(harness):
    result = harness("list", "--module", FAKE_PATH, "--threads", "1,2")
    assert result.code == 0, result
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == fake_cases.BASE_NAMES
    by_name = {line.split()[0]: line for line in lines}
    assert "n/a: no widget here" in by_name["fake.beta.on.widget"]
    assert " ok " in by_name["fake.alpha.on.python"]
    assert "n/a" not in by_name["fake.alpha.on.python"]


def test_name_parts_with_dots_are_refused(tmp_path):
    """The report splits family.case.variant.backend/tN apart again."""
    module = tmp_path / "dotted_cases.py"
    module.write_text(
        "from harness.registry import CaseSpec\n"
        "CASES = [CaseSpec('fam', 'a.b', 'v', 'python', lambda: None, 'x')]\n")
    with pytest.raises(UsageError) as info:
        registry.load([str(module)], [1])
    assert "'a.b'" in str(info.value)
