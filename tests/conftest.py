"""Shared fixtures; the helpers themselves live in helpers.py.

A test that starts a process (an interpreter, a tool, a run) is end to
end: it is marked ``e2e``, and ``pytest -m "not e2e"`` is the fast loop
(docs/architecture.rst).  An unmarked test that starts one fails, so the
fast loop stays fast.
"""
import os
import subprocess
import sys

import pytest
from helpers import FIXTURES, TESTS, run_harness

# The fixture families import by name, and a test may reuse another
# group's helpers and fixtures (from test_free_threading import ...).
for _group in ("unit", "families", "e2e"):
    sys.path.insert(0, os.path.join(TESTS, _group))
sys.path.insert(0, FIXTURES)


def pytest_configure(config):
    config.addinivalue_line("markers", "e2e: starts processes (an "
                            "interpreter, a run, a tool); not in the fast "
                            "loop, pytest -m 'not e2e'")


E2E_DIRECTORY = os.path.join(TESTS, "e2e")


def pytest_collection_modifyitems(items):
    """Every test under tests/e2e/ is end to end."""
    for item in items:
        if str(item.fspath).startswith(E2E_DIRECTORY + os.sep):
            item.add_marker(pytest.mark.e2e)


def _refuse(self, *args, **kwargs):
    raise AssertionError("this test starts a process: mark it e2e "
                         "(tests/conftest.py)")


@pytest.fixture(autouse=True)
def _processes_only_in_e2e(request, monkeypatch):
    if request.node.get_closest_marker("e2e") is None:
        monkeypatch.setattr(subprocess.Popen, "__init__", _refuse)


@pytest.fixture
def harness():
    """``harness("run", ...)`` runs ``python -m gilbench run ...`` in the
    project root and returns a Completed (code, stdout, stderr)."""
    return run_harness


@pytest.fixture
def restore_sys_path(monkeypatch):
    """Undo the sys.path entries modules.import_module adds for .py paths."""
    monkeypatch.setattr(sys, "path", list(sys.path))
