"""The service family's native echo server (sv_serve in
extensions/service.c, through Cython and through cffi): it answers every
request once with the Python echo server's ids, ends as the Python server
loop does (idle, lifetime, orphaned), and serves the family's rows.
"""
import errno
import os
import select
import socket
import threading
import time

import pytest

from gilbench.measure import record as record_module
from gilbench.model.registry import Unavailable

ids_module = pytest.importorskip("gilbench.cases._service_ids")
clients = pytest.importorskip("gilbench.cases._service_clients")
echo = pytest.importorskip("gilbench.cases._service_echo")
udp = pytest.importorskip("gilbench.cases._service_udp")
service = pytest.importorskip("gilbench.cases.service")

IDLE, LIFETIME, ORPHANED = -1, -2, -3  # service.h's SV_IDLE ...


def wrapper_modules():
    found = []
    for name, module in (("cython", ids_module.CYTHON_MODULE),
                         ("cffi", ids_module.CFFI_MODULE)):
        try:
            found.append(pytest.param(
                (name, __import__(module, fromlist=["x"])), id=name))
        except ImportError:
            pass
    return found or [pytest.param(None, marks=pytest.mark.skip(
        reason="no native wrapper of service.c built"))]


@pytest.fixture(params=wrapper_modules())
def wrapper(request, monkeypatch):
    """Forces the wrapper under test on both server and client."""
    name, module = request.param
    monkeypatch.setattr(echo, "native_module", lambda: (name, module))
    monkeypatch.setattr(clients, "native_module", lambda: (name, module))
    return name


def bound():
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    return sock


class Serving(object):
    """sv_serve in a thread of this process (the wrappers release the
    GIL, so the test's client runs meanwhile)."""

    def __init__(self, node=5, poll_ms=20, idle_ms=300, lifetime_ms=60000,
                 parent=None):
        self.sock = bound()
        self.port = self.sock.getsockname()[1]
        self.result = None
        _, serve = echo.native_server()
        args = (self.sock.fileno(), node,
                os.getppid() if parent is None else parent, poll_ms,
                idle_ms, lifetime_ms)

        def run():
            self.result = serve(*args)
        self.thread = threading.Thread(target=run)
        self.thread.daemon = True
        self.started = time.time()
        self.thread.start()

    def wait(self, seconds=10):
        self.thread.join(seconds)
        self.took = time.time() - self.started
        self.sock.close()
        return self.result


def test_answers_every_request_once_with_the_python_echo_ids(wrapper):
    server = Serving(node=5)
    name, drive = clients.native_driver()
    assert name == wrapper
    socks = clients.open_flows("127.0.0.1", server.port)
    per_flow, lost, status = drive([s.fileno() for s in socks], 3000, 8,
                                   0xffffff00, 1000, 1000)
    assert (status, lost) == (0, 0)
    assert ids_module.nonmonotonic(per_flow) == 0
    # Exactly the ids the Python echo server's counter hands out.
    python_echo = ids_module.EchoCounter(5)
    expected = [python_echo.next_id() for _ in range(3000)]
    assert sorted(i for ids in per_flow for i in ids) == expected
    assert server.wait() == (IDLE, 3000)


def test_skips_runts_and_answers_a_long_request_by_its_tag(wrapper):
    server = Serving(node=9)
    sock = bound()
    sock.settimeout(5)
    sock.sendto(b"ab", ("127.0.0.1", server.port))
    sock.sendto(b"wxyz-and-more", ("127.0.0.1", server.port))
    reply = sock.recv(64)
    assert reply[:4] == b"wxyz" and len(reply) == ids_module.REPLY_BYTES
    assert ids_module.ID.unpack(reply[4:])[0] == \
        ids_module.EchoCounter(9).next_id()
    assert server.wait() == (IDLE, 1)
    sock.close()


def test_ends_when_idle(wrapper):
    server = Serving(idle_ms=150)
    assert server.wait() == (IDLE, 0)
    assert server.took < 5


def test_ends_past_its_lifetime_even_if_never_idle_long(wrapper):
    server = Serving(idle_ms=60000, lifetime_ms=100)
    assert server.wait() == (LIFETIME, 0)


def test_ends_when_orphaned(wrapper):
    """A grandchild serves for a child that exits at once: it must notice
    within a poll or two, not at its idle limit."""
    reader, writer = os.pipe()
    sock = bound()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        try:
            parent = os.getpid()  # the grandchild may start orphaned
            if os.fork() == 0:
                _, serve = echo.native_server()
                status, _ = serve(sock.fileno(), 1, parent, 20, 60000,
                                  60000)
                os.write(writer, str(status).encode())
        finally:
            os._exit(0)
    os.close(writer)
    os.waitpid(child, 0)
    ready, _, _ = select.select([reader], [], [], 10)
    got = os.read(reader, 16) if ready else b"still serving"
    os.close(reader)
    sock.close()
    assert got == str(ORPHANED).encode()


def test_bad_node_is_einval(wrapper):
    server = Serving(node=1 << ids_module.NODE_BITS)
    assert server.wait()[0] == errno.EINVAL


def test_a_socket_error_raises(wrapper):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    dead = sock.fileno()
    sock.close()

    class Closed(object):
        def fileno(self):
            return dead
    with pytest.raises(OSError):
        echo.serve_natively(Closed(), 1, os.getppid(), 0.02, 1, 1)


# --- as the family's server --------------------------------------------------

def test_serves_the_family_rows_with_both_clients(wrapper):
    for client in (clients.NATIVE, clients.PYTHON):
        sink = {}  # what the value records
        record_module.set_sink(sink)
        svc = udp.Service({"servers": 2, "clients": 1, "client": client},
                          echo.NATIVE_ECHO, False)
        try:
            svc(1)
        finally:
            svc.close()
            record_module.set_sink(None)
        assert sink["duplicates"] == sink["errors"] == 0
        assert sink["nonmonotonic"] == 0
        assert sink["server_wrapper"] == wrapper
        assert sink["load_generator"] == (
            wrapper if client == clients.NATIVE else clients.PYTHON)
        counts = [int(c) for c in sink["served"].split(",")]
        assert len(counts) == 2 and sum(counts) == udp.REQUESTS_PER_LOOP


def test_unavailable_without_a_wrapper(monkeypatch):
    def missing():
        raise Unavailable("not built")
    monkeypatch.setattr(echo, "native_module", missing)
    with pytest.raises(Unavailable, match="not built"):
        udp.Service({"servers": 1, "clients": 1, "client": "python"},
                    echo.NATIVE_ECHO, False)
    (spec,) = [s for s in service.CASES
               if s.base_name == "service.udp.processes.native_echo"]
    with pytest.raises(Unavailable):
        spec.check({"servers": 1, "clients": 1, "client": "python"})
