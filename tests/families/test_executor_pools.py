"""The executor family's two subinterpreter pools (docs/families/executor.rst):
``interp``, gilbench's own InterpreterPool, and ``interp-stdlib``,
concurrent.futures.InterpreterPoolExecutor (3.14+).  Each is n/a with a
one-line reason where it cannot be built, each run names the pool it used,
and a run on 3.14+ measures both, answering the stdlib pool's findings;
elsewhere those findings say why not.

The end-to-end runs use the interpreters GILBENCH_TEST_PYTHONS names
(``os.pathsep``-separated, each with gilbench installed), e.g.
``GILBENCH_TEST_PYTHONS=.tox/py314/bin/python``, or skip saying none is
3.14+.
"""
import platform
import subprocess
import sys

import pytest
from helpers import MINIMAL_PYPERF, pythons_to_test, run_module

from gilbench.measure import interpreterpool
from gilbench.measure import record as record_module
from gilbench.model.registry import Unavailable

executor = pytest.importorskip("gilbench.cases._executor_batch")
family = pytest.importorskip("gilbench.cases.executor")

STDLIB = "concurrent.futures.InterpreterPoolExecutor"
POOL_NAMES = {"interp": "gilbench.measure.interpreterpool.InterpreterPool",
              "interp-stdlib": STDLIB}
# The stdlib pool's findings: its nbody speedup, its start against spawn's.
SPEEDUP, COLD = [f["question"] for f in family.FINDINGS
                 if "interp-stdlib" in (f["at"].get("method"),
                                        f["cell"].get("numerator"))]


def params(method, phase="warm", workload="trivial"):
    return {"workload": workload, "payload": "none", "method": method,
            "workers": 2, "phase": phase, "tasks": 2, "task_ms": 1}


@pytest.fixture
def recorded(monkeypatch):
    sink = {}
    monkeypatch.setattr(record_module, "_sink", [sink])
    return sink


def test_the_stdlib_method_is_na_with_a_reason_without_the_stdlib_pool(
        monkeypatch):
    monkeypatch.setattr(interpreterpool, "_stdlib_pool", lambda: None)
    this = _this_python()
    if sys.version_info < (3, 14):
        expected = "%s is new in 3.14 (this is %s)" % (STDLIB, this)
    else:
        expected = "%s has no %s" % (this, STDLIB)
    with pytest.raises(Unavailable) as raised:
        executor.check(params("interp-stdlib"))
    assert str(raised.value) == expected
    # Without it, the default pool is gilbench's own, where that can be
    # built: make_interpreter_pool(workers) as before the two kinds.
    assert interpreterpool.interpreters_unavailable() == (
        interpreterpool.interpreters_unavailable("gilbench"))


@pytest.mark.skipif(sys.version_info >= (3, 14),
                    reason="CPython 3.14+ has the stdlib pool")
def test_before_3_14_the_reason_names_the_version():
    reason = interpreterpool.interpreters_unavailable("stdlib")
    assert reason == "%s is new in 3.14 (this is %s)" % (STDLIB,
                                                         _this_python())


def _this_python():
    """E.g. "CPython 3.11", "CPython 3.13t"."""
    import sysconfig
    return "%s %d.%d%s" % (
        platform.python_implementation(), sys.version_info[0],
        sys.version_info[1],
        "t" if sysconfig.get_config_var("Py_GIL_DISABLED") else "")


def test_a_kind_of_pool_is_one_of_two():
    assert interpreterpool.KINDS == ("stdlib", "gilbench")
    with pytest.raises(ValueError, match="stdlib, gilbench"):
        interpreterpool.interpreters_unavailable("threads")
    with pytest.raises(ValueError, match="stdlib, gilbench"):
        interpreterpool.make_interpreter_pool(1, kind="threads")


