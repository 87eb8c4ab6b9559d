"""The ceiling family: cl_spin does real, calibrated work on each worker's
own cache lines, its cases run end to end under both drivers (and on a
free-threaded build with the GIL left off), and the report computes their
2-worker speedups.

No test asserts a speedup: on a loaded 2-core machine it is noise.
"""
import os
import re
import timeit

import pyperf
import pytest
from helpers import drive, findings_row, run_harness
from test_free_threading import cc, cython_tree, ft_python, guarded  # noqa: F401  (fixtures)
from test_grwl_native import instructions
from test_native_optimiser import (
    callers_of,
    disassemble,
    extension_file,
    needs_objdump,
)

from gilbench.measure import fanout
from gilbench.model import registry

ceiling = pytest.importorskip("gilbench.cases.ceiling")
_ceiling_cy = pytest.importorskip("gilbench.extensions._ceiling_cy",
                                  reason="Cython extension not built")

MODULES = {"cython": ceiling.CYTHON_MODULE, "cffi": ceiling.CFFI_MODULE}
MAKE_STATES = {"cython": ceiling.cython_states, "cffi": ceiling.cffi_states}
LINE = 128
MASK = (1 << 64) - 1
SEED = 0x9e3779b97f4a7c15


def xorshift(x, steps):
    """What cl_spin computes, in Python."""
    for _ in range(steps):
        x ^= (x << 13) & MASK
        x ^= x >> 7
        x ^= (x << 17) & MASK
    return x


def spec(variant, backend, case="spin"):
    (found,) = [s for s in ceiling.CASES
                if (s.case, s.variant, s.backend) == (case, variant, backend)]
    return found


@pytest.fixture(params=sorted(MODULES))
def backend(request):
    pytest.importorskip(MODULES[request.param],
                        reason="%s extension not built" % request.param)
    return request.param


# -- the C work survives the optimiser -----------------------------------

@needs_objdump
@pytest.mark.e2e
def test_cl_spin_holds_the_chain_in_a_loop(backend):
    mnemonics = instructions(extension_file(MODULES[backend]), "cl_spin")
    assert mnemonics, "no cl_spin function"
    assert sum(m.startswith("sh") for m in mnemonics) >= 3, mnemonics
    assert sum(m.startswith("xor") for m in mnemonics) >= 3, mnemonics
    # The loop: a conditional jump back, not a folded constant.
    assert any(m.startswith("j") and m != "jmp" for m in mnemonics), \
        mnemonics


@needs_objdump
@pytest.mark.e2e
def test_the_wrappers_call_cl_spin(backend):
    callers = callers_of(disassemble(extension_file(MODULES[backend])),
                         "cl_spin")
    if backend == "cython":
        assert any(c.endswith("State_5spin") for c in callers), callers
    else:
        assert any("cl_spin" in c for c in callers), callers
    # The calibration times the real function, not an inlined copy.
    assert "spin_ns" in callers or "calibrate" in callers, callers


@pytest.mark.parametrize("steps", [0, 1, 5, 1000])
def test_spin_is_the_xorshift_chain(steps):
    state = _ceiling_cy.State(steps)
    state.spin()
    state.spin()
    assert state.value() == xorshift(SEED, 2 * steps)


def test_cffi_spin_is_the_same_chain():
    module = pytest.importorskip(ceiling.CFFI_MODULE)
    state = module.ffi.gc(module.lib.cl_new(), module.lib.cl_free)
    module.lib.cl_spin(state, 77)
    assert module.lib.cl_value(state) == xorshift(SEED, 77)


def test_negative_iterations_are_refused():
    with pytest.raises(ValueError):
        _ceiling_cy.State(-1)


def test_a_call_takes_about_call_us():
    iterations = _ceiling_cy.iters_for_us(ceiling.CALL_US)
    assert iterations == pytest.approx(
        ceiling.CALL_US * 1e3 / _ceiling_cy.ns_per_iter(), abs=1)
    assert _ceiling_cy.calibration_ms() > 0
    spin = _ceiling_cy.State(iterations).spin
    fastest = min(timeit.repeat(spin, number=1, repeat=50))
    # Calibrated on the fastest rounds: a loaded machine only slows it.
    assert 0.5 * ceiling.CALL_US < fastest * 1e6 < 5 * ceiling.CALL_US


# -- the memory ceiling streams through memory ---------------------------

