"""The executor family (cases/executor.py): every method x workload runs a
batch whose results are checked, wrong results fail, n/a carries a reason,
memory is recorded, and no worker process outlives a run or a killed run."""
import os
import subprocess
import sys
import textwrap
import time
import uuid

import psutil
import pytest
from helpers import MINIMAL_PYPERF, ROOT

from gilbench.measure import interpreterpool
from gilbench.measure import record as record_module
from gilbench.model.registry import Unavailable

family = pytest.importorskip("gilbench.cases.executor")
executor = pytest.importorskip("gilbench.cases._executor_batch")
tasks = pytest.importorskip("gilbench.cases._executor_tasks")


def params(method, workload="trivial", phase="warm", workers=None,
           payload="none", count=2, task_ms=1):
    if workers is None:
        workers = 1 if method == "pickle" else 2
    return {"workload": workload, "payload": payload, "method": method,
            "workers": workers, "phase": phase, "tasks": count,
            "task_ms": task_ms}


def runnable(given):
    """The prepared time function, or pytest.skip with the n/a reason."""
    reason = executor.exclude(given)
    assert reason is None, reason
    try:
        executor.check(given)
        return executor.prepare(given)
    except Unavailable as exc:
        assert str(exc).strip(), "an n/a needs a reason"
        pytest.skip("n/a: %s" % exc)


@pytest.fixture
def recorded(monkeypatch):
    sink = {}
    monkeypatch.setattr(record_module, "_sink", [sink])
    return sink


# Every method measured warm (process-spawn is measured at its start and
# shutdown only).
WARM_METHODS = [m for m in executor.METHODS
                if executor.exclude(params(m)) is None]


@pytest.mark.parametrize("workload", executor.WORKLOADS)
@pytest.mark.parametrize("method", WARM_METHODS)
def test_every_method_and_workload_returns_checked_results(
        method, workload, recorded):
    timer = runnable(params(method, workload))
    try:
        for loops in (1, 2):
            wall, cpu = timer(loops)
            assert wall > 0 and cpu > 0
    finally:
        timer.close()
    # A pool's priming tasks (one per worker) are checked too; the caller
    # has nothing to prime.
    primed = 0 if method in executor.IN_CALLER else 2
    assert recorded["tasks_checked"] == primed + 2 * (1 + 2)
    assert recorded["peak_uss_bytes"] > 0
    assert recorded["cpu_percent"] > 0


@pytest.mark.parametrize("method", ["thread", "process-fork"])
def test_warm_starts_every_worker_before_the_clock(method):
    import threading
    threads = threading.active_count()
    children = set(psutil.Process().children())
    timer = runnable(params(method, "sleep", workers=4, count=4))
    try:
        if method == "thread":
            assert threading.active_count() - threads == 4
        else:
            assert len(set(psutil.Process().children()) - children) == 4
    finally:
        timer.close()


@pytest.mark.parametrize("phase", ["cold", "teardown"])
@pytest.mark.parametrize("method", ["thread", "process-fork",
                                    "process-spawn", "interp",
                                    "interp-stdlib"])
def test_cold_and_teardown(method, phase, recorded):
    timer = runnable(params(method, "trivial", phase))
    try:
        wall, cpu = timer(2)
    finally:
        timer.close()
    assert wall > 0
    assert recorded["tasks_checked"] == 4
    if method == "thread":
        # Over the sampled windows only, so at most every CPU busy, the
        # clock's own reads not counted.  Not for pool processes: psutil
        # reads their CPU in clock ticks, coarser than these windows.
        limit = 100.0 * psutil.cpu_count() * 1.2
        assert 0 <= recorded["cpu_percent"] <= limit
        assert cpu <= limit / 100 * wall
    assert timer.pool is None  # every executor it made was shut down


@pytest.mark.parametrize("method", ["serial", "pickle", "thread",
                                    "process-fork", "interp",
                                    "interp-stdlib"])
def test_large_payload_round_trips(method, recorded):
    timer = runnable(params(method, "trivial", payload="large"))
    try:
        timer(1)
    finally:
        timer.close()
    assert recorded["tasks_checked"] == (
        2 if method in executor.IN_CALLER else 4)


@pytest.mark.parametrize("method", ["serial", "thread", "process-fork",
                                    "interp", "interp-stdlib"])
def test_a_wrong_result_fails_loudly(method):
    timer = runnable(params(method, "nbody"))
    try:
        timer.batch.expected += 1e-9
        with pytest.raises(RuntimeError, match="wrong task result"):
            timer(1)
    finally:
        timer.close()


