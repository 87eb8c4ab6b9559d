"""An import that fails in a package imported from the working directory
(a project's source tree, its extension not built there) says so in one
line, and whether an installed one was shadowed."""
import importlib
import sys

import pytest

from gilbench.model import casehelpers, shadowing
from gilbench.model.registry import Unavailable


def _package(root, name="shadowpkg"):
    package = root / name
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "from %s._core import spin\n" % name)
    return package


@pytest.fixture
def project(tmp_path, monkeypatch, restore_sys_path):
    """A project root with its package (not built) as the working
    directory, first on sys.path as ``python -m`` or PYTHONPATH=. put it."""
    root = tmp_path / "project"
    _package(root)
    monkeypatch.chdir(root)
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    yield root
    for name in [m for m in sys.modules if m.startswith("shadowpkg")]:
        del sys.modules[name]


def _failure(name="shadowpkg"):
    with pytest.raises(Unavailable) as raised:
        casehelpers.import_extension(name)
    return str(raised.value)


def test_a_source_tree_not_built_says_install_the_project(project):
    said = _failure()
    assert said == (
        "shadowpkg not built (No module named 'shadowpkg._core'; shadowpkg "
        "was imported from ./shadowpkg, under the working directory, and is "
        "not built there: install the project (pip install .) or build it "
        "in place)")


def test_a_shadowed_installed_package_is_named(project, tmp_path):
    site = tmp_path / "site-packages"
    installed = _package(site)
    (installed / "_core.py").write_text("def spin(n):\n    return n\n")
    sys.path.append(str(site))
    importlib.invalidate_caches()
    said = _failure()
    assert said.endswith(
        "shadowpkg was imported from ./shadowpkg, under the working "
        "directory; the installed one is in %s: run from elsewhere or use "
        "a src layout)" % site)
    sys.path.remove(str(project))  # as gilbench's programs order it
    assert casehelpers.import_extension("shadowpkg").spin(3) == 3


def test_other_failures_are_their_own_text(project):
    assert _failure("no_such_module_anywhere") == (
        "no_such_module_anywhere not built (No module named "
        "'no_such_module_anywhere')")
    assert shadowing.explained(ValueError("bad")) == "ValueError: bad"


def test_python_dash_m_puts_the_working_directory_last(tmp_path,
                                                       monkeypatch,
                                                       restore_sys_path):
    from gilbench.model import modules
    monkeypatch.chdir(tmp_path)
    rest = [p for p in sys.path if p not in ("", str(tmp_path))]
    for first in ("", str(tmp_path)):
        sys.path[:] = [first] + rest
        modules.working_directory_last()
        assert sys.path == rest + [first]
    sys.path[:] = rest  # not first: left as it is
    modules.working_directory_last()
    assert sys.path == rest