@pytest.mark.parametrize("passes", [1, 3])
def test_a_stream_pass_writes_each_source_word_plus_the_pass(passes):
    words = 1 << 13
    stream = _ceiling_cy.Stream(8 * words)
    for _ in range(passes):
        stream.spin()
    assert [stream.word(i) for i in (0, 1, words - 1)] == [
        passes, 1 + passes, words - 1 + passes]
    assert stream.word(words) == 0 and stream.word(-1) == 0


def test_cffi_stream_is_the_same_pass():
    module = pytest.importorskip(ceiling.CFFI_MODULE)
    lib = module.lib
    stream = module.ffi.gc(lib.cl_stream_new(8 * 100), lib.cl_stream_free)
    lib.cl_stream_pass(stream)
    lib.cl_stream_pass(stream)
    assert lib.cl_stream_word(stream, 99) == 101


def test_a_stream_needs_a_word():
    with pytest.raises(ValueError):
        _ceiling_cy.Stream(7)


def test_a_duets_partners_share_their_streams(monkeypatch):
    """A duet of 1 and 2 threads sets up two streams, not three: its
    partners take turns, so each worker's stream is shared."""
    monkeypatch.setattr(ceiling, "_STREAMS", [])
    monkeypatch.setattr(ceiling, "stream_bytes", lambda: 8 * 64)
    one = ceiling.cython_streams(1)
    two = ceiling.cython_streams(2)
    assert two[0] is one[0] and two[1] is not two[0]
    assert len(ceiling._STREAMS) == 2
    assert ceiling.cython_streams(1)[0] is one[0]


def test_each_buffer_is_at_least_the_last_level_cache():
    from gilbench.model import machine
    assert ceiling.stream_bytes() >= max(machine.last_level_cache() or 0,
                                         ceiling.STREAM_MIN_BYTES)


@needs_objdump
@pytest.mark.e2e
def test_cl_stream_pass_keeps_its_loop_and_stores():
    mnemonics = instructions(extension_file(ceiling.CYTHON_MODULE),
                             "cl_stream_pass")
    assert mnemonics, "no cl_stream_pass function"
    assert any(m.startswith("j") and m != "jmp" for m in mnemonics), \
        mnemonics
    assert any("mov" in m for m in mnemonics), mnemonics
    assert any(m.startswith(("add", "padd", "vpadd")) for m in mnemonics), \
        mnemonics


# -- one state per worker, each on its own cache lines -------------------

def test_states_are_aligned_and_apart(backend):
    addresses = sorted(s.address for s in MAKE_STATES[backend](5))
    assert all(a % LINE == 0 for a in addresses), addresses
    gaps = [b - a for a, b in zip(addresses, addresses[1:])]
    assert min(gaps) >= LINE, gaps


def test_each_thread_spins_only_its_own_state():
    states = [_ceiling_cy.State(steps) for steps in (3, 5)]
    fanout.run_threads(ceiling.Spinners(states), 2, loops=4)
    assert [s.value() for s in states] == [xorshift(SEED, 4 * 3),
                                           xorshift(SEED, 4 * 5)]


@pytest.mark.parametrize("variant,backend,count", [
    ("threads", "cython", {"threads": 2}),
    ("threads", "cffi", {"threads": 2}),
    ("processes", "cython", {"processes": 2})])
def test_drive_one_value_records_the_calibration(variant, backend, count):
    pytest.importorskip(MODULES[backend])
    recorded = drive(spec(variant, backend), count, 3)
    # Each module calibrates its own copy of ceiling.c.
    assert recorded["ns_per_iter"] > 0 and recorded["calibration_ms"] > 0
    assert recorded["iterations"] == pytest.approx(
        ceiling.CALL_US * 1e3 / recorded["ns_per_iter"], abs=1)


def test_every_count_the_gil_family_uses():
    gil = registry.load(None, registry.Selection(), ["gil.trivial.*"])
    gil_counts = sorted(set(b.params["threads"] for b in gil))
    for variant in ("threads", "processes"):
        axis = spec(variant, "cython").axis(variant)
        assert axis.values == gil_counts and axis.quick == [1, 2]


@pytest.mark.e2e
@pytest.mark.parametrize("cpus, counts", [
    (2, "1,2"), (8, "1,2,4,8"), (64, "1,2,16,64")])
