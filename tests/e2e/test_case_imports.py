"""A case module is imported as an import statement and a ``.pyc`` would
import it, whatever the process could write: its ``__name__`` interned
(every function made in it references that str; on a free-threaded
3.13+ an interned str is immortal, a built one is counted atomically by
every thread), and, on a free-threaded build, its constants immortal as
unmarshalling makes them (``compile()`` leaves them mortal there, so a
tuple constant contended only where no ``.pyc`` could be written; the
same for ``gilbench timeit``'s statement).
docs/families/pyops.rst, "Creating a closure", has the measurements.

Run on this interpreter and every one GILBENCH_TEST_PYTHONS names (.ci/run:
2.7, PyPy, 3.13t and its GIL-on twin, 3.14, 3.15).
"""
import json
import os
import subprocess

import pytest
from helpers import FIXTURES, pythons_to_test

PYTHONS = pythons_to_test()

# Prints {"interned": ..., "free_threaded": ..., "immortal": ...} for a case
# module imported by gilbench (by dotted name or by path, argv[1]), with
# no .pyc written or read.
_PROBE = r"""
import json, sys, sysconfig, threading
sys.dont_write_bytecode = True
from gilbench.model import modules
module = modules.import_module(sys.argv[1])
name = module.__name__
threading.Thread(target=lambda: None).start()  # 3.13t immortalizes then
constant = module.tuple_constant.__code__.co_consts
constant = [c for c in constant if isinstance(c, tuple)][0]

def immortal(obj):
    if hasattr(sys, "_is_immortal"):
        return sys._is_immortal(obj)
    import ctypes  # 3.13t: ob_ref_local, after ob_tid and its flags
    return ctypes.c_uint32.from_address(id(obj) + 12).value == 0xFFFFFFFF
free = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
from gilbench.measure import statement
timed = statement._compiled("t = (4, 5, 6)", "<stmt>", "the statement")
timed = [c for c in timed.co_consts if isinstance(c, tuple)][0]
intern = getattr(sys, "intern", None) or __builtins__.intern
print(json.dumps({"interned": name is intern("".join(list(name))),
                  "python2": sys.version_info[0] == 2,
                  "free_threaded": free,
                  "immortal": free and immortal(constant),
                  "statement_immortal": free and immortal(timed)}))
"""


def _probe(python, module, tmp_path):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
               PYTHONPYCACHEPREFIX=str(tmp_path / "no-such-cache"))
    said = subprocess.check_output([python, "-c", _PROBE, module], env=env,
                                   cwd=str(tmp_path), universal_newlines=True)
    return json.loads(said.splitlines()[-1])


@pytest.mark.parametrize("python", PYTHONS)
@pytest.mark.parametrize("module", [
    "gilbench.cases.pyops", os.path.join(FIXTURES, "constant_cases.py")])
def test_a_case_modules_name_is_interned_and_its_constants_as_from_bytecode(
        python, module, tmp_path):
    found = _probe(python, module, tmp_path)
    # 2.7's import makes a module's name from a C string (and has no
    # free-threaded build to care).
    assert found["interned"] or found["python2"], found
    assert found["immortal"] == found["free_threaded"], found
    # gilbench timeit's statement, compiled by compile() too.
    assert found["statement_immortal"] == found["free_threaded"], found
