"""gr_unit survives the optimiser: the built GRWL modules really call it.

As tests/families/test_native_optimiser.py does for gil.c: in the disassembly
of each GRWL extension this interpreter loads, gr_unit is a function of its
own, holds the xorshift chain (shifts and xors), and gr_run calls it (the
ordinary unit and the exclusive one); the wrappers call gr_run.
tests/families/test_grwl.py checks the chain's result against Python's."""
import subprocess

import pytest
from test_native_optimiser import (
    OBJDUMP,
    callers_of,
    disassemble,
    extension_file,
    needs_objdump,
)

pytestmark = pytest.mark.e2e  # every test here starts a process

MODULES = {"cython": "gilbench.extensions._grwl_cy",
           "cffi": "gilbench.extensions._grwl_cffi"}


@pytest.fixture(scope="module", params=sorted(MODULES))
def module_path(request):
    return extension_file(MODULES[request.param])


def instructions(path, function):
    """The mnemonics of ``function`` in ``objdump -d`` of ``path``."""
    output = subprocess.run(
        [OBJDUMP, "-d", "--no-show-raw-insn", path], check=True,
        stdout=subprocess.PIPE, universal_newlines=True).stdout
    found, inside = [], False
    for line in output.splitlines():
        if line.endswith(">:"):
            inside = line.endswith("<%s>:" % function)
            continue
        fields = line.split("\t")
        if inside and len(fields) >= 2 and fields[1].strip():
            found.append(fields[1].split()[0])
    return found


@needs_objdump
def test_gr_unit_holds_the_chain(module_path):
    mnemonics = instructions(module_path, "gr_unit")
    assert mnemonics, "no gr_unit function"
    assert any(m.startswith("sh") for m in mnemonics), mnemonics
    assert any(m.startswith("xor") for m in mnemonics), mnemonics


@needs_objdump
def test_gr_run_calls_gr_unit(module_path):
    callers = callers_of(disassemble(module_path), "gr_unit")
    # gr_run itself, or the static helper holding the exclusive unit if the
    # compiler kept it out of line; gr_run must be among them.
    assert "gr_run" in callers, callers


@needs_objdump
def test_wrappers_call_gr_run(module_path):
    callers = callers_of(disassemble(module_path), "gr_run")
    assert callers, "nothing calls gr_run"
