"""Shared fixtures; the helpers themselves live in helpers.py."""
import sys

import pytest

from helpers import run_harness


@pytest.fixture
def harness():
    """``harness("run", ...)`` runs ``python -m gilbench run ...`` in the
    project root and returns a Completed (code, stdout, stderr)."""
    return run_harness


@pytest.fixture
def restore_sys_path(monkeypatch):
    """Undo the sys.path entries modules.import_module adds for .py paths."""
    monkeypatch.setattr(sys, "path", list(sys.path))
