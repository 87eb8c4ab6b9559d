"""The service family: its id generators (extensions/service.c and the
Python twin in cases/service.py) and its UDP service on loopback.

The generators hand out unique, increasing ids from many threads, lay them
out as the header says, and cap (or borrow the next tick) when a tick's
sequence is used up.  The service answers every request with no duplicate,
records what it promises, and leaves no process behind: after a run, a
client that crashes, a server that dies, a benchmark killed at its
timeout, and a benchmark process killed outright.
"""
import os
import signal
import textwrap
import threading
import time

import psutil
import pyperf
import pytest
from helpers import MINIMAL_PYPERF, drive, run_harness

from gilbench.measure import record as record_module
from gilbench.model.registry import Unavailable

service = pytest.importorskip("gilbench.cases.service")
ids_module = pytest.importorskip("gilbench.cases._service_ids")
udp = pytest.importorskip("gilbench.cases._service_udp")
clients = pytest.importorskip("gilbench.cases._service_clients")


def backends():
    found = ["python"]
    for backend, module in sorted(ids_module.MODULES.items()):
        try:
            __import__(module)
            found.append(backend)
        except ImportError:
            pass
    return found


@pytest.fixture
def sink():
    metadata = {}
    record_module.set_sink(metadata)
    yield metadata
    record_module.set_sink(None)


def survivors(pids):
    alive = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


def wait_gone(pids, seconds=5.0):
    deadline = time.time() + seconds
    while survivors(pids) and time.time() < deadline:
        time.sleep(0.05)
    return survivors(pids)


# --- generators --------------------------------------------------------------

