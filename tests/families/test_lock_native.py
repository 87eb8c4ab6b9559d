"""lk_work survives the optimiser: the built lock modules really call it.

As tests/families/test_native_optimiser.py does for gil.c: in the disassembly
of each lock extension this interpreter loads, lk_work is a function of its own
holding the xorshift chain (shifts and xors), lk_call (the critical section,
whatever the kind) and the nested call reach it by a call, and the wrappers
call lk_call.  So the ~100 ns / ~1 us critical sections and the `work_ns` sweep
run real, calibrated work; tests/families/test_lock.py checks the chain's
result and the calibration."""
import pytest
from test_grwl_native import instructions
from test_native_optimiser import (
    callers_of,
    disassemble,
    extension_file,
    needs_objdump,
)

pytestmark = pytest.mark.e2e  # every test here starts a process

MODULES = {"cython": "gilbench.extensions._lock_cy",
           "cffi": "gilbench.extensions._lock_cffi"}


@pytest.fixture(scope="module", params=sorted(MODULES))
def module_path(request):
    return extension_file(MODULES[request.param])


@needs_objdump
def test_lk_work_holds_the_chain(module_path):
    mnemonics = instructions(module_path, "lk_work")
    assert mnemonics, "no lk_work function"
    assert any(m.startswith("sh") for m in mnemonics), mnemonics
    assert any(m.startswith("xor") for m in mnemonics), mnemonics
    # The loop: a conditional jump back, not an unrolled constant.
    assert any(m.startswith("j") and m != "jmp" for m in mnemonics), \
        mnemonics


@needs_objdump
def test_lk_call_calls_lk_work(module_path):
    callers = callers_of(disassemble(module_path), "lk_work")
    # lk_call for LK_NONE and the critical section (inlined into lk_call,
    # or kept out of line as critical_section).
    assert "lk_call" in callers, callers
    assert {"lk_nested_call", "critical_section"} & set(callers) or \
        "lk_call" in callers, callers


@needs_objdump
def test_wrappers_call_lk_call(module_path):
    callers = callers_of(disassemble(module_path), "lk_call")
    assert callers, "nothing calls lk_call"


@needs_objdump
def test_cython_gil_and_nogil_wrappers_call_lk_call():
    callers = callers_of(disassemble(extension_file(MODULES["cython"])),
                         "lk_call")
    assert any("call_gil" in c for c in callers), callers
    assert any("call_nogil" in c for c in callers), callers


@needs_objdump
def test_map_op_is_called_by_both_wrappers():
    callers = callers_of(disassemble(extension_file(MODULES["cython"])),
                         "lk_map_op")
    assert any("op_gil" in c for c in callers), callers
    assert any("op_nogil" in c for c in callers), callers
