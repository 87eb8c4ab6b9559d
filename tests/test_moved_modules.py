"""gilbench's former flat layout: the declaration vocabulary keeps its old
module names, every other old name fails with an ImportError naming the
module's new place, and no new place is missing."""
import importlib
import subprocess
import sys

import pytest

from gilbench import moved
from helpers import run_harness


@pytest.mark.parametrize("old", sorted(moved.MOVED))
def test_an_old_name_says_where_its_module_went(old):
    new = moved.MOVED[old]
    if old != "timeitcase":  # importable only inside gilbench timeit
        importlib.import_module(new)  # the new place exists
    with pytest.raises(ImportError) as raised:
        importlib.import_module("gilbench." + old)
    assert str(raised.value) == (
        "gilbench.%s has moved: import %s (case modules: gilbench.api)"
        % (old, new))


def test_the_message_is_one_line_for_a_script():
    result = subprocess.run(
        [sys.executable, "-c", "import gilbench.procs"],
        capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "ImportError: gilbench.procs has moved: import "
        "gilbench.measure.procs (case modules: gilbench.api)")


@pytest.mark.parametrize("old, new, name", [
    ("registry", "gilbench.model.registry", "CaseSpec"),
    ("axes", "gilbench.model.axes", "Axis"),
    ("tables", "gilbench.model.tables", "table"),
    ("findings", "gilbench.model.findings", "finding"),
    ("record", "gilbench.measure.record", "record"),
])
def test_the_declaration_vocabulary_keeps_its_old_names(old, new, name):
    kept = importlib.import_module("gilbench." + old)
    assert getattr(kept, name) is getattr(importlib.import_module(new), name)


def test_a_case_module_written_for_the_old_layout_still_loads(tmp_path):
    module = tmp_path / "oldstyle_cases.py"
    module.write_text(
        "from gilbench.registry import CaseSpec\n"
        "from gilbench.tables import table, value\n"
        "FAMILY = 'oldstyle'\n"
        "def _prepare(params):\n"
        "    return lambda loops: None\n"
        "CASES = [CaseSpec(FAMILY, 'c', 'v', 'python', _prepare,\n"
        "                  description='a no-op')]\n"
        "TABLES = [table('Time', rows='threads', cell=value())]\n")
    listed = run_harness("list", "--module", module)
    assert listed.code == 0, listed
    assert "oldstyle.c.v.python" in listed.stdout
