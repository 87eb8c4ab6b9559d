"""The GRWL family's simulated core (extensions/grwl.c) and its case module.

The overlap check inside the C counts no violation in the gil and grwl
modes (and does count them when the write lock is skipped), the counters
add up to the units executed, every mode terminates, and the case module
records what it promises.
"""
import json
import subprocess
import sys
import textwrap
import threading

import pytest
from helpers import ROOT, drive, run_harness

grwl_case = pytest.importorskip("gilbench.cases.grwl")
_grwl_cy = pytest.importorskip("gilbench.extensions._grwl_cy",
                               reason="Cython extension not built")

LOCKING = ("gil", "grwl", "grwl_rp")
MODES = ("nosync",) + LOCKING
MASK = (1 << 64) - 1
SEED = 0x9e3779b97f4a7c15
TIMEOUT = 60


def backends():
    found = ["cython"]
    try:
        import gilbench.extensions._grwl_cffi  # noqa: F401
        found.append("cffi")
    except ImportError:
        pass
    return found


def make_core(backend, mode, counters="none", switch_units=1000):
    return grwl_case.BACKENDS[backend][0](mode, counters, switch_units)


def run_threads(core, nthreads, units, ppm):
    """``core.run`` in ``nthreads`` threads started together; all must end
    within TIMEOUT."""
    gate = threading.Event()
    states = [None] * nthreads

    def body(index):
        gate.wait()
        states[index] = core.run(units, ppm, index)

    threads = [threading.Thread(target=body, args=(i,))
               for i in range(nthreads)]
    for thread in threads:
        thread.daemon = True
        thread.start()
    gate.set()
    for thread in threads:
        thread.join(TIMEOUT)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    return states


def xorshift_units(x, units):
    """What gr_run's unit chain computes, in Python."""
    for _ in range(units * 8):
        x ^= (x << 13) & MASK
        x ^= x >> 7
        x ^= (x << 17) & MASK
    return x


@pytest.mark.parametrize("backend", backends())
def test_units_do_the_declared_work(backend):
    core = make_core(backend, "nosync")
    for phase in (0, 3):
        assert core.run(7, 0, phase) == xorshift_units(SEED ^ phase, 7)
    assert _grwl_cy.unit(1) == xorshift_units(1, 1)


@pytest.mark.parametrize("backend", backends())
@pytest.mark.parametrize("mode", LOCKING)
@pytest.mark.parametrize("nthreads", [2, 4])
def test_no_overlap_violations(backend, mode, nthreads):
    core = make_core(backend, mode, switch_units=100)
    run_threads(core, nthreads, 100000, 100000)
    totals = core.totals()
    assert totals["violations"] == 0
    assert totals["units"] == nthreads * 100000
    assert totals["writes"] == nthreads * 10000


def test_the_check_sees_a_writer_without_the_write_lock():
    """GR_BROKEN skips the write lock: the same check must count overlaps
    (with 4 threads on any number of CPUs, within a few attempts)."""
    core = make_core("cython", "broken")
    for _ in range(20):
        run_threads(core, 4, 200000, 100000)
        if core.totals()["violations"]:
            break
    assert core.totals()["violations"] > 0


@pytest.mark.parametrize("backend", backends())
@pytest.mark.parametrize("counters", ["shared", "flushed"])
@pytest.mark.parametrize("mode", MODES)
def test_counters_total_the_units_executed(backend, counters, mode):
    core = make_core(backend, mode, counters)
    units = 3 * 1024 + 17  # not a multiple of the flush interval
    run_threads(core, 3, units, 10000)
    totals = core.totals()
    assert totals["units"] == 3 * units
    assert totals["counted_units"] == 3 * units
    assert totals["counted_bytes"] == 3 * units * _grwl_cy.UNIT_BYTES


def test_no_counters_count_nothing():
    core = make_core("cython", "nosync", "none")
    run_threads(core, 2, 5000, 0)
    assert core.totals()["counted_units"] == 0


def test_exclusive_units_are_the_write_fraction():
    for ppm in (0, 1000, grwl_case.PPM):
        core = make_core("cython", "grwl")
        core.run(10 ** 6, ppm, 5)
        assert core.totals()["writes"] == ppm, ppm


def test_bad_mode_is_refused():
    with pytest.raises(ValueError):
        _grwl_cy.Core(99, 0, 1)


TERMINATES = textwrap.dedent("""
    import sys, threading
    from cases import grwl
    backend, mode = sys.argv[1:]
    for nthreads in (1, 2, 3, 4):
        for ppm in (0, 1000, 100000, 1000000):
            core = grwl.BACKENDS[backend][0](mode, "shared", 1000)
            threads = [threading.Thread(target=core.run,
                                        args=(20000, ppm, i))
                       for i in range(nthreads)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert core.totals()["violations"] == 0 or mode == "nosync"
    print("ok")
""")


