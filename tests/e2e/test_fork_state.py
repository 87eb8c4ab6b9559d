"""What a fork must not inherit (docs/architecture.rst, "What a fork
inherits"): pyperf's once-per-process watchdog, the random streams a
fresh interpreter would seed anew, the run's output lock; pyperf's
private names where gilbench expects them; and a user's case module: its
``record()`` from ``after_value`` reaching every value's run, an edit
of it always taking effect.

The end-to-end checks run on this interpreter and on every one that
GILBENCH_TEST_PYTHONS names (``os.pathsep``-separated; .ci/run names the
smoke's 2.7, PyPy and free-threaded tox environments), each with gilbench
installed.
"""
import json
import os
import subprocess

import pyperf
import pytest
from helpers import FIXTURES, MINIMAL_PYPERF, ROOT, pythons_to_test, run_module

from gilbench.measure import forking, program

CASES = os.path.join(FIXTURES, "fork_state_cases.py")
CASE = "forkstate.draw.v.python"
PYTHONS = pythons_to_test()

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork")


def _worker_argv(tmp_path):
    return ["--worker", "--worker-task", "0", "-l", "1", "-n", "1",
            "-w", "0", "--bench-case", CASE,
            "--bench-params", json.dumps({"threads": 1}),
            "--status", str(tmp_path / "status"), "--module", CASES]


@needs_fork
def test_a_dead_runner_classs_id_cannot_refuse_a_forked_worker(tmp_path):
    # A class that died here left its id; the worker's class is put at
    # that address (deterministically: the same class).
    pyperf.Runner._created.add(id(program.HarnessRunner))
    try:
        said, code = forking.call(lambda fd: program.main(
            _worker_argv(tmp_path) + ["--pipe", str(fd)]))
    finally:
        pyperf.Runner._created.discard(id(program.HarnessRunner))
    assert code == 0
    bench, = pyperf.BenchmarkSuite.loads(said).get_benchmarks()
    assert bench.get_nvalue() == 1


def test_reading_pyperfs_options_leaves_no_runner_behind():
    before = set(pyperf.Runner._created)
    program.check_pyperf_options(["-p", "3"])
    assert set(pyperf.Runner._created) == before


@needs_fork
def test_a_fork_draws_its_own_random_numbers():
    import random
    random.seed(12345)  # as a parent's stream a fork would copy

    def draw(fd):
        os.write(fd, repr(random.random()).encode())
    first, second = forking.call(draw)[0], forking.call(draw)[0]
    assert first != second


_CHECK_INTERNALS = """
import json, pyperf
from gilbench.measure import program, pyperfinternals
runner = program.make_runner()
runner.parse_args(["--bench-case=x", "--bench-params={}", "--status=x"])
print(json.dumps([pyperf.__version__, pyperfinternals.missing(runner)]))
"""


@pytest.mark.parametrize("python", PYTHONS)
def test_every_private_pyperf_name_is_where_it_was_checked(python):
    said = subprocess.check_output([python, "-c", _CHECK_INTERNALS],
                                   cwd=str(ROOT), universal_newlines=True)
    version, missing = json.loads(said.splitlines()[-1])
    assert missing == [], version
    assert version.split(".")[0] in ("1", "2")  # the lines checked


def _runs(python, tmp_path, *options):
    output = tmp_path / "out.json"
    made = run_module("gilbench", [
        "run", "-o", output, "--module", CASES, "--case", CASE,
        "--threads", "2", "-p", "3", "-n", "2", "-w", "0",
        "--min-time", "0.001"] + list(options), python=python)
    assert made.code == 0, made
    bench, = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()
    return [run.get_metadata() for run in bench.get_runs() if run.values]


@pytest.mark.parametrize("python", PYTHONS)
def test_sibling_workers_draw_different_random_streams(python, tmp_path):
    runs = _runs(python, tmp_path)
    assert [run["worker_start"] for run in runs] == [
        "calibration fork", "fork", "fork"]
    assert len(set(run["measured_by"] for run in runs)) == 3
    assert len(set(run["first_random"] for run in runs)) == 3
    numpy_draws = [run.get("first_numpy_random") for run in runs]
    assert numpy_draws == [None] * 3 or len(set(numpy_draws)) == 3