def test_a_short_batch_or_a_damaged_payload_fails_loudly():
    batch = executor.Batch(params("serial", payload="large"))
    good = batch.serial()
    batch.check([good, good])
    with pytest.raises(RuntimeError,
                       match=r"returned \[1, 2\] results for 2 tasks"):
        batch.check([good, good[:1]])
    data, numbers = good[0][1]
    with pytest.raises(RuntimeError, match="payload came back wrong"):
        batch.check([good, [good[0], (good[0][0], (data[1:], numbers))]])
    assert batch.checked == 4


def test_nbody_energy_is_the_known_one():
    # pyperformance's bm_nbody: the offset system's energy before any step.
    assert abs(tasks.nbody(0) - (-0.16907516382852447)) < 1e-15
    assert tasks.nbody(1) != tasks.nbody(0)


def test_process_pool_memory_exceeds_serial(recorded):
    import gc
    # Earlier tests' garbage (large payloads) freed now, not between the
    # two measurements, where it could outweigh the pool's few MiB.
    gc.collect()
    serial = runnable(params("serial", workers=2))
    serial(1)
    serial_pss = recorded["peak_pss_bytes"]
    pool = runnable(params("process-fork", workers=2))
    try:
        pool(1)
    finally:
        pool.close()
    # PSS: USS misses what the forked workers share with the parent.
    assert recorded["peak_pss_bytes"] > serial_pss > 0


def test_na_combinations_carry_reasons():
    for method in executor.IN_CALLER:
        assert executor.exclude(params(method, phase="cold"))
    assert executor.exclude(params("pickle", workers=4))
    assert executor.exclude(params("thread", phase="cold",
                                   payload="large"))
    assert "process-forkserver" in executor.exclude(params("process-spawn"))
    assert executor.exclude(params("process-spawn", phase="cold")) is None
    for method, kind in sorted(executor.INTERPRETER_POOLS.items()):
        if interpreterpool.interpreters_unavailable(kind):
            with pytest.raises(Unavailable, match=r"\S"):
                executor.check(params(method))


def test_a_pool_whose_submit_calls_a_method_it_lacks_is_na():
    """PyPy 3.9's stdlib as Debian ships it: submit() calls
    _adjust_process_count, renamed in its ProcessPoolExecutor."""
    futures = pytest.importorskip("concurrent.futures")
    executor._check_on_demand_workers(futures.ProcessPoolExecutor)

    class Broken(object):
        def submit(self, fn):
            self._adjust_process_count()
    with pytest.raises(Unavailable, match="cannot start workers"):
        executor._check_on_demand_workers(Broken)


def _interpreter_pool(kind):
    """A pool of one subinterpreter of ``kind``, or pytest.skip saying why
    there is none here."""
    reason = interpreterpool.interpreters_unavailable(kind)
    if reason:
        pytest.skip(reason)
    return interpreterpool.make_interpreter_pool(1, kind=kind)


@pytest.mark.parametrize("kind", interpreterpool.KINDS)
def test_interpreter_pool_refuses_main_functions(kind):
    pool = _interpreter_pool(kind)
    try:
        namespace = {"__name__": "__main__"}
        exec("def f():\n    return 1\n", namespace)
        if isinstance(pool, interpreterpool.InterpreterPool):
            with pytest.raises(ValueError, match="__main__"):
                pool.submit(namespace["f"])
        assert pool.submit(tasks.task, "trivial", 0, None).result(
            timeout=60) == (1, None)
    finally:
        pool.shutdown(wait=True)


@pytest.mark.parametrize("kind", interpreterpool.KINDS)
def test_interpreter_pool_reports_task_errors(kind):
    pool = _interpreter_pool(kind)
    try:
        with pytest.raises(Exception) as raised:
            pool.submit(tasks.task, "nope", 0, None).result(timeout=60)
        # gilbench's pool names it in a RuntimeError; the stdlib's raises
        # the KeyError itself.
        assert "KeyError" in "%s: %s" % (raised.type.__name__, raised.value)
    finally:
        pool.shutdown(wait=True)


# --- nothing outlives a run ------------------------------------------------

def _marked(marker):
    found = []
    for proc in psutil.process_iter(["pid"]):
        try:
            if proc.environ().get("GILBENCH_EXECUTOR_TEST") == marker:
                found.append(proc)
        except (psutil.Error, OSError):
            pass
    return found


def _harness(marker, *args, **kwargs):
    env = dict(os.environ, GILBENCH_EXECUTOR_TEST=marker)
    return subprocess.run([sys.executable, "-m", "gilbench"] + list(args),
                          cwd=ROOT, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True,
                          timeout=kwargs.get("timeout", 300))


def _assert_none_survive(marker):
    deadline = time.time() + 5
    while _marked(marker) and time.time() < deadline:
        time.sleep(0.1)
    survivors = _marked(marker)
    assert not survivors, [p.cmdline() for p in survivors]