@pytest.mark.parametrize("backend", backends())
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.e2e
def test_every_mode_terminates_under_a_timeout(backend, mode):
    """1-4 threads, write fractions 0 to 1: a hang is a killed child."""
    out = subprocess.run(
        [sys.executable, "-c", TERMINATES, backend, mode], cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True, timeout=TIMEOUT)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def spec(base_name):
    (found,) = [s for s in grwl_case.CASES if s.base_name == base_name]
    return found


def run_spec(base_name, nthreads, loops=50, **params):
    """One value through the threads driver; what the case recorded."""
    params["threads"] = nthreads
    return drive(spec(base_name), params, loops)


@pytest.mark.parametrize("base_name", [
    "grwl.core.nosync.cython", "grwl.core.gil.cython",
    "grwl.core.grwl.cython", "grwl.core.grwl_rp.cython"])
def test_core_cases_record_no_violations(base_name):
    facts = run_spec(base_name, 2, write_frac=0.1)
    assert facts["violations"] == 0
    assert facts["exclusive_units"] == 2 * 50 * grwl_case.UNITS_PER_LOOP // 10
    assert "counter_error" not in facts
    assert "reader_units_per_s" not in facts


@pytest.mark.parametrize("counters", ["shared", "flushed"])
def test_counter_case_records_exact_counters(counters):
    facts = run_spec("grwl.counters.nosync.cython", 3, counters=counters)
    assert facts["counter_error"] == 0


@pytest.mark.parametrize("mode", ["grwl", "grwl_rp"])
def test_groups_record_per_role_throughput(mode):
    facts = run_spec("grwl.groups.%s.cython" % mode, 3, writers=1)
    assert facts["violations"] == 0
    assert facts["reader_units_per_s"] > 0
    assert facts["writer_units_per_s"] > 0
    assert facts["exclusive_units"] == 50 * grwl_case.UNITS_PER_LOOP


def test_groups_exclude_groups_without_readers():
    group = spec("grwl.groups.grwl.cython")
    assert group.exclude({"threads": 1, "writers": 1})
    assert group.exclude({"threads": 2, "writers": 1}) is None


def test_ops_per_loop_counts_units_of_all_threads():
    for case in grwl_case.CASES:
        assert case.ops_per_loop({"threads": 3}) == \
            3 * grwl_case.UNITS_PER_LOOP


@pytest.mark.e2e
def test_through_the_cli_with_tables(tmp_path):
    """One benchmark of each case: the report refuses a table naming a
    dimension (counters, writers) that no benchmark of the file has."""
    output = tmp_path / "grwl.json"
    result = run_harness(
        "run", "--module", "cases/grwl.py", "--case", "grwl.groups.*",
        "--case", "grwl.core.grwl.cython", "--case", "grwl.counters.*",
        "--threads", "2", "--param", "write_frac=0.01",
        "--param", "counters=shared", "-o", output,
        "-p", "1", "-n", "1", "-w", "0", "-l", "1", timeout=170)
    assert result.code == 0, result
    suite = json.loads(output.read_text())
    runs = {}
    for bench in suite["benchmarks"]:
        meta = dict(suite["metadata"], **bench.get("metadata", {}))
        for run in bench["runs"]:
            meta_run = dict(meta, **run.get("metadata", {}))
            runs[meta_run["name"]] = meta_run
    assert sorted(runs) == [
        "grwl.core.grwl.cython[write_frac=0.01]/t2",
        "grwl.counters.nosync.cython[counters=shared]/t2",
        "grwl.groups.grwl.cython[writers=1]/t2",
        "grwl.groups.grwl_rp.cython[writers=1]/t2"]
    for meta in runs.values():
        assert meta["violations"] == 0
        assert meta["ops_per_loop"] == 2 * grwl_case.UNITS_PER_LOOP
    assert runs["grwl.groups.grwl.cython[writers=1]/t2"][
        "writer_units_per_s"] > 0
    assert runs["grwl.counters.nosync.cython[counters=shared]/t2"][
        "counter_error"] == 0

    for fmt in ("rst", "md"):
        report = tmp_path / ("report." + fmt)
        rendered = run_harness("report", output, "-o", report)
        assert rendered.code == 0, rendered
    text = (tmp_path / "report.rst").read_text(encoding="utf-8")
    from gilbench.report.pages import render
    assert render.rst_problems(text) == ""
    assert "Reader/writer groups" in text
