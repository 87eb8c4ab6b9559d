"""The service family's load generators and placement: the native client
(sv_drive in extensions/service.c, through Cython and through cffi)
against a server in this process that answers late, twice, with garbage
or not at all; where --pin-threads puts servers and clients; and the
echo ceiling's rows, a twin for every id server row.
"""
import os
import socket
import struct
import subprocess
import sys
import threading
import time

import pytest

from gilbench.model.registry import Unavailable

service = pytest.importorskip("gilbench.cases.service")
ids_module = pytest.importorskip("gilbench.cases._service_ids")
udp = pytest.importorskip("gilbench.cases._service_udp")
clients = pytest.importorskip("gilbench.cases._service_clients")

TAG, ID = struct.Struct("!I"), struct.Struct("!q")
LATE_BIT = 1 << 50  # marks the ids of late replies


def wrappers():
    found = []
    try:
        found.append(pytest.param(
            __import__(ids_module.CYTHON_MODULE, fromlist=["x"]).drive,
            id="cython"))
    except ImportError:
        pass
    try:
        __import__(ids_module.CFFI_MODULE)
        found.append(pytest.param(clients._cffi_drive, id="cffi"))
    except ImportError:
        pass
    return found or [pytest.param(None, marks=pytest.mark.skip(
        reason="no native load generator built"))]


class Server(object):
    """A UDP server thread: answers each request with its tag and the next
    id, except that it holds every ``hold``-th request and answers it
    ``late`` seconds later (with a LATE_BIT id), and sends a runt and a
    foreign tag along with every ``noise``-th answer."""

    def __init__(self, hold=0, late=0.0, noise=0):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self.port = self.sock.getsockname()[1]
        self.hold, self.late, self.noise = hold, late, noise
        self.sent, self.held, self.count = [], 0, 0
        self.stop = threading.Event()
        self.timers = []
        self.thread = threading.Thread(target=self.run)
        self.thread.start()

    def run(self):
        while not self.stop.is_set():
            try:
                request, address = self.sock.recvfrom(64)
            except socket.timeout:
                continue
            self.count += 1
            if self.hold and self.count % self.hold == 0:
                self.held += 1
                reply = request + ID.pack(LATE_BIT | self.count)
                timer = threading.Timer(self.late, self.sock.sendto,
                                        (reply, address))
                timer.start()
                self.timers.append(timer)
                continue
            if self.noise and self.count % self.noise == 0:
                self.sock.sendto(b"abc", address)
                tag = (TAG.unpack(request)[0] + 1000000) & 0xffffffff
                self.sock.sendto(TAG.pack(tag) + ID.pack(7), address)
            self.sent.append(self.count)
            self.sock.sendto(request + ID.pack(self.count), address)

    def close(self):
        self.stop.set()
        self.thread.join(5)
        for timer in self.timers:
            timer.cancel()
        self.sock.close()


@pytest.fixture
def server_factory():
    made = []

    def make(**kwargs):
        made.append(Server(**kwargs))
        return made[-1]
    yield make
    for server in made:
        server.close()


def flows(port, count=4):
    return clients.open_flows("127.0.0.1", port)[:count]


@pytest.mark.parametrize("drive", wrappers())
def test_native_client_gets_every_id_once_in_order_per_flow(drive,
                                                            server_factory):
    server = server_factory(noise=7)
    socks = flows(server.port)
    per_flow, lost, status = drive([s.fileno() for s in socks], 402, 3,
                                   0xfffffff0, 1000, 12)
    assert (status, lost) == (0, 0)
    assert [len(ids) for ids in per_flow] == [101, 101, 100, 100]
    every = sorted(i for ids in per_flow for i in ids)
    assert every == sorted(server.sent)  # no runt, no foreign tag
    assert all(ids == sorted(ids) for ids in per_flow)


@pytest.mark.parametrize("drive", wrappers())
def test_native_client_counts_lost_replies_and_skips_late_ones(
        drive, server_factory):
    # Late replies come well after the 150 ms timeout.  On a busy machine
    # an answer can also come after it (the server is a Python thread):
    # then it is lost as well, and its reply skipped like a late one.
    server = server_factory(hold=5, late=0.6)
    socks = flows(server.port)
    started = time.time()
    per_flow, lost, status = drive([s.fileno() for s in socks], 200, 2, 1,
                                   150, 1000)
    assert status == 0
    assert server.held == 40
    every = [i for ids in per_flow for i in ids]
    assert len(every) + lost == 200
    assert server.held <= lost <= server.held + 10, lost
    assert not [i for i in every if i & LATE_BIT]
    assert set(every) <= set(server.sent) and len(set(every)) == len(every)
    assert time.time() - started < 30