@pytest.mark.parametrize("backend", backends())
def test_ids_unique_and_increasing_across_threads(backend):
    gen = ids_module.GENERATORS[backend](7)
    lists = [None] * 4
    gate = threading.Event()

    def body(index):
        gate.wait()
        lists[index] = [gen.next_id() for _ in range(20000)]
    threads = [threading.Thread(target=body, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    gate.set()
    for thread in threads:
        thread.join(60)
    assert ids_module.duplicates(lists) == 0
    assert ids_module.nonmonotonic(lists) == 0
    assert {ids_module.node_of(i) for ids in lists for i in ids} == {7}


@pytest.mark.parametrize("backend", backends())
def test_layout_is_time_node_sequence(backend):
    first = ids_module.GENERATORS[backend](5).next_id()
    now_tick = int(time.time() * 1000) - ids_module.EPOCH_MS
    shift = ids_module.NODE_BITS + ids_module.SEQ_BITS
    assert first > 0
    assert abs((first >> shift) - now_tick) < 1000
    assert ids_module.node_of(first) == 5
    assert first & ((1 << ids_module.SEQ_BITS) - 1) == 0  # a fresh tick


@pytest.mark.parametrize("backend", backends())
def test_capped_generator_fails_when_a_tick_is_used_up(backend):
    # 2 sequence bits and a tick of ~11 days: 4 ids, then OutOfIds.
    gen = ids_module.GENERATORS[backend](1, 2, 10 ** 9, True)
    ids = [gen.next_id() for _ in range(7)]
    assert ids[4:] == [-1, -1, -1]
    assert ids[:4] == list(range(ids[0], ids[0] + 4))
    assert gen.errors() == 3


@pytest.mark.parametrize("backend", backends())
def test_uncapped_generator_borrows_the_next_tick(backend):
    gen = ids_module.GENERATORS[backend](3, 2, 10 ** 9, False)
    ids = [gen.next_id() for _ in range(9)]
    shift = ids_module.NODE_BITS + 2
    ticks = [i >> shift for i in ids]
    assert ticks == [ticks[0]] * 4 + [ticks[0] + 1] * 4 + [ticks[0] + 2]
    assert sorted(set(ids)) == ids
    assert {ids_module.node_of(i, 2) for i in ids} == {3}
    assert gen.errors() == 0


def test_c_constants_match_python():
    cython = pytest.importorskip("gilbench.extensions._service_cy")
    assert (cython.NODE_BITS, cython.SEQ_BITS, cython.EPOCH_MS) == (
        ids_module.NODE_BITS, ids_module.SEQ_BITS, ids_module.EPOCH_MS)


@pytest.mark.parametrize("backend", backends())
def test_bad_node_is_refused(backend):
    with pytest.raises(ValueError):
        ids_module.GENERATORS[backend](1 << ids_module.NODE_BITS)


def test_checks_count_duplicates_disorder_and_shares():
    node = lambda n, seq: (n << ids_module.SEQ_BITS) | seq  # noqa: E731
    lists = [[node(1, 1), node(2, 5), node(1, 3)],
             [node(1, 2), node(2, 4), node(1, 3)]]
    assert ids_module.duplicates(lists) == 1
    assert ids_module.nonmonotonic(lists) == 0
    assert ids_module.nonmonotonic([[node(1, 3), node(1, 2)]]) == 1
    assert ids_module.served(lists, [1, 2, 3]) == [4, 2, 0]


def test_a_lone_flow_in_order_has_no_duplicates_to_sort_for():
    node = lambda n, seq: (n << ids_module.SEQ_BITS) | seq  # noqa: E731
    twice = [[node(1, 1), node(1, 1)]]
    assert ids_module.nonmonotonic(twice) == 1  # so it is sorted: found
    assert ids_module.duplicates(twice, disorder=1) == 1
    assert ids_module.duplicates([[node(1, 1), node(1, 2)]], disorder=0) == 0


def test_the_c_tally_counts_as_the_python_one():
    import random
    cython = pytest.importorskip(ids_module.CYTHON_MODULE)
    node = lambda n, seq, tick: (  # noqa: E731
        tick << (ids_module.NODE_BITS + ids_module.SEQ_BITS)
        | n << ids_module.SEQ_BITS | seq)
    rng = random.Random(7)
    for _ in range(500):
        nodes = rng.sample(range(1 << ids_module.NODE_BITS), 3)
        ids = sorted(node(rng.choice(nodes), rng.randint(0, 3),
                          rng.randint(0, 20)) for _ in range(40))
        for _ in range(rng.randint(0, 4)):  # some out of order
            i, j = rng.randrange(40), rng.randrange(40)
            ids[i], ids[j] = ids[j], ids[i]
        ids += rng.sample(ids, rng.randint(0, 2)) + [-1] * rng.randint(0, 2)
        assert cython.tally(ids) == ids_module.tally_python(ids), ids
    assert cython.tally([]) == ({}, 0)


# --- the service, in this process --------------------------------------------

def make_service(backend="python", threaded=False, servers=2, clients=2,
                 client="python"):
    return udp.Service({"servers": servers, "clients": clients,
                        "client": client}, backend, threaded)


def client_kinds():
    try:
        clients.native_driver()
    except Unavailable:
        return ["python"]
    return ["python", "native"]


@pytest.mark.parametrize("backend", ["python", "echo"])
@pytest.mark.parametrize("client", client_kinds())
@pytest.mark.parametrize("threaded", [False, True])
def test_service_answers_every_request_once(sink, threaded, client,
                                            backend):
    svc = make_service(backend, threaded=threaded, client=client)
    pids = svc.pids()
    try:
        wall = svc(2)
    finally:
        svc.close()
    assert wall > 0
    assert sink["requests"] == 2 * udp.REQUESTS_PER_LOOP
    assert sink["errors"] == 0
    assert sink["duplicates"] == 0
    assert sink["nonmonotonic"] == 0
    counts = [int(c) for c in sink["served"].split(",")]
    assert len(counts) == 2 and sum(counts) == sink["requests"]
    assert sink["ids_per_s"] == pytest.approx(sink["requests"] / wall)
    assert sink["load_generator"] in ((client,) if client == "python"
                                      else ("cython", "cffi"))
    assert sink["placement"] == "shared"  # not pinned
    assert sink["server_cpus"] == sink["client_cpus"] >= 1
    assert sink["client_cpu_pct"] > 0 and sink["server_cpu_pct"] > 0
    assert wait_gone(pids) == []


class Stuck(object):
    """A broken server's generator: the same id every time."""

    def __init__(self, node):
        self.next_id = lambda: (1 << 40) | node << ids_module.SEQ_BITS


@pytest.mark.parametrize("client", client_kinds())
def test_a_server_handing_out_duplicates_fails_the_value(sink, monkeypatch,
                                                         client):
    monkeypatch.setitem(ids_module.GENERATORS, "stuck", Stuck)
    svc = make_service("stuck", servers=1, clients=1, client=client)
    try:
        with pytest.raises(ids_module.DuplicateIds, match="handed out twice"):
            svc(1)
    finally:
        svc.close()
    assert sink["duplicates"] == udp.REQUESTS_PER_LOOP - 1


def test_echo_ids_are_unique_increasing_and_name_their_node():
    counters = [ids_module.EchoCounter(node) for node in (1, 2)]
    lists = [[c.next_id() for _ in range(1000)] for c in counters]
    assert ids_module.duplicates(lists) == 0
    assert ids_module.nonmonotonic(lists) == 0
    assert [{ids_module.node_of(i) for i in ids} for ids in lists] == [
        {1}, {2}]
    assert all(i > 0 for ids in lists for i in ids)


def test_c_backend_over_udp(sink):
    backend = "cffi" if "cffi" in backends() else "cython"
    if backend not in backends():
        pytest.skip("no C backend built")
    svc = make_service(backend, servers=1, clients=1)
    try:
        svc(1)
    finally:
        svc.close()
    assert sink["duplicates"] == 0 and sink["errors"] == 0


def test_client_crash_fails_the_value_and_leaves_no_process(monkeypatch):
    def crash(*args):
        os._exit(3)
    monkeypatch.setattr(clients, "python_rounds", crash)
    svc = make_service()
    pids = svc.pids()
    try:
        with pytest.raises(udp.ChildError, match="client"):
            svc(1)
    finally:
        svc.close()
    assert wait_gone(pids) == []


@pytest.mark.parametrize("client", client_kinds())
def test_dead_server_fails_the_value(sink, client):
    svc = make_service(servers=1, clients=1, client=client)
    pids = svc.pids()
    try:
        os.kill(svc.servers[0].pid, signal.SIGKILL)
        svc.servers[0].join(5)
        started = time.time()
        with pytest.raises(udp.ChildError, match="server"):
            svc(1)
        assert time.time() - started < 10
    finally:
        svc.close()
    assert wait_gone(pids) == []


def test_unbindable_address_is_unavailable(monkeypatch):
    monkeypatch.setattr(udp, "HOST", "192.0.2.1")  # TEST-NET-1
    with pytest.raises(Unavailable, match="cannot bind UDP 192.0.2.1"):
        make_service()


@pytest.mark.parametrize("backend", backends())
def test_inprocess_records_its_checks(backend):
    # The threads driver hands each thread's ids to after_value.
    (spec,) = [s for s in service.CASES
               if s.base_name == "service.inprocess.shared." + backend]
    facts = drive(spec, {"threads": 2}, 3)
    assert facts["requests"] == 6 * service.IDS_PER_LOOP
    assert facts["served"] == str(6 * service.IDS_PER_LOOP)
    assert facts["duplicates"] == 0 and facts["nonmonotonic"] == 0
    assert facts["ids_per_s"] > 0


# --- end to end, through the harness -----------------------------------------

FAULT_CASES = '''
import os, signal, time
from gilbench.cases import _service_ids, _service_udp
from gilbench.api import CUSTOM, Axis, CaseSpec

PIDS = %r

class Stuck(object):
    def __init__(self, node):
        self.next_id = lambda: 1 << 40

def started(params, backend="python"):
    svc = _service_udp.Service(params, backend, False)
    with open(PIDS, "a") as stream:
        stream.write("".join("%%d\\n" %% pid for pid in svc.pids()))
    return svc

def ok(params):
    return started(params)

def hang(params):
    svc = started(params)
    def time_it(loops):
        time.sleep(600)
    time_it.close = svc.close
    return time_it

def crash(params):
    svc = started(params)
    def time_it(loops):
        os.kill(os.getpid(), signal.SIGKILL)
    return time_it

def duplicate(params):
    _service_ids.GENERATORS["stuck"] = Stuck
    return started(params, "stuck")

AXES = [Axis("servers", [2]), Axis("clients", [2])]
CASES = [CaseSpec("svcfault", name, "v", "python", prepare, name,
                  driver=CUSTOM, axes=AXES, value_means="wall seconds")
         for name, prepare in (("ok", ok), ("hang", hang), ("crash", crash),
                               ("duplicate", duplicate))]
'''


@pytest.fixture
def fault_module(tmp_path):
    pids = tmp_path / "pids"
    module = tmp_path / "svcfault.py"
    module.write_text(textwrap.dedent(FAULT_CASES % str(pids)))
    return module, pids


def read_pids(path):
    return [int(line) for line in path.read_text().split()]


@pytest.mark.parametrize("case, outcome", [
    ("ok", " 0 failed"), ("hang", "hung"), ("crash", "failed"),
    ("duplicate", "handed out twice")])
@pytest.mark.e2e
def test_no_server_survives_its_benchmark(fault_module, tmp_path, case,
                                          outcome):
    module, pids = fault_module
    result = run_harness("run", "--module", module, "--case",
                         "svcfault.%s.*" % case, "--timeout", "8",
                         "-o", tmp_path / "out.json", *MINIMAL_PYPERF,
                         timeout=120)
    assert outcome in result.stdout + result.stderr, result
    started = read_pids(pids)
    assert len(started) == 4, result
    assert wait_gone(started) == [], result


@pytest.mark.e2e
def test_pinned_run_puts_servers_and_clients_apart(tmp_path):
    output = tmp_path / "pinned.json"
    result = run_harness("run", "--case", "service.udp.processes.python",
                         "--param", "servers=2", "--param", "clients=1",
                         "--param", "client=native", "--pin-threads",
                         "-o", output, *MINIMAL_PYPERF, timeout=120)
    assert result.code == 0, result
    bench, = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()
    run = [r for r in bench.get_runs() if r.values][0]
    metadata = run.get_metadata()
    cpus = psutil.Process().cpu_affinity()
    servers, client = udp.placement(len(cpus), 2, 1)
    assert metadata["pinned_cpus"] == ",".join(str(cpus[i])
                                               for i in servers)
    assert metadata["client_pinned_cpus"] == str(cpus[client[0]])
    if len(cpus) > 1:
        assert metadata["placement"] == "disjoint"
        assert metadata["server_cpus"] == min(2, len(cpus) - 1)
        assert metadata["client_cpus"] == 1
    assert metadata["duplicates"] == 0
    assert metadata["errors"] == 0
    assert metadata["ids_per_s"] > 0


class _ColdService:
    """A service on a fake clock whose seconds per loop, round by round,
    are ``per_loop`` (its last repeated)."""

    def __init__(self, per_loop):
        self.per_loop, self.now, self.rounds = list(per_loop), 0.0, 0

    def clock(self):
        return self.now

    def __call__(self, loops):
        self.now += loops * self.per_loop[min(self.rounds,
                                              len(self.per_loop) - 1)]
        self.rounds += 1


@pytest.mark.parametrize("per_loop, rounds", [
    # Warm at the fourth round: two more that do not improve on it.
    ([0.030, 0.020, 0.006, 0.0045, 0.0046, 0.0044], 6),
    # A round 5% faster is not faster: warm from the first, but the
    # third round ends before the minimum.
    ([0.020, 0.019, 0.0185, 0.0184], 4),
])
def test_jit_warm_up_stops_once_rounds_stop_getting_faster(per_loop, rounds):
    cold = _ColdService(per_loop)
    spent = service._warm_up(cold, cold.clock)
    assert cold.rounds == rounds
    assert service.JIT_WARMUP_MIN <= spent < service.JIT_WARMUP_SECONDS


def test_jit_warm_up_runs_its_minimum_when_warm_from_the_start():
    cold = _ColdService([0.001])
    spent = service._warm_up(cold, cold.clock)
    assert spent >= service.JIT_WARMUP_MIN
    assert spent < 2 * service.JIT_WARMUP_MIN


def test_jit_warm_up_that_keeps_improving_stops_at_its_cap():
    cold = _ColdService([0.01 * 0.8 ** k for k in range(40)])
    spent = service._warm_up(cold, cold.clock)
    assert spent >= service.JIT_WARMUP_SECONDS
    assert cold.rounds < 40
