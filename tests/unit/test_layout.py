"""Which modules a forked worker forgets, to import them again at a layout
of its own (gilbench.measure.layout): the case module and the pure-Python
modules beside it, never a package, an extension or gilbench's harness."""
import os
import sys
import types

import pytest

from gilbench.measure import forking, layout
from gilbench.model import modules


def _module(name, path, package=False):
    module = types.ModuleType(name)
    module.__file__ = path
    if package:
        module.__path__ = [os.path.dirname(path)]
    return module


@pytest.fixture
def loaded(monkeypatch, tmp_path):
    """A private sys.modules holding a user's package ``mine`` (cases,
    helpers, a C extension), a case file ``bench/cases.py`` with a helper
    beside it, and a harness module taken as a case module."""
    found = dict(sys.modules)
    pkg = str(tmp_path / "mine")
    bench = str(tmp_path / "bench")
    measure = os.path.dirname(layout.__file__)
    for module in [
            _module("mine", os.path.join(pkg, "__init__.py"), package=True),
            _module("mine.cases", os.path.join(pkg, "cases.py")),
            _module("mine.helpers", os.path.join(pkg, "helpers.pyc")),
            _module("mine._core", os.path.join(pkg, "_core.so")),
            _module("mine.sub", os.path.join(pkg, "sub", "__init__.py"),
                    package=True),
            _module(modules.loaded_name(os.path.join(bench, "cases.py")),
                    os.path.join(bench, "cases.py")),
            _module("bench_helpers", os.path.join(bench, "bench_helpers.py")),
            _module("gilbench.measure.fakecase",
                    os.path.join(measure, "fakecase.py"))]:
        found[module.__name__] = module
    monkeypatch.setattr(sys, "modules", found)
    return found


def test_a_packages_case_module_and_its_pure_python_siblings(loaded):
    forgotten = layout.forget(["mine.cases"])
    assert sorted(forgotten) == ["mine.cases", "mine.helpers"]
    for kept in ("mine", "mine._core", "mine.sub", "bench_helpers"):
        assert kept in loaded


def test_a_case_files_directory(loaded, tmp_path):
    path = str(tmp_path / "bench" / "cases.py")
    forgotten = layout.forget([path])
    assert sorted(forgotten) == sorted(["bench_helpers",
                                        modules.loaded_name(path)])
    assert "mine.cases" in loaded


def test_a_harness_case_module_alone(loaded):
    assert layout.forget(["gilbench.measure.fakecase"]) == [
        "gilbench.measure.fakecase"]
    assert forking.__name__ in loaded and layout.__name__ in loaded


def test_nothing_named_nothing_forgotten(loaded):
    before = set(loaded)
    assert layout.forget(None) == []
    assert layout.forget(["not.imported"]) == []
    assert set(loaded) == before


def test_a_worker_that_did_not_renew_records_nothing(monkeypatch):
    monkeypatch.setattr(layout, "_renewed", [])
    assert layout.facts() == {}