@pytest.mark.e2e
def test_no_worker_outlives_a_run(tmp_path):
    marker = uuid.uuid4().hex
    result = _harness(
        marker, "run", "--case", "executor.*", "-o", tmp_path / "r.json",
        "--param", "method=thread,process-forkserver,process-spawn,interp,"
        "interp-stdlib",
        "--param", "workload=sleep", "--param", "payload=none",
        "--param", "workers=2", "--param", "phase=warm,cold",
        "--param", "tasks=2", "--param", "task_ms=1", *MINIMAL_PYPERF)
    assert result.returncode == 0, result.stdout + result.stderr
    assert " 0 failed" in result.stdout, result.stdout
    _assert_none_survive(marker)


HANGING = textwrap.dedent('''
    """A case that starts pools, then hangs inside its timed function."""
    import time
    from gilbench.api import CUSTOM, Axis, CaseSpec
    from gilbench.cases import _executor_batch as executor

    def prepare(params):
        # Each pool starts its workers before the next is made: a fork
        # pool forks at its first task, and a fork beside a live
        # subinterpreter crashes the child (METHODS puts them last).
        pools = []
        for method in METHODS:
            pools.append(executor.make_executor(method, 2))
            executor.Batch(dict(BATCH, method="x")).on(pools[-1])
        def time_it(loops):
            time.sleep(3600)
        return time_it

    METHODS = %r
    BATCH = {"workload": "trivial", "payload": "none", "tasks": 2,
             "task_ms": 0, "workers": 2, "phase": "warm"}
    CASES = [CaseSpec("hang", "pools", "v", "python", prepare,
                      "pools, then a hang", driver=CUSTOM,
                      axes=[Axis("n", [1])], value_means="none")]
''')


@pytest.mark.e2e
def test_no_worker_outlives_a_killed_run(tmp_path):
    methods = ["thread", "process-fork"]
    if sys.version_info >= (3, 4):
        methods += ["process-forkserver", "process-spawn"]
    methods += [method for method, kind
                in sorted(executor.INTERPRETER_POOLS.items())
                if not interpreterpool.interpreters_unavailable(kind)]
    module = tmp_path / "hanging_cases.py"
    module.write_text(HANGING % (methods,))
    marker = uuid.uuid4().hex
    result = _harness(marker, "run", "--module", module, "-o",
                      tmp_path / "r.json", "--timeout", "15",
                      *MINIMAL_PYPERF)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "hung" in result.stdout, result.stdout
    _assert_none_survive(marker)


# -- the report's tables -----------------------------------------------------

def _phase_benchmarks():
    """(benchmarks, missing) of a small executor run: serial and thread,
    warm and cold, as the registry would list them (excluded ones n/a)."""
    from helpers import dims
    benchmarks, missing = [], []
    for phase in ("warm", "cold"):
        for method in ("serial", "thread"):
            given = params(method, phase=phase, workers=2, count=4,
                           task_ms=20)
            d = dims("executor", "batch", "phases", "python", **given)
            reason = executor.exclude(given)
            if reason:
                missing.append((d, "n/a: " + reason))
            else:
                benchmarks.append((d, [1e-3, 1.1e-3]))
    return benchmarks, missing


def test_phases_table_has_interpreters_as_columns(tmp_path):
    """Not one phases table per interpreter (160 on the full matrix): one
    per phase and workload, every interpreter a column."""
    if sys.version_info < (3, 9):
        pytest.skip("the report side needs Python >= 3.9")
    from helpers import write_result

    from gilbench.report.data import loader
    from gilbench.report.tables import layout, pivot
    phases = [t for t in family.TABLES if t["title"] == "Executor phases"]
    assert len(phases) == 1
    assert "interpreter" not in phases[0]["per"]
    axes = [{"name": a, "unit": "", "log": False}
            for a in ("workload", "payload", "method", "workers", "phase",
                      "tasks", "task_ms")]
    benchmarks, missing = _phase_benchmarks()
    counts = []
    for files in (["3.11.7"], ["3.11.7", "3.12.8", "3.13.1"]):
        directory = tmp_path / str(len(files))
        for version in files:
            write_result(directory, "py%s.json" % version, version,
                         benchmarks, missing=missing, axes=axes,
                         tables=phases)
        tables = [t for t in pivot.all_tables(
            loader.load_results([str(directory)])) if t.declaration]
        counts.append(len(tables))
        for table in tables:
            assert table.column_dim == "interpreter"
            assert len(table.header) == 1 + len(files)
        assert [t.title for t in tables] == [
            "Executor phases: phase=warm", "Executor phases: phase=cold"]
        # Cold serial is excluded: its row says why; the table is drawn.
        cold = tables[1]
        serial = [row for row in cold.rows if row[0].text == "serial"][0]
        assert serial[1].text.startswith("n/a: serial runs in the caller")
        assert not layout.not_applicable(cold)
    assert counts[0] == counts[1]  # more interpreters, no more tables
