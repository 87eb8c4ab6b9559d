"""End to end on a free-threaded CPython: a benchmark whose set-up imports
an extension that enables the GIL is recorded as failed, naming it; the
same benchmark with PYTHON_GIL=1 runs, and its result says the GIL was on
because it was asked for.

The harness needs pyperf and psutil, so the free-threaded interpreter gets
a virtual environment with requirements-freethreaded.txt (from PyPI, as in
the py313t tox env), made once for this module; gilbench itself comes
uninstalled from the probes' directory (tests/e2e/test_packaging.py installs
it).
"""
import json
import os
import subprocess

import pytest
from helpers import ROOT
from test_free_threading import cc, ft_python, probes  # noqa: F401  (fixtures)

CASES = '''
"""Cases for tests/families/test_free_threading_run.py."""
from gilbench.api import CaseSpec


def _importing(module_name):
    def prepare(params):
        __import__(module_name)

        def work(loops):
            for _ in range(loops):
                pass
        return work
    return prepare


CASES = [
    CaseSpec("ftguard", "import", "gil", "probe", _importing("ftprobe_gil"),
             "imports a module that does not declare free-threading"),
    CaseSpec("ftguard", "import", "nogil", "probe",
             _importing("ftprobe_nogil"),
             "imports a module that declares free-threading"),
]
'''
FAILED_NAME = "ftguard.import.gil.probe/t1"
VALID_NAME = "ftguard.import.nogil.probe/t1"
TINY = ["--threads", "1", "-p", "1", "-n", "1", "-w", "0", "-l", "1"]


@pytest.fixture(scope="module")
def ft_venv_python(ft_python, tmp_path_factory):
    venv = str(tmp_path_factory.mktemp("ftvenv") / "venv")
    python = os.path.join(venv, "bin", "python")
    try:
        subprocess.run([ft_python, "-m", "venv", venv], check=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        subprocess.run([python, "-m", "pip", "install", "-q",
                        "--disable-pip-version-check", "-r",
                        os.path.join(ROOT, "requirements-freethreaded.txt")],
                       check=True, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=300)
    except (subprocess.CalledProcessError,
            subprocess.TimeoutExpired) as exc:
        pytest.skip("could not make a free-threaded venv with "
                    "requirements-freethreaded.txt (PyPI reachable?): %s\n%s"
                    % (exc, getattr(exc, "output", b"").decode(
                        "utf-8", "replace")[-2000:]))
    return python


def run(python, probes, tmp_path, env=None):
    cases = tmp_path / "ftguard_cases.py"
    cases.write_text(CASES)
    output = tmp_path / "out.json"
    environ = dict(os.environ)
    environ.pop("PYTHON_GIL", None)
    environ.update(env or {})
    environ["PYTHONPATH"] = probes
    process = subprocess.run(
        [python, "-m", "gilbench", "run", "--module", str(cases), "-o",
         str(output)] + TINY, cwd=ROOT, env=environ, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
    return process, output


@pytest.mark.e2e
def test_gil_enabling_import_fails_the_benchmark(ft_venv_python, probes,
                                                  tmp_path):
    process, output = run(ft_venv_python, probes, tmp_path)
    text = process.stdout + process.stderr
    assert process.returncode == 1, text
    assert ("%s: failed: GIL re-enabled by import of ftprobe_gil"
            % FAILED_NAME) in text
    # The benchmark that kept the GIL off is written, with that state.
    written = output.read_text()
    assert VALID_NAME in written
    assert '"python_gil":"disabled"' in written.replace(" ", "")


@pytest.mark.e2e
def test_python_gil_1_makes_the_same_benchmark_valid(ft_venv_python, probes,
                                                     tmp_path):
    process, output = run(ft_venv_python, probes, tmp_path,
                          env={"PYTHON_GIL": "1"})
    assert process.returncode == 0, process.stdout + process.stderr
    result = json.loads(output.read_text())
    written = json.dumps(result)
    assert FAILED_NAME.split("/")[0] in written
    assert result["metadata"]["python_gil"] == "enabled"
    assert result["metadata"]["python_gil_requested"] == "1"
