"""gb_trivial survives the optimiser: the built modules really call it.

The disassembly of each extension this interpreter loads must define
gb_trivial as a function and contain call instructions to it (directly or
through its PLT entry) from other functions: the Cython and cffi wrappers
and gb_lock_trivial.  A call site that the compiler had inlined, folded or
hoisted out of a caller would not be a call to gb_trivial.
"""
import importlib
import re
import shutil
import subprocess

import pytest

OBJDUMP = shutil.which("objdump")
needs_objdump = pytest.mark.skipif(
    OBJDUMP is None, reason="objdump (GNU binutils) is not installed")

FUNCTION = re.compile(r"^[0-9a-f]+ <(?P<name>[^>]+)>:$")
CALL = re.compile(r"\s(?:call|callq|bl|blx)\s+(?:[0-9a-f]+\s+)?"
                  r"<(?P<target>[^>+]+)(?:\+0x0)?>")


def extension_file(name):
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        pytest.skip("%s is not built: %s" % (name, exc))
    return module.__file__


def disassemble(path):
    """{function name: [call targets]} from ``objdump -d``."""
    output = subprocess.run(
        [OBJDUMP, "-d", "--no-show-raw-insn", path], check=True,
        stdout=subprocess.PIPE, universal_newlines=True).stdout
    functions, current = {}, None
    for line in output.splitlines():
        match = FUNCTION.match(line)
        if match:
            current = match.group("name")
            functions.setdefault(current, [])
            continue
        call = CALL.search(line)
        if call and current is not None:
            functions[current].append(call.group("target"))
    return functions


def callers_of(functions, symbol):
    targets = {symbol, symbol + "@plt"}
    return sorted(name for name, calls in functions.items()
                  if name not in targets and targets & set(calls))


@pytest.fixture(scope="module")
def cython_functions():
    return disassemble(extension_file("gilbench.extensions._gil_cy"))


@pytest.fixture(scope="module")
def cffi_functions():
    return disassemble(extension_file("gilbench.extensions._gil_cffi"))


@needs_objdump
@pytest.mark.parametrize("which", ["cython", "cffi"])
@pytest.mark.e2e
def test_gb_trivial_is_a_function(request, which):
    functions = request.getfixturevalue(which + "_functions")
    assert "gb_trivial" in functions
    assert "gb_lock_trivial" in functions


@needs_objdump
@pytest.mark.parametrize("module", ["gilbench.extensions._gil_cy",
                                    "gilbench.extensions._gil_cffi"])
@pytest.mark.e2e
def test_gb_trivial_symbol_is_a_function_in_text(module):
    table = subprocess.run(
        [OBJDUMP, "-t", extension_file(module)], check=True,
        stdout=subprocess.PIPE, universal_newlines=True).stdout
    rows = [line.split() for line in table.splitlines()
            if line.split() and line.split()[-1] == "gb_trivial"]
    assert rows, "no gb_trivial in the symbol table"
    # e.g. "0000000000001440 g     F .text  0000000000000007  gb_trivial"
    assert any("F" in row and ".text" in row and int(row[-2], 16) > 0
               for row in rows), rows


@needs_objdump
@pytest.mark.e2e
def test_cython_wrappers_call_gb_trivial(cython_functions):
    callers = callers_of(cython_functions, "gb_trivial")
    assert "gb_lock_trivial" in callers
    # Both Python-visible wrappers, GIL held and GIL released, keep a call.
    assert any(c.endswith("trivial_gil") for c in callers), callers
    assert any(c.endswith("trivial_nogil") for c in callers), callers


@needs_objdump
@pytest.mark.e2e
def test_cffi_wrapper_calls_gb_trivial(cffi_functions):
    callers = callers_of(cffi_functions, "gb_trivial")
    assert "gb_lock_trivial" in callers
    assert [c for c in callers if c != "gb_lock_trivial"], callers


@needs_objdump
@pytest.mark.parametrize("which", ["cython", "cffi"])
@pytest.mark.e2e
def test_lock_wrappers_call_gb_lock_trivial(request, which):
    functions = request.getfixturevalue(which + "_functions")
    assert callers_of(functions, "gb_lock_trivial"), \
        "no call to gb_lock_trivial"


@needs_objdump
def test_parser_sees_calls():
    """The parser itself: a module with no gb_trivial has no callers."""
    assert callers_of({"f": ["g@plt"], "g": []}, "gb_trivial") == []
    assert callers_of({"f": ["gb_trivial@plt"], "gb_trivial": []},
                      "gb_trivial") == ["f"]
    line = "    4844:\tcall   3450 <gb_trivial@plt>"
    assert CALL.search(line).group("target") == "gb_trivial@plt"


def test_gb_trivial_returns_one_through_cffi():
    lib = pytest.importorskip("gilbench.extensions._gil_cffi",
                              reason="cffi extension not built").lib
    assert lib.gb_trivial() == 1
    assert lib.gb_lock_trivial() == 1
    assert [lib.gb_trivial() for _ in range(1000)] == [1] * 1000
