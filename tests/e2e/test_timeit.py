"""``gilbench timeit``: a statement in 1..N threads (and processes) against
this machine's ceiling, answered in a few lines; its result an ordinary
gilbench result (report, compare and its scaling gate read it); bad input
one line and exit 2 before any result is touched; a hang killed at
--timeout, costing only its own result.

The runs use --quick sizing at 1 and 2 threads: a few seconds each.
"""
import importlib
import json
import os
import subprocess
import sys

import pytest
from helpers import (
    ROOT,
    assert_one_line_usage_error,
    dims,
    pythons_to_test,
    run_harness,
    write_result,
)
from test_free_threading import cc, ft_python, probes
from test_free_threading_run import ft_venv_python

# The free-threaded interpreter's fixtures, shared with its own tests.
SHARED_FIXTURES = (cc, ft_python, probes, ft_venv_python)

ZLIB = ["-s", 'import zlib; d = b"x" * 1000000', "zlib.compress(d, 1)"]
SUM = ["sum(range(10000))"]
# Waits with the GIL released: 2 threads take as long as 1 however fast the
# CPU is at the moment (a machine's speed can drift between benchmarks run
# seconds apart, which a CPU-bound base would carry into its efficiency).
SLEEP = ["-s", "import time", "time.sleep(0.002)"]
QUICK = ["--threads", "1,2", "--quick"]
# Four processes, measured once (the fixed design: no rounds, so no
# decision looks to widen the intervals): where a verdict or a
# significance test needs the power.
SIZED = ["--threads", "1,2", "-p", "4", "-n", "3", "-w", "1",
         "--min-time", "0.02", "--design", "fixed"]
CANNOT_TELL = "Parallel? Cannot tell:"
GIL_BUILD = getattr(sys, "_is_gil_enabled", lambda: True)()


def timeit(tmp_path, name, statement, *extra, **kwargs):
    output = tmp_path / ("%s.json" % name)
    result = run_harness("timeit", "--name", name, "-o", output,
                         *(list(statement) + list(extra)), **kwargs)
    return result, output