@pytest.mark.parametrize("python", PYTHONS)
@pytest.mark.parametrize("sizing", ["given", "default"])
def test_after_value_records_reach_every_value_run(python, sizing,
                                                   tmp_path):
    output = tmp_path / "out.json"
    options = MINIMAL_PYPERF if sizing == "given" else []
    made = run_module("gilbench", [
        "run", "-o", output, "--module", CASES, "--case", CASE,
        "--threads", "1"] + options, python=python, timeout=300)
    assert made.code == 0, made
    bench, = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()
    runs = [run.get_metadata() for run in bench.get_runs() if run.values]
    assert runs
    for run in runs:
        assert {"first_random", "draw_int", "draw_bits", "draw_str",
                "draw_float", "returns"} <= set(run), run
        assert run["draw_str"].startswith("value ")


@pytest.mark.parametrize("python", PYTHONS)
@pytest.mark.parametrize("chosen", [None, "8MB"])
def test_pypys_nursery_is_capped_unless_the_user_chose_it(python, chosen,
                                                          tmp_path):
    # A fork shares its parent's nursery and copies each page it writes
    # (gilbench.measure.pypynursery): above 16 MB that is in the values.
    from gilbench.measure import pypynursery
    env = dict(os.environ)
    env.pop(pypynursery.VARIABLE, None)
    if chosen:
        env[pypynursery.VARIABLE] = chosen
    output = tmp_path / "out.json"
    made = run_module("gilbench", [
        "run", "-o", output, "--module", CASES, "--case", CASE,
        "--threads", "1", "-p", "2", "-n", "1", "-w", "0",
        "--min-time", "0.001", "--fresh-workers"], python=python, env=env)
    assert made.code == 0, made
    suite = pyperf.BenchmarkSuite.load(str(output))
    runner = suite.get_metadata().get(pypynursery.METADATA_KEY)
    bench, = suite.get_benchmarks()
    workers = [run.get_metadata().get("nursery") for run in bench.get_runs()
               if run.values]
    if runner is None:  # not PyPy: nothing to cap, nothing said
        assert workers == [None, None]
        return
    sizes = [pypynursery.size_bytes(size) for size in [runner] + workers]
    if chosen:
        assert sizes == [8 * 2 ** 20] * 3, (runner, workers)
    else:
        assert len(set(sizes)) == 1 and 0 < sizes[0] <= 16 * 2 ** 20, (
            runner, workers)


@needs_fork
def test_a_fork_does_not_hold_the_runs_output_lock(tmp_path):
    from gilbench.runner.journal import OutputLock
    with OutputLock(str(tmp_path / "out.json")) as lock:
        def probe(fd):
            try:
                os.fstat(lock.fd)
            except OSError:
                os.write(fd, b"closed")
        said, code = forking.call(probe)
        os.fstat(lock.fd)  # still held here
    assert (said, code) == ("closed", 0)


_VERSION_OF = """
import sys
from gilbench.model import modules
print(modules.import_module(sys.argv[1]).VERSION)
"""


@pytest.mark.parametrize("python", PYTHONS)
def test_an_edit_saved_within_the_same_second_is_run(python, tmp_path):
    # Python 2.7's imp.load_source took a .pyc whose mtime matched.
    module = tmp_path / "edited_cases.py"
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    said = []
    for version in ("1", "22"):
        module.write_text(u"VERSION = %s\nCASES = []\n" % version)
        os.utime(str(module), (1700000000, 1700000000))
        said.append(subprocess.check_output(
            [python, "-c", _VERSION_OF, str(module)], env=env,
            universal_newlines=True).strip())
    assert said == ["1", "22"]


def test_a_case_cannot_record_over_pyperfs_or_gilbenchs_metadata():
    from gilbench.api import record
    from gilbench.errors import UsageError
    for key in ("loops", "duration", "cpu_utilisation", "worker_start"):
        with pytest.raises(UsageError, match="choose another name"):
            record(**{key: 1})
