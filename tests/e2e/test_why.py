"""Why a call does not scale, end to end on this interpreter (a GIL
build; bench/causes_check.py runs every known cause on 3.11 and 3.13t,
three times each): ``timeit --why`` samples where the threads wait with
py-spy, and names the GIL for a GIL-held call and a lock for a call
under one shared lock; the report's JSON and RST carry the cause.  The
memory-bound call is left to the bench: on this machine its speedup is
told from the compute ceiling's in 2 of 3 short runs only.

These assert causes, not speeds: a waiting thread uses no CPU whatever
the machine does, and the samples tell the GIL from a lock."""
import json
import os

import pytest
from helpers import run_harness

from gilbench.measure import gilguard, whysampler

FIXTURES = os.path.join(os.path.dirname(__file__), os.pardir, "fixtures",
                        "causes")

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(gilguard.gil_enabled() is not True,
                       reason="the known causes here are a GIL build's"),
    pytest.mark.skipif(whysampler.locate() is None,
                       reason="py-spy is not installed here"),
]


def why_timeit(tmp_path, module):
    output = tmp_path / (module + ".json")
    env = dict(os.environ, PYTHONPATH=os.path.abspath(FIXTURES))
    result = run_harness(
        "timeit", "--why", "--objects", "own", "--threads", "1,2",
        "--time", "15", "-o", output, "-s",
        "import %s as m; d = m.data()" % module, "m.call(d)", env=env,
        timeout=300)
    assert result.code == 0, result
    return result, output


def why_line(result):
    said = [line for line in result.stdout.splitlines() if "Why not:" in line]
    assert len(said) == 1, result.stdout
    return said[0]


def ceiling_too_low(result):
    """Whether timeit said this machine's ceiling showed too little
    parallelism to judge against (the host's other guests took its CPUs:
    a CI run read the ceiling 1.25x at 2 threads).  Then a cause is named
    only where the speedup still falls short of that ceiling by the
    margin, and where one is named it must be the right one."""
    from gilbench.report.tables import timeit_answers
    busy = timeit_answers.CANNOT_TELL[timeit_answers.BUSY]
    return busy in " ".join(result.stdout.split())


@pytest.fixture(scope="module")
def held(tmp_path_factory):
    return why_timeit(tmp_path_factory.mktemp("why"), "cause_held_gil")


def test_a_gil_held_call_is_named_from_its_samples(held):
    result, _ = held
    if ceiling_too_low(result) and "Why not:" not in result.stdout:
        return
    said = why_line(result)
    assert "the GIL:" in said and "samples waiting for the GIL" in said, \
        result.stdout


def test_the_samples_are_in_the_result_beside_the_benchmark(held):
    _, output = held
    with open(str(output)) as stream:
        suite = json.load(stream)
    sampled = {}
    for bench in suite["benchmarks"]:
        for run in bench["runs"]:
            meta = run.get("metadata", {})
            if "why_samples" in meta or "why_unavailable" in meta:
                sampled[bench["metadata"]["name"]] = meta
    # The work at 2 threads only: not its 1 thread, nor the ceilings.
    assert list(sampled) == ["timeit.stmt.threads.python[objects=own]/t2"]
    meta = sampled["timeit.stmt.threads.python[objects=own]/t2"]
    assert meta["why_samples"] > 0, meta
    assert abs(sum(meta["why_" + name] for name in whysampler.CLASSES)
               - 1) < 0.01, meta


def test_the_report_carries_the_cause(held, tmp_path):
    result, output = held
    page = tmp_path / "report.json"
    rst = tmp_path / "report.rst"
    result = run_harness("report", output, "-o", page, "-o", rst)
    assert result.code == 0, result
    with open(str(page)) as stream:
        findings = json.load(stream)["findings"]
    named = [answer["cause"] for finding in findings
             for answer in finding["answers"] if answer["cause"]]
    # The work's answers; the ceilings' own answers get none.
    if ceiling_too_low(result):
        # Named right, or said to be short of a ceiling that may yet be
        # reached.
        assert {cause["name"] for cause in named} <= {"gil", "unclear"}, \
            named
        return
    assert named and {cause["name"] for cause in named} == {"gil"}, named
    assert "why, " in rst.read_text() and "the GIL:" in rst.read_text()


def test_a_call_under_one_shared_lock_waits_on_the_lock(tmp_path):
    result, _ = why_timeit(tmp_path, "cause_shared_lock")
    if ceiling_too_low(result) and "Why not:" not in result.stdout:
        return
    assert "waits on a lock:" in why_line(result), result.stdout
