"""Free-threaded CPython: gilbench.measure.gilguard catches an import that
enables the GIL, the project's Cython module keeps it off, and cffi's absence
on 3.13t is explained.

Each check runs a subprocess of the free-threaded interpreter, found as
tools/bootstrap.sh finds it (which also builds one when it can).  Test
extensions are compiled in a temporary directory with the C compiler
against that interpreter's headers, so the interpreter needs no packages:
tests/fixtures/ft_ext/ftprobe.c twice (without and with
Py_MOD_GIL_NOT_USED), and
extensions/_gil_cy.pyx as this Python's Cython translates it
(tests/families/test_ceiling.py builds _ceiling_cy.pyx so).
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest
from helpers import FIXTURES, ROOT, unbuilt_package

from gilbench.measure import gilguard

FREE_THREADED_NAMES = ("python3.13t", "python3.14t")
PROBE_C = os.path.join(FIXTURES, "ft_ext", "ftprobe.c")


def find_free_threaded():
    """python3.13t/3.14t on GILBENCH_PATH (bootstrap's PATH for tox), PATH,
    then in $PYENV_ROOT/versions, where bootstrap builds one."""
    for path in (os.environ.get("GILBENCH_PATH"), os.environ.get("PATH")):
        for name in FREE_THREADED_NAMES:
            found = path and shutil.which(name, path=path)
            if found:
                return found
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    for name in FREE_THREADED_NAMES:
        found = sorted(glob.glob(os.path.join(root, "versions", "*t", "bin",
                                              name)))
        if found:
            return found[-1]
    return None


@pytest.fixture(scope="module")
def ft_python():
    python = find_free_threaded()
    if python is None:
        pytest.skip("no free-threaded CPython (python3.13t or python3.14t) "
                    "on GILBENCH_PATH, PATH or in $PYENV_ROOT/versions; "
                    "tools/bootstrap.sh builds one where it may, or: "
                    "pyenv install 3.13t")
    return python


@pytest.fixture(scope="module")
def cc():
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler (cc/gcc) to build the test extensions")
    return compiler


def config_vars(python, *names):
    code = ("import json, sysconfig; print(json.dumps("
            "[sysconfig.get_config_var(n) for n in %r]))" % (names,))
    return json.loads(subprocess.check_output([python, "-c", code]))


def compile_extension(python, cc, sources, output_base, flags=()):
    """Compile ``sources`` into ``output_base`` + the interpreter's
    extension suffix; return that path.  ``flags`` come before the
    interpreter's headers, as setup.py's include_dirs do: extensions/lock.h
    must win over CPython 3.13's own lock.h."""
    include, suffix = config_vars(python, "INCLUDEPY", "EXT_SUFFIX")
    output = output_base + suffix
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-pthread"]
                   + list(flags) + ["-I", include] + list(sources)
                   + ["-o", output], check=True)
    return output


@pytest.fixture(scope="module")
def probes(ft_python, cc, tmp_path_factory):
    """A directory holding ftprobe_gil, ftprobe_nogil and gilbench's
    sources (the free-threaded interpreter has no gilbench installed)."""
    directory = str(unbuilt_package(tmp_path_factory.mktemp("ftprobe")))
    compile_extension(ft_python, cc, [PROBE_C],
                      os.path.join(directory, "ftprobe_gil"),
                      ["-DPROBE_NAME=ftprobe_gil"])
    compile_extension(ft_python, cc, [PROBE_C],
                      os.path.join(directory, "ftprobe_nogil"),
                      ["-DPROBE_NAME=ftprobe_nogil", "-DPROBE_FREE_THREADING"])
    return directory


# Run in the free-threaded interpreter: install the guard, import, report.
REPORT = """
import json, sys
from gilbench.measure import gilguard
%(install)s
%(imports)s
print(json.dumps({"state": gilguard.state(),
                  "reason": gilguard.reenabled_reason(),
                  "modules": gilguard.reenabling_modules(),
                  "files": %(files)s}))
"""


def guarded(python, path, imports, env=None, install=True, options=(),
            files="[]"):
    """Run ``imports`` after gilguard.install(); (report dict, stderr)."""
    environ = dict(os.environ)
    environ.pop("PYTHON_GIL", None)
    environ.update(env or {})
    environ["PYTHONPATH"] = path
    code = REPORT % {"install": "gilguard.install()" if install else "",
                     "imports": textwrap.dedent(imports), "files": files}
    process = subprocess.run([python] + list(options) + ["-c", code],
                             cwd=path, env=environ, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, universal_newlines=True,
                             timeout=60)
    assert process.returncode == 0, process.stderr
    return json.loads(process.stdout), process.stderr


@pytest.mark.e2e
def test_import_that_enables_the_gil_is_named(ft_python, probes):
    report, stderr = guarded(ft_python, probes, "import ftprobe_gil")
    assert report["state"]["python_gil"] == "enabled"
    assert report["state"]["py_gil_disabled_build"] == 1
    assert "python_gil_requested" not in report["state"]
    assert report["reason"] == ("failed: GIL re-enabled by import of "
                                "ftprobe_gil")
    # Recorded, not swallowed: the warning is still displayed.
    assert "enabled to load module 'ftprobe_gil'" in stderr