@pytest.mark.parametrize("phase", executor.PHASES)
@pytest.mark.parametrize("method", sorted(POOL_NAMES))
def test_each_run_records_the_pool_it_used(method, phase, recorded):
    reason = interpreterpool.interpreters_unavailable(
        executor.INTERPRETER_POOLS[method])
    if reason:
        pytest.skip(reason)
    timer = executor.prepare(params(method, phase))
    try:
        timer(1)
    finally:
        timer.close()
    assert recorded["interpreter_pool"] == POOL_NAMES[method]


def test_other_methods_record_no_pool(recorded):
    timer = executor.prepare(params("thread"))
    try:
        timer(1)
    finally:
        timer.close()
    assert "interpreter_pool" not in recorded


# --- end to end ------------------------------------------------------------

def _version(python):
    out = subprocess.check_output(
        [python, "-c", "import sys; print('%d %d' % sys.version_info[:2])"],
        universal_newlines=True)
    return tuple(int(part) for part in out.split())


def _python(newer):
    """The first interpreter to test that is 3.14+ (``newer``) or older,
    or pytest.skip."""
    for python in pythons_to_test():
        if (_version(python) >= (3, 14)) == newer:
            return python
    pytest.skip("no interpreter %s 3.14 to test: GILBENCH_TEST_PYTHONS "
                "names none" % ("from" if newer else "before"))


def _run_pools(newer, tmp_path):
    """The result file of a small run of the findings' points (serial,
    spawn and both subinterpreter pools, 4 workers, warm and cold, the
    native kernel included) on an interpreter 3.14+ or older."""
    output = tmp_path / "r.json"
    result = run_module("gilbench", [
        "run", "--case", "executor.*", "-o", output,
        "--param", "method=serial,process-spawn,interp,interp-stdlib",
        "--param", "workload=trivial,nbody,native",
        "--param", "payload=none", "--param", "workers=4",
        "--param", "phase=warm,cold", "--param", "tasks=4",
        "--param", "task_ms=1"] + MINIMAL_PYPERF, timeout=600,
        python=_python(newer))
    assert result.code == 0, result
    assert " 0 failed" in result.stdout, result
    return output


def _findings(output):
    """{question: answer Cell} of the executor family in one result file."""
    if sys.version_info < (3, 9):
        pytest.skip("the report side needs Python >= 3.9")
    from gilbench.report.data import loader
    from gilbench.report.tables import pivot, questions
    results = loader.load_results([str(output)])
    table = questions.findings_table(results, pivot.family_order(results))
    return {row.question: row.answers[0] for row in table.rows
            if row.family == "executor"}


def _pools_recorded(output):
    """{method: set of interpreter_pool values its runs recorded}."""
    import pyperf
    found = {}
    for bench in pyperf.BenchmarkSuite.load(str(output)).get_benchmarks():
        method = bench.get_metadata()["method"]
        for run in bench.get_runs():
            if run.values:
                found.setdefault(method, set()).add(
                    run.get_metadata().get("interpreter_pool"))
    return found


@pytest.mark.e2e
def test_a_run_on_3_14_measures_both_pools(tmp_path):
    output = _run_pools(True, tmp_path)
    recorded = _pools_recorded(output)
    for method, name in POOL_NAMES.items():
        assert recorded[method] == {name}, recorded
    assert recorded["process-spawn"] == {None}
    answers = _findings(output)
    cold = answers[COLD]
    assert not cold.missing and cold.value > 0, cold
    speedup = answers[SPEEDUP]
    # 4 workers: answered where 4 CPUs are usable, else n/a saying so.
    assert (speedup.value is not None
            or "workers at once" in speedup.text), speedup


@pytest.mark.e2e
def test_before_3_14_the_stdlib_findings_say_why(tmp_path):
    output = _run_pools(False, tmp_path)
    answers = _findings(output)
    for question in (SPEEDUP, COLD):
        cell = answers[question]
        assert cell.missing, cell
        assert cell.text.startswith(
            "n/a: %s is new in 3.14 (this is " % STDLIB), cell