def test_the_memory_ceiling_counts_threads_up_to_the_usable_cpus(cpus,
                                                                counts):
    # Beyond the CPUs threads take turns, which the compute ceiling shows;
    # each stream thread's buffers cost their set-up in every process.
    env = dict(os.environ, GILBENCH_PLAN_CPUS=str(cpus))
    listed = run_harness("list", "--case", "ceiling.*", env=env)
    assert listed.code == 0, listed
    stream, = [line for line in listed.stdout.splitlines()
               if line.startswith("ceiling.stream.")]
    assert "[threads=%s]" % counts in stream, stream
    # The compute ceiling still reads beyond them.
    spin, = [line for line in listed.stdout.splitlines()
             if line.startswith("ceiling.spin.threads.cython")]
    spun = re.search(r"\[threads=([\d,]+)\]", spin).group(1)
    assert max(int(n) for n in spun.split(",")) > cpus, spin


# -- end to end: run, then report ----------------------------------------

@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    output = tmp_path_factory.mktemp("ceiling") / "ceiling.json"
    # A first look's shape with calibrated loops, not MINIMAL_PYPERF's
    # one process of one loop: a value of one spin is noise, and one
    # process apart beside two duets of it cannot tell a speedup.
    result = run_harness("run", "--case", "ceiling.*", "--quick", "-o",
                         output, "-p", "2", "-n", "2", "-w", "0",
                         timeout=300)
    assert result.code == 0, result
    return output


def test_both_drivers_run_at_one_and_two(quick_run):
    suite = pyperf.BenchmarkSuite.load(str(quick_run))
    found = {}
    for bench in suite.get_benchmarks():
        meta = bench.get_metadata()
        count = meta.get("threads", meta.get("processes"))
        found.setdefault((meta["case"], meta["variant"], meta["backend"]),
                         []).append(count)
        assert bench.get_values() and all(v > 0 for v in bench.get_values())
        said = "ns_per_iter" if meta["case"] == "spin" else "stream_bytes"
        assert all(said in run.get_metadata()
                   for run in bench.get_runs() if run.values)
    expected = {("spin", "threads", "cython"): [1, 2],
                ("spin", "processes", "cython"): [1, 2],
                ("stream", "threads", "cython"): [1, 2]}
    if "cffi" in {b for _, _, b in found}:
        expected[("spin", "threads", "cffi")] = [1, 2]
    assert found == expected


@pytest.mark.e2e
def test_report_answers_the_three_ceiling_findings(quick_run, tmp_path):
    output = tmp_path / "report.md"
    result = run_harness("report", quick_run, "-o", output)
    assert result.code == 0, result
    text = output.read_text()
    number = r"\d+(?:\.\d+)?x"
    for question in ("ceiling: speedup of a perfectly parallel C loop at 2 "
                     "threads?", "... and at 2 processes?",
                     "... and streaming through memory at 2 threads?"):
        # "Q1 (ceiling): the question", then the answers in "|Q1 |..."
        asked = next(line for line in text.splitlines() if question in line)
        answers = findings_row(text, asked.split(" ")[0])
        assert re.search(number, answers[0]), answers
    for title in ("Ceiling: speedup over 1 worker, threads",
                  "Ceiling: speedup over 1 worker, processes",
                  "Memory ceiling: speedup over 1 thread"):
        assert title in text
    tables = text.split("Ceiling: speedup over 1 worker, processes")[-1]
    row = next(text for text in tables.splitlines()
               if re.match(r"\|\s*2\s*\|", text))
    assert re.search(number, row), row


# -- free-threaded CPython -----------------------------------------------

@pytest.mark.e2e
def test_free_threaded_spin_keeps_the_gil_off(ft_python, cc,
                                              tmp_path_factory):
    tree = cython_tree(ft_python, cc, tmp_path_factory.mktemp("ceiling_cy"),
                       "ceiling")
    report, stderr = guarded(ft_python, tree, """
        import threading
        import gilbench.extensions._ceiling_cy as module
        states = [module.State(1000) for _ in range(2)]
        spinners = [threading.Thread(target=s.spin) for s in states]
        for thread in spinners:
            thread.start()
        for thread in spinners:
            thread.join()
        """, files="[module.__file__] + [s.value() for s in states]")
    assert report["files"][0].startswith(tree)
    assert report["files"][1:] == [xorshift(SEED, 1000)] * 2
    assert report["state"]["python_gil"] == "disabled", stderr
    assert report["reason"] is None