@pytest.mark.parametrize("drive", wrappers())
def test_native_client_gives_up_when_no_server_answers(drive,
                                                       server_factory):
    server = server_factory(hold=1, late=60)
    socks = flows(server.port, 2)
    _, lost, status = drive([s.fileno() for s in socks], 100, 2, 1, 50, 4)
    assert status == -1 and lost >= 4


@pytest.mark.parametrize("drive", wrappers())
def test_native_client_reports_a_closed_port_as_an_errno(drive):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nobody listens: ICMP port unreachable, ECONNREFUSED
    socks = flows(port, 1)
    _, _, status = drive([s.fileno() for s in socks], 50, 2, 1, 200, 1000)
    assert status > 0


def test_native_client_raises_on_failure(server_factory):
    try:
        name, _ = clients.native_driver()
    except Unavailable:
        pytest.skip("no native load generator built")
    server = server_factory(hold=1, late=60)
    client = clients.NativeClient(flows(server.port, 1), 1)
    client.socks[0].close()
    with pytest.raises(OSError):
        client(10, 0)


def test_native_window_keeps_the_total_in_flight():
    assert clients.native_window(1) * clients.FLOWS == \
        clients.NATIVE_IN_FLIGHT
    assert clients.native_window(4) * 4 * clients.FLOWS <= \
        clients.NATIVE_IN_FLIGHT
    assert clients.native_window(1000) == 1


# --- placement ---------------------------------------------------------------

@pytest.mark.parametrize("ncpus, servers, nclients, expected", [
    (8, 2, 2, ([0, 1], [2, 3])),        # room for all: one CPU each
    (2, 1, 1, ([0], [1])),              # this project's machine
    (2, 2, 1, ([0, 0], [1])),           # servers share one CPU
    (2, 4, 2, ([0, 0, 0, 0], [1, 1])),  # clients keep one of their own
    (4, 4, 1, ([0, 1, 2, 0], [3])),
    (1, 2, 1, ([0, 0], [0])),           # one CPU: nothing to keep apart
])
def test_placement(ncpus, servers, nclients, expected):
    assert udp.placement(ncpus, servers, nclients) == expected


def test_placement_is_disjoint_whenever_there_are_two_cpus():
    for ncpus in range(2, 9):
        for servers in range(1, 6):
            for nclients in range(1, 5):
                s, c = udp.placement(ncpus, servers, nclients)
                assert not set(s) & set(c)
                assert len(s) == servers and len(c) == nclients
                assert max(s + c) < ncpus


# --- the echo ceiling's rows -------------------------------------------------

def udp_specs():
    return [s for s in service.CASES if s.case == "udp"]


def axis_values(spec):
    return dict((a.name, (a.values, a.quick, a.extra)) for a in spec.axes)


def test_every_id_server_row_has_an_echo_twin():
    echo = dict((s.variant, s) for s in udp_specs()
                if s.backend == service.ECHO)
    for spec in udp_specs():
        twin = echo[spec.variant]
        for name, (values, quick, extra) in axis_values(spec).items():
            e_values, e_quick, e_extra = axis_values(twin)[name]
            assert set(values) <= set(e_values), (spec.base_name, name)
            assert set(quick) <= set(e_quick), (spec.base_name, name)
            assert set(extra) <= set(e_values + e_extra), spec.base_name


def test_echo_needs_no_extension_with_the_python_client():
    for spec in udp_specs():
        if spec.backend == service.ECHO and "python" in axis_values(
                spec)["client"][0]:
            spec.check({"servers": 1, "clients": 1, "client": "python"})


def test_native_client_is_the_default():
    for spec in udp_specs():
        assert axis_values(spec)["client"][0][0] == clients.NATIVE
        assert axis_values(spec)["client"][1] == [clients.NATIVE]


# --- the servers' CPU --------------------------------------------------------

def test_cpu_ns_counts_every_thread_of_a_process():
    burnt, leave = threading.Event(), threading.Event()

    def burn():  # then stays alive: the servers' threads live throughout
        sum(range(3 * 10 ** 6))
        burnt.set()
        leave.wait(60)
    burner = threading.Thread(target=burn)
    before, clock = udp.cpu_ns([os.getpid()]), time.process_time()
    burner.start()
    burnt.wait(60)
    used = udp.cpu_ns([os.getpid()]) - before
    leave.set()
    burner.join()
    assert used > 0
    # The same CPU as the process clock's, which counts every thread.
    assert used == pytest.approx((time.process_time() - clock) * 1e9,
                                 rel=0.5)


@pytest.mark.e2e
def test_cpu_ns_of_a_gone_process_is_none():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert udp.cpu_ns([child.pid]) is None