def verdict(result):
    found = [line for line in result.stdout.splitlines()
             if "Parallel?" in line]
    assert len(found) == 1, result
    if CANNOT_TELL in found[0]:
        pytest.skip("this machine cannot tell now: %s" % found[0].strip())
    return found[0]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The zlib and the sum statement, measured once for the module."""
    directory = tmp_path_factory.mktemp("timeit")
    return {name: timeit(directory, name, statement, *QUICK)
            for name, statement in (("zlib", ZLIB), ("sum", SUM))}


@pytest.mark.skipif(not GIL_BUILD, reason="a GIL build's verdicts")
def test_a_gil_releasing_call_runs_in_parallel(runs):
    result, output = runs["zlib"]
    assert result.code == 0, result
    line = verdict(result)
    assert "2 threads used" in line and "% CPU and ran" in line, line
    # Fully, or (a loaded machine) partly: never "does not run in parallel".
    assert "does not run in parallel" not in line, result
    assert "runs in parallel (it appears to release the GIL)" in line \
        or "partly in parallel" in line, result
    assert "Result: %s" % output in result.stdout


@pytest.mark.skipif(not GIL_BUILD, reason="a GIL build's verdicts")
def test_a_gil_holding_call_does_not(runs):
    result, _ = runs["sum"]
    assert result.code == 0, result
    assert "does not run in parallel (it appears to hold the GIL)" in \
        verdict(result), result


def test_the_answers_give_time_speedup_efficiency_and_fit(runs):
    result, _ = runs["zlib"]
    lines = result.stdout.splitlines()
    head = [line for line in lines if line.startswith("zlib.compress(d, 1)")]
    assert head and "usable CPUs" in head[0], result
    one = [line for line in lines if line.strip().startswith("1 thread:")]
    assert one and "per call of the statement, CPU" in one[0], result
    two = [line for line in lines if line.strip().startswith("2 threads:")]
    assert two, result
    for part in ("as fast as 1", "against the ideal",
                 "against this machine's ceiling", "CPU"):
        assert part in two[0], two[0]
    assert "[" in two[0] and "]" in two[0], two[0]  # intervals
    assert any("Scalability law over threads: n/a: 2 count(s) measured, a "
               "fit needs 3" in line for line in lines), result


def test_the_result_is_an_ordinary_gilbench_result(runs, tmp_path):
    _, output = runs["zlib"]
    with open(str(output)) as stream:
        suite = json.load(stream)
    names = sorted(b["metadata"]["name"] for b in suite["benchmarks"])
    assert names == ["ceiling.spin.threads.cython/t1",
                     "ceiling.spin.threads.cython/t2",
                     "ceiling.stream.threads.cython/t1",
                     "ceiling.stream.threads.cython/t2",
                     "timeit.zlib.threads.python[objects=shared]/t1",
                     "timeit.zlib.threads.python[objects=shared]/t2"]
    report = run_harness("report", output, "-o", tmp_path / "r.rst")
    assert report.code == 0, report
    text = (tmp_path / "r.rst").read_text()
    for expected in ("Speedup at 2 threads?",
                     "Efficiency against this machine's ceiling, threads",
                     "zlib.compress(d, 1) (setup: import zlib"):
        assert expected in text, expected


def test_compare_and_its_scaling_gate_read_it(runs, tmp_path):
    _, zlib = runs["zlib"]
    same = run_harness("compare", zlib, zlib, "--fail-efficiency-drop", "5")
    assert same.code == 0, same
    # Its repeated questions pair count by count: nothing changed.
    assert "Answers changed: 0 of" in same.stdout, same.stdout
    assert "timeit.zlib.threads.python[objects=shared]/t2" in same.stdout, same
    # The same name in both files pairs the statements: the GIL-holding
    # one loses about half the efficiency of a wait at 2 threads.
    # Four processes a side: compare tests the time changes behind an
    # efficiency drop on process means.
    said = []
    for directory, statement in (("base", SLEEP), ("changed", SUM)):
        (tmp_path / directory).mkdir()
        result, _ = timeit(tmp_path / directory, "call", statement, *SIZED)
        assert result.code == 0, result
        said += [line for line in result.stdout.splitlines()
                 if "Parallel?" in line]
    gated = run_harness("compare", tmp_path / "base" / "call.json",
                        tmp_path / "changed" / "call.json",
                        "--fail-efficiency-drop", "20")
    assert "timeit: case=call, variant=threads, backend=python" in \
        gated.stdout, gated  # its scaling curve, paired
    if not GIL_BUILD or "runs in parallel" in said[-1] \
            or "partly in parallel" in said[-1]:
        pytest.skip("the summing statement ran in parallel here: %s" % said)
    from gilbench.report.commands import compare
    drops = [c for c in compare.compare(
        [str(tmp_path / "base" / "call.json")],
        [str(tmp_path / "changed" / "call.json")]).scaling if c.percent < -20]
    if drops and not drops[0].significant_drop:
        # Four processes a side on a loaded machine: the drop's interval
        # reached 0, or no time change behind it was significant.
        pytest.skip("this machine cannot tell the drop now: %+.0f%% %s, "
                    "backed: %s" % (drops[0].percent, drops[0].interval,
                                    drops[0].backed))
    assert gated.code == 1, gated
    assert "efficiency drop" in gated.stderr, gated


@pytest.mark.parametrize("statement, says", [
    (["1 +"], "the statement does not compile: "),
    (["-s", "raise ValueError('no data')", "pass"],
     "the setup raised ValueError: no data"),
    (["-s", "import no_such_module_here", "pass"],
     "the setup raised "),
    (["1 / 0"], "the statement raised ZeroDivisionError on its first "
     "call: "),
    (["undefined_name()"], "the statement raised NameError on its first "
     "call: name 'undefined_name' is not defined"),
    (["-s", "x = (", "pass"], "the setup does not compile: "),
    (["--name", "two words", "pass"], "--name 'two words'"),
    (["--threads", "one", "pass"], "'one' is not a whole number"),
])
def test_bad_input_is_one_line_and_touches_no_result(tmp_path, statement,
                                                      says):
    output = tmp_path / "kept.json"
    output.write_text("an earlier result")
    result = run_harness("timeit", "-o", output, *statement)
    assert_one_line_usage_error(result)
    assert says in result.stderr_lines[0], result
    assert output.read_text() == "an earlier result"
    assert os.listdir(str(tmp_path)) == ["kept.json"]


def test_a_first_call_that_hangs_is_killed_at_the_timeout(tmp_path):
    result, output = timeit(tmp_path, "hang", ["-s", "import time",
                                               "time.sleep(600)"],
                            "--timeout", "3")
    assert_one_line_usage_error(result)
    assert "the statement's first call did not finish within 3 s " \
           "(--timeout); killed" in result.stderr, result
    assert not output.exists()


def test_a_hang_at_two_threads_costs_only_its_own_result(tmp_path):
    """The trial run has one thread, so it passes; 2 threads hang, and
    the processes driver runs what the threads driver cannot."""
    result, output = timeit(
        tmp_path, "hang2",
        ["-s", "import threading, time",
         "if threading.active_count() > 2: time.sleep(600)"],
        "--threads", "1,2", "--processes", "1,2", "--quick",
        "--timeout", "20")
    assert result.code == 1, result
    assert ("timeit.hang2.threads.python[objects=shared]/t2: hung: killed "
            "after 20 s") in result.stderr, result
    assert "2 threads: hung: killed after 20 s" in result.stdout, result
    assert any(line.strip().startswith("2 processes: ")
               and "as fast as 1" in line
               for line in result.stdout.splitlines()), result
    with open(str(output)) as stream:
        names = sorted(b["metadata"]["name"]
                       for b in json.load(stream)["benchmarks"])
    assert "timeit.hang2.threads.python[objects=shared]/t1" in names
    assert "timeit.hang2.processes.python/p2" in names
    assert "ceiling.spin.processes.cython/p2" in names


def test_the_generated_family_passes_the_registrys_checks():
    from gilbench.model import registry, timeitspec
    # It reads the spec once.
    sys.modules.pop("gilbench.measure.timeitcase", None)
    timeitspec.hand_over({"name": "mine", "stmt": "pass", "setup": "",
                          "threads": [1, 2, 3], "processes": [1, 2],
                          "objects": ["own", "shared"]})
    try:
        found = registry.load_specs(["gilbench.measure.timeitcase"])
    finally:
        os.environ.pop(timeitspec.ENVIRONMENT)
        sys.modules.pop("gilbench.measure.timeitcase", None)
    names = [spec.base_name for spec, _ in found]
    assert names == ["timeit.mine.threads.python",
                     "timeit.mine.processes.python"]
    declared = found[0][1]
    questions = [f["question"] for f in declared.findings]
    assert "Speedup at 3 threads?" in questions
    assert "Scalability-law fit over threads (s, k, peak)?" in questions
    assert "Scalability-law fit over processes (s, k, peak)?" not in \
        questions  # two counts: nothing to fit


@pytest.mark.parametrize("objects, lists", [("own", 2), ("shared", 1)])
def test_own_objects_are_a_set_up_for_each_thread(objects, lists):
    """--objects own: the set-up runs once for each thread, and each
    thread's statement uses its namespace; shared: one for all."""
    from gilbench.measure import fanout
    from gilbench.model import timeitspec
    sys.modules.pop("gilbench.measure.timeitcase", None)
    timeitspec.hand_over({"name": "mine", "stmt": "mine.append(1)",
                          "setup": "import sys; mine = []; "
                          "sys.gilbench_lists.append(mine)",
                          "threads": [1, 2], "processes": [],
                          "objects": [objects]})
    sys.gilbench_lists = []
    try:
        timeitcase = importlib.import_module("gilbench.measure.timeitcase")
        case, = timeitcase.CASES
        work = case.prepare({"threads": 2, "objects": objects})
        fanout.run_threads(work, 2, 3)
        made = sys.gilbench_lists
    finally:
        os.environ.pop(timeitspec.ENVIRONMENT)
        sys.modules.pop("gilbench.measure.timeitcase", None)
        del sys.gilbench_lists
    assert [len(mine) for mine in made] == [6 // lists] * lists


def test_a_dry_run_prints_the_plan_and_runs_nothing(tmp_path):
    """Not even the trial call: a statement that raises plans as any."""
    output = tmp_path / "never.json"
    result = run_harness("timeit", "--dry-run", "-o", output,
                         "--objects", "both", "1 / 0")
    assert result.code == 0, result
    assert "plan for" in result.stdout and "timeit" in result.stdout
    assert "6 benchmarks" in result.stdout, result  # 3 counts x own, shared
    assert "total:" in result.stdout
    assert not output.exists()


def test_the_statement_runs_in_a_loop_in_the_setups_namespace():
    from gilbench.measure import statement
    work = statement.prepare("calls.append(seed)", "calls = []; seed = 7")
    work(3)
    assert work.__globals__["calls"] == [7, 7, 7]
    with pytest.raises(statement.StatementError) as raised:
        statement.prepare("return 1", "")
    assert "the statement does not compile" in str(raised.value)


# Synthetic results: the verdict's thresholds against known speedups.

def _synthetic(tmp_path, timeit_two, ceiling_two, spread, cpu_two):
    """t1 takes 1 ms at 100% CPU, t2 ``timeit_two`` (+- ``spread``) at
    ``cpu_two``; the ceiling 50 us, then ``ceiling_two``; two worker
    processes of two values each."""
    def values(mean, spread=0.01):
        return [[mean * (1 - spread), mean * (1 + spread)], [mean, mean]]

    benchmarks = []
    for count, mean, cpu in ((1, 1e-3, 1.0), (2, timeit_two, cpu_two)):
        benchmarks.append((dims("timeit", "stmt", "threads", "python",
                                threads=count),
                           values(mean, spread if count > 1 else 0.01),
                           {"cpu_utilisation": cpu}))
    for count, mean in ((1, 50e-6), (2, ceiling_two)) if ceiling_two \
            else ():
        benchmarks.append((dims("ceiling", "spin", "threads", "cython",
                                threads=count), values(mean),
                           {"cpu_utilisation": float(count)}))
    return str(write_result(tmp_path, "t.json", "3.11.7", benchmarks,
                            extra={"python_gil": "enabled"}))


@pytest.mark.parametrize("timeit_two, ceiling_two, spread, cpu_two, says", [
    (1.05e-3, 52e-6, 0.01, 1.9, ("Parallel? 2 threads used 190% CPU and "
                                 "ran 1.90x [", "] as fast as 1 (this "
                                 "machine's ceiling: 1.92x): the statement "
                                 "runs in parallel (it appears to release "
                                 "the GIL).")),
    (2.0e-3, 52e-6, 0.01, 1.0, "the statement does not run in parallel (it "
     "appears to hold the GIL)"),
    (1.4e-3, 52e-6, 0.01, 1.45, "the statement runs partly in parallel"),
    # Both threads busy, a partial speedup: the GIL is not what holds it
    # back (zlib.compress of 1 MB, 1.41x at 196% CPU against 1.90x here).
    (1.4e-3, 52e-6, 0.01, 1.96, "the statement runs in parallel (it "
     "appears to release the GIL), but gains 46% of what the ceiling "
     "gains: its threads contend for something else"),
    (2.0e-3, 52e-6, 0.01, 1.9, "does not run faster in parallel: its "
     "threads were busy together"),
    # A speedup without the CPU to show for it is no parallelism (a
    # 1-thread value with more overhead per call, say).
    (1.7e-3, 52e-6, 0.01, 1.0, "the statement does not run in parallel"),
    # Not significant, but parallel is within the interval's reach.
    (1.4e-3, 52e-6, 0.6, 1.4, "the interval reaches both serial and "
     "parallel"),
    # A busy machine cannot show that a statement does not scale, but a
    # statement that reaches the ideal anyway shows it does.
    (2.0e-3, 100e-6, 0.01, 1.0, "its CPUs are busy elsewhere"),
    (1.6e-3, 100e-6, 0.01, 1.25, "its CPUs are busy elsewhere"),
    (1.05e-3, 100e-6, 0.01, 1.9, "the statement runs in parallel"),
    # Nor can a machine whose ceiling was not measured (not built).
    (2.0e-3, None, 0.01, 1.0, "without the ceiling a busy machine looks "
     "the same"),
    (1.05e-3, None, 0.01, 1.9, ("(no ceiling measured; the ideal: 2x): "
                                "the statement runs in parallel")),
    # ... and a gain with the CPU to show for it is parallelism, at least
    # in part (3.13t's free loop: 1.56x at 171% CPU, other jobs running).
    (1.28e-3, None, 0.01, 1.71, "the statement runs at least partly in "
     "parallel."),
])
def test_the_verdict_reads_speedup_and_cpu_against_the_ceiling(
        tmp_path, timeit_two, ceiling_two, spread, cpu_two, says):
    from gilbench.report.tables import timeit_answers
    found = timeit_answers.lines(_synthetic(tmp_path, timeit_two,
                                            ceiling_two, spread, cpu_two),
                                 "stmt")
    says = (says,) if isinstance(says, str) else says
    assert any(all(part in line for part in says) for line in found), found
    assert found[0] == "stmt -- CPython 3.11, 2 usable CPUs, GIL enabled:"


def test_usage_lists_timeit():
    result = run_harness("--help")
    assert "  timeit  does this statement scale?" in result.stdout


def test_the_users_inherit_environ_keeps_the_handed_over_statement(
        monkeypatch):
    """A user's --inherit-environ (e.g. PYTHONPATH for an uninstalled
    gilbench) joins the GILBENCH_* settings instead of replacing them:
    pyperf's workers need the statement."""
    from types import SimpleNamespace

    from gilbench.model.design import Sizing
    from gilbench.runner import child
    monkeypatch.setenv("GILBENCH_TIMEIT", "{}")
    bench = SimpleNamespace(spec=SimpleNamespace(base_name="f.c.v.b",
                                                 module_name="m", sizing=[]),
                            params={"threads": 1}, name="f.c.v.b/t1")
    args = SimpleNamespace(module=None, pin_threads=False, quick=False,
                           fresh_workers=False)
    for given in (["--inherit-environ=PYTHONPATH,HOME"],
                  ["--inherit-environ", "PYTHONPATH,HOME"]):
        cmd = child.command(bench, Sizing(["--fast"]), args, given, "out",
                            "st")
        inherit = [o for o in cmd if "inherit-environ" in o]
        assert len(inherit) == 1, cmd
        names = inherit[0].split("=", 1)[1].split(",")
        assert names[:2] == ["PYTHONPATH", "HOME"], cmd
        assert "GILBENCH_TIMEIT" in names, cmd
        assert "PYTHONPATH,HOME" not in cmd and "--fast" in cmd


def _free_threaded_timeit(python, probes, tmp_path, *args):
    """``python -m gilbench timeit`` on the free-threaded interpreter,
    gilbench (unbuilt: no ceiling) from the probes' directory."""
    output = tmp_path / "ft.json"
    environ = dict(os.environ, PYTHONPATH=probes)
    environ.pop("PYTHON_GIL", None)
    process = subprocess.run(
        [python, "-m", "gilbench", "timeit", "-o", str(output),
         "--inherit-environ=PYTHONPATH"] + list(args), cwd=ROOT,
        env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True, timeout=300)
    return process, output


def test_without_the_gil_a_python_loop_runs_in_parallel(
        ft_venv_python, probes, tmp_path):
    process, output = _free_threaded_timeit(
        ft_venv_python, probes, tmp_path, "sum(range(10000))", *SIZED)
    assert process.returncode == 0, process.stdout + process.stderr
    from gilbench.report.tables import timeit_answers
    found = timeit_answers.lines(str(output), "sum(range(10000))")
    assert "CPython 3.13t" in found[0], found
    assert "GIL disabled (no import re-enabled it)" in found[0], found
    # Without the GIL both are measured by default: each thread's own
    # objects, and the set-up's shared by all (this statement has none).
    assert [line.strip() for line in found if "(--objects" in line] == [
        "Threads, each thread its own objects (--objects own):",
        "Threads, the set-up's objects shared by all (--objects shared):"]
    said = [line for line in found if "Parallel?" in line]
    assert len(said) == 2, found
    if CANNOT_TELL in said[0]:
        pytest.skip("this machine cannot tell now: %s" % said[0].strip())
    # Without the ceiling (not built here) a busy machine's share of the
    # ideal is all there is: scaling is a significant gain, in full or
    # in part -- a GIL build says "does not" of this loop.
    assert "the statement runs in parallel." in said[0] or \
        "partly in parallel." in said[0], found
    assert any(line.strip().startswith("Sharing at 2 threads: shared "
                                       "objects take") for line in found)


def test_without_the_gil_threads_sharing_a_list_contend(
        ft_venv_python, probes, tmp_path):
    """The shared-object trap: every thread summing one list writes its
    reference count (and its items'); each with its own list does not."""
    process, output = _free_threaded_timeit(
        ft_venv_python, probes, tmp_path, "-s", "data = list(range(10000))",
        "sum(data)", *SIZED)
    assert process.returncode == 0, process.stdout + process.stderr
    from gilbench.report.tables import timeit_answers
    found = timeit_answers.lines(str(output), "sum(data)")
    sharing = [line.strip() for line in found if "Sharing at" in line]
    assert len(sharing) == 1, found
    if "cannot tell" in sharing[0]:
        pytest.skip("this machine cannot tell now: %s" % sharing[0])
    assert sharing[0].startswith("Sharing at 2 threads: shared objects "
                                 "take "), found
    assert sharing[0].endswith("sharing is what costs: the threads contend "
                               "on the shared objects (their reference "
                               "counts, their locks)."), found


def test_an_import_that_enables_the_gil_is_named(ft_venv_python, probes,
                                                 tmp_path):
    process, output = _free_threaded_timeit(
        ft_venv_python, probes, tmp_path, "-s", "import ftprobe_gil",
        "pass", *QUICK)
    assert process.returncode == 2, process.stdout + process.stderr
    # The trial run's own RuntimeWarning stays in its output file.
    lines = [line for line in process.stderr.splitlines() if line.strip()]
    assert lines == ["gilbench: error: the GIL was re-enabled by import of "
                     "ftprobe_gil during the set-up or the first call: a "
                     "free-threaded measurement is impossible (PYTHON_GIL=1 "
                     "measures with the GIL on)"], process.stderr
    assert not output.exists()


def test_several_interpreters_answer_in_one_table(tmp_path):
    """--python, repeated: each interpreter measures, one table answers
    with a column per interpreter (on the CI smoke's 2.7, PyPy and
    3.13t too, which GILBENCH_TEST_PYTHONS names)."""
    pythons = pythons_to_test()
    if len(pythons) < 2:
        pythons = pythons * 2
    options = []
    for python in pythons:
        options += ["--python", python]
    result = run_harness("timeit", "-p", "1", "-n", "2", "-w", "0",
                         "--min-time", "0.001", "--threads", "1,2",
                         "--time", "10", "-o", tmp_path,
                         *(options + SUM), timeout=600)
    assert result.code == 0, result
    lines = result.stdout.splitlines()
    header = [line for line in lines if line.strip().startswith("|")][0]
    assert header.count("|") == len(pythons), result
    assert any(line.strip().startswith("2 threads") for line in lines)
    # "(threads own)" and "(threads shared)" where one is free-threaded.
    assert any(line.strip().startswith("parallel? (threads")
               for line in lines), result
    assert len(list(tmp_path.glob("timeit-*.json"))) == len(pythons)


@pytest.mark.parametrize("python, said", [
    ("/no/such/python", "no such interpreter"),
    ("/usr/bin/python3", "gilbench is not importable there"),
])
def test_an_interpreter_that_cannot_run_it_is_one_line(python, said):
    if not os.path.exists(python) and "no such" not in said:
        pytest.skip("no %s here" % python)
    result = run_harness("timeit", "--python", python, *SUM)
    assert_one_line_usage_error(result)
    assert said in result.stderr, result