@pytest.mark.e2e
def test_recorded_even_when_warnings_are_ignored(ft_python, probes):
    report, _ = guarded(ft_python, probes, "import ftprobe_gil",
                        options=["-W", "ignore"])
    assert report["modules"] == ["ftprobe_gil"]
    assert report["reason"].endswith("import of ftprobe_gil")


@pytest.mark.e2e
def test_other_warnings_keep_their_filters(ft_python, probes):
    report, stderr = guarded(ft_python, probes, """
        import warnings
        warnings.warn("a user warning")
        import ftprobe_gil
        """, options=["-W", "ignore::UserWarning"])
    assert "a user warning" not in stderr
    assert report["modules"] == ["ftprobe_gil"]


@pytest.mark.e2e
def test_compatible_import_leaves_the_gil_off(ft_python, probes):
    report, stderr = guarded(ft_python, probes, "import ftprobe_nogil")
    assert report["state"]["python_gil"] == "disabled"
    assert report["reason"] is None
    assert "GIL" not in stderr


@pytest.mark.e2e
def test_gil_requested_with_python_gil_1_is_not_a_failure(ft_python, probes):
    report, _ = guarded(ft_python, probes, "import ftprobe_gil",
                        env={"PYTHON_GIL": "1"})
    assert report["state"]["python_gil"] == "enabled"
    assert report["state"]["python_gil_requested"] == "1"
    assert report["reason"] is None


@pytest.mark.e2e
def test_gil_enabled_without_a_recorded_warning(ft_python, probes):
    report, _ = guarded(ft_python, probes, "import ftprobe_gil",
                        install=False)
    assert report["reason"] == ("failed: GIL re-enabled by import of "
                                "an unknown import")


def cython_tree(ft_python, cc, directory, family, modules=("cy",)):
    """gilbench.extensions._<family>_cy (and the other ``modules``, e.g.
    ``cy31``) built for the free-threaded interpreter from the project's
    .pyx (and its freethreading_compatible directive), in an unbuilt copy
    of gilbench in ``directory``."""
    tree = unbuilt_package(directory)
    for module in modules:
        name = "_%s_%s" % (family, module)
        generated = str(tree / (name + ".c"))
        subprocess.run([sys.executable, "-m", "cython",
                        os.path.join(ROOT, "extensions", name + ".pyx"),
                        "--module-name", "gilbench.extensions." + name,
                        "-o", generated], check=True)
        compile_extension(ft_python, cc,
                          [generated,
                           os.path.join(ROOT, "extensions", family + ".c")],
                          str(tree / "gilbench" / "extensions" / name),
                          ["-I", os.path.join(ROOT, "extensions")])
    return str(tree)


@pytest.fixture(scope="module")
def gil_cy_tree(ft_python, cc, tmp_path_factory):
    return cython_tree(ft_python, cc, tmp_path_factory.mktemp("gil_cy"),
                       "gil")


@pytest.mark.e2e
def test_gil_cy_keeps_the_gil_disabled(ft_python, gil_cy_tree):
    report, stderr = guarded(ft_python, gil_cy_tree, """
        import gilbench.extensions._gil_cy as module
        module.trivial_gil()
        module.lock_nogil()
        """, files="[module.__file__]")
    assert report["files"][0].startswith(gil_cy_tree)
    assert report["state"]["python_gil"] == "disabled", stderr
    assert report["reason"] is None


@pytest.mark.e2e
def test_cffi_absence_is_explained(ft_python, probes):
    """No cffi build exists for 3.13t; the import says why."""
    version = subprocess.check_output(
        [ft_python, "-c", "import sys; print(sys.version_info[:2])"],
        universal_newlines=True)
    if version.strip() != "(3, 13)":
        pytest.skip("cffi 2 supports %s: nothing to explain" % ft_python)
    code = textwrap.dedent("""
        try:
            import gilbench.extensions._gil_cffi
        except ImportError as exc:
            print(exc)
        """)
    output = subprocess.check_output([ft_python, "-c", code], cwd=probes,
                                     universal_newlines=True)
    assert output.strip() == ("cffi does not support free-threaded "
                              "CPython 3.13")


@pytest.mark.e2e
def test_flavour_names_the_free_threaded_build(ft_python, probes):
    output = subprocess.check_output(
        [ft_python, "-c", "from gilbench.extensions import flavour; "
         "print(flavour.name())"], cwd=probes, universal_newlines=True)
    assert output.strip().endswith("t")
    assert output.strip().startswith("cpython31")


def test_guard_is_inert_on_a_gil_build():
    if gilguard.free_threaded_build():
        pytest.skip("the tests run on a free-threaded build")
    gilguard.install()
    state = gilguard.state()
    assert state["python_gil"] == "enabled"
    assert state["py_gil_disabled_build"] == 0
    assert gilguard.reenabled_reason() is None
