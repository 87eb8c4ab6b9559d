"""Service family: an id generator, in process and as a UDP service on
loopback with N ``SO_REUSEPORT`` server processes or N server threads (the
seed's global-id benchmark, with statistics).

An id is ``tick | node | sequence`` (extensions/service.h): milliseconds
since 2020, the node of the process (or thread) that made it, and a 14-bit
sequence.  When a millisecond's sequence is used up the generator takes
the next tick early, so throughput is never capped (the seed's 1 s tick
and 17-bit sequence capped it at 131072 ids/s).  Backends: ``python``
(this module, a ``threading.Lock``), ``cython`` and ``cffi`` (one C
source, lock-free), so the in-process rows show what the interpreter
costs and the UDP rows what the socket adds.

* ``inprocess.shared``: ``threads`` threads (the threads driver) share one
  generator; in a loop each takes IDS_PER_LOOP ids.
* ``udp.processes``: ``servers`` processes, each owning a node and its own
  socket bound to one 127.0.0.1 port with ``SO_REUSEPORT`` (the kernel
  spreads the flows over them), and ``clients`` client processes;
* ``udp.threads``: one server process, one socket, ``servers`` threads
  each owning a node (the GIL baseline, or real parallelism on a
  free-threaded build); the same clients.

Each client has FLOWS connected sockets (flows for the kernel to spread
by their source port) and uses them WINDOW at a time: a request on each,
then each reply, waited for REPLY_TIMEOUT at most (a lost reply is counted
in ``errors``, never waited for again).  A UDP value is the
wall time from the first client's release to the last reply of
REQUESTS_PER_LOOP x loops requests, split evenly over the clients.
Servers and clients are started, pinned (``--pin-threads``: server i on
usable CPU i; clients are not pinned) and parked before the clock.

Every run records ``ids_per_s`` (answered requests only), ``errors``,
``duplicates`` (ids handed out twice in the run; must be 0),
``nonmonotonic`` (ids of one node that a client got out of order; must
be 0), ``served`` (requests per server, or per thread, e.g. "512,512")
and ``fairness_pct`` (the smallest share x servers: 100 when even).
Clients are pure Python on every backend: a UDP row measures the client
as much as the server, on the same CPUs.

Findings (the id-service write-up's questions): UDP ids/s with 2 server
processes against 1, in-process ids/s of each backend at 1 thread, and
duplicate ids (must be 0).
"""
import errno
import functools
import multiprocessing
import os
import platform
import socket
import struct
import sys
import threading
import time
import traceback
from itertools import repeat

from gilbench.api import (CUSTOM, Axis, CaseSpec, Unavailable, threads,
                          die_with_parent, finding, import_extension, needs,
                          perf_counter, pinning, record, recorded, speedup,
                          table, throughput)

FAMILY = "service"
ORDER = 50
CYTHON_MODULE = "gilbench.extensions._service_cy"
CFFI_MODULE = "gilbench.extensions._service_cffi"
HOST = "127.0.0.1"  # loopback only; tests point it elsewhere to fail a bind
NODE_BITS = 8
SEQ_BITS = 14
EPOCH_MS = 1577836800000  # extensions/service.c's SV_EPOCH
IDS_PER_LOOP = 1000  # per thread, in process
REQUESTS_PER_LOOP = 1024  # over all clients
WINDOW = 4  # requests in flight per client, on as many sockets
FLOWS = 16  # sockets per client (flows for the kernel to spread), in turn
REPLY_TIMEOUT = 1.0
MAX_SILENT = 3  # lost replies in a row before a client gives up
START_TIMEOUT = 20.0  # for a server or client to be ready
VALUE_TIMEOUT = 120.0  # for all clients to be done with one value
POLL_SECONDS = 0.05
SERVER_IDLE_POLL = 1.0
SERVER_IDLE_LIMIT = 300.0  # a server with no request for this long exits
SERVER_LIFETIME = 3600.0
SO_REUSEPORT = getattr(socket, "SO_REUSEPORT", 15)  # 2.7 lacks the name
TAG = struct.Struct("!I")
ID = struct.Struct("!q")
REPLY_BYTES = TAG.size + ID.size
TAG_MASK = 0xffffffff


# --- the generators ---------------------------------------------------------

class PythonGenerator(object):
    """service.c's generator in Python, behind a lock."""

    def __init__(self, node, seq_bits=SEQ_BITS, tick_ms=1, capped=False):
        if not 0 <= node < 1 << NODE_BITS or seq_bits < 1 or tick_ms < 1:
            raise ValueError("bad generator (%r, %r, %r)"
                             % (node, seq_bits, tick_ms))
        self._node = node << seq_bits
        self._mask = (1 << seq_bits) - 1
        self._shift = NODE_BITS + seq_bits
        self._tick_ms = tick_ms
        self._capped = capped
        self._last = 0
        self._errors = 0
        self._lock = threading.Lock()

    def next_id(self):
        now = (int(time.time() * 1000) - EPOCH_MS) // self._tick_ms
        with self._lock:
            last = self._last
            tick = last >> self._shift
            if now > tick:
                new = (now << self._shift) | self._node
            elif last & self._mask < self._mask:
                new = last + 1
            elif self._capped:
                self._errors += 1
                return -1
            else:  # borrow the next tick
                new = ((tick + 1) << self._shift) | self._node
            self._last = new
            return new

    def errors(self):
        return self._errors


def _cython_generator(node, seq_bits=SEQ_BITS, tick_ms=1, capped=False):
    module = import_extension(CYTHON_MODULE)
    return module.Generator(node, seq_bits, tick_ms, capped)


class CffiGenerator(object):
    """The C generator through cffi; ``next_id`` is one cffi call."""

    def __init__(self, node, seq_bits=SEQ_BITS, tick_ms=1, capped=False):
        module = import_extension(CFFI_MODULE)
        lib = module.lib
        gen = lib.sv_new(node, seq_bits, tick_ms, int(capped))
        if gen == module.ffi.NULL:
            raise ValueError("sv_new(%r, %r, %r) failed"
                             % (node, seq_bits, tick_ms))
        self._gen = module.ffi.gc(gen, lib.sv_free)
        self.next_id = functools.partial(lib.sv_next, self._gen)
        self.errors = functools.partial(lib.sv_errors, self._gen)


GENERATORS = {"python": PythonGenerator, "cython": _cython_generator,
              "cffi": CffiGenerator}
MODULES = {"cython": CYTHON_MODULE, "cffi": CFFI_MODULE}


def node_of(id_, seq_bits=SEQ_BITS):
    return (id_ >> seq_bits) & ((1 << NODE_BITS) - 1)


# --- checks on the ids of one value ------------------------------------------

def duplicates(id_lists):
    every = [i for ids in id_lists for i in ids]
    return len(every) - len(set(every))


def nonmonotonic(id_lists):
    """Ids that came after a larger id of the same node in one list."""
    bad = 0
    for ids in id_lists:
        last = {}
        for id_ in ids:
            node = node_of(id_)
            if id_ <= last.get(node, -1):
                bad += 1
            last[node] = id_
    return bad


def served(id_lists, nodes):
    counts = dict((node, 0) for node in nodes)
    for ids in id_lists:
        for id_ in ids:
            node = node_of(id_)
            counts[node] = counts.get(node, 0) + 1
    return [counts[node] for node in sorted(counts)]


def _record_value(wall, id_lists, errors, nodes, requests):
    counts = served(id_lists, nodes)
    answered = sum(counts)
    record(ids_per_s=answered / wall if wall > 0 else 0.0,
           requests=requests, errors=errors,
           duplicates=duplicates(id_lists),
           nonmonotonic=nonmonotonic(id_lists),
           served=",".join(str(c) for c in counts),
           fairness_pct=(100.0 * min(counts) * len(counts) / answered
                         if answered else 0.0))


def _last_line():
    lines = traceback.format_exc().strip().splitlines()
    return lines[-1] if lines else "unknown error"


# --- in process --------------------------------------------------------------

def _pinned(pin, count):
    if pin is None:
        return {}
    return {"pinned_cpus": pin.describe(count)}


class SharedGenerator(object):
    """The threads driver's ``work(loops)``: each thread takes
    IDS_PER_LOOP ids per loop from one generator and returns them; after
    each value the driver hands every thread's ids to ``after_value``."""

    def __init__(self, backend):
        self.take = GENERATORS[backend](1).next_id

    def __call__(self, loops):
        take = self.take
        return [take() for _ in repeat(None, loops * IDS_PER_LOOP)]

    def after_value(self, wall, id_lists):
        _record_value(wall, id_lists, 0, [1],
                      sum(len(ids) for ids in id_lists))


def inprocess(backend):
    def prepare(params):
        return SharedGenerator(backend)
    return prepare


# --- the UDP service ---------------------------------------------------------

def _fork_context():
    if not sys.platform.startswith("linux"):
        raise Unavailable("SO_REUSEPORT load balancing needs Linux, not %s"
                          % sys.platform)
    if hasattr(multiprocessing, "get_context"):
        return multiprocessing.get_context("fork")
    return multiprocessing  # Python 2.7: fork


def bind_sockets(count):
    """``count`` UDP sockets on one ephemeral 127.0.0.1 port, each with
    SO_REUSEPORT; Unavailable when that cannot be done here."""
    socks = []
    try:
        port = 0
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            socks.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, SO_REUSEPORT, 1)
            sock.bind((HOST, port))
            port = sock.getsockname()[1]
    except (socket.error, OSError) as exc:
        for sock in socks:
            sock.close()
        raise Unavailable("cannot bind UDP %s with SO_REUSEPORT: %s"
                          % (HOST, exc))
    return socks


def _set_receive_timeout(sock, seconds):
    """A kernel timeout on a blocking socket: no poll() per datagram, as
    Python's own socket timeouts would add."""
    whole = int(seconds)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO,
                    struct.pack("ll", whole, int((seconds - whole) * 1e6)))


def _timed_out(exc):
    return getattr(exc, "errno", None) in (errno.EAGAIN, errno.EWOULDBLOCK)


def serve(sock, next_id, parent):
    """Answer requests until idle for SERVER_IDLE_LIMIT, past
    SERVER_LIFETIME, or orphaned."""
    _set_receive_timeout(sock, SERVER_IDLE_POLL)
    recvfrom, sendto, pack = sock.recvfrom, sock.sendto, ID.pack
    deadline = time.time() + SERVER_LIFETIME
    idle, count = 0, 0
    while True:
        try:
            tag, address = recvfrom(TAG.size)
        except (socket.error, OSError) as exc:
            if not _timed_out(exc):
                raise
            idle += 1
            if (idle * SERVER_IDLE_POLL >= SERVER_IDLE_LIMIT
                    or os.getppid() != parent or time.time() > deadline):
                return
            continue
        idle = 0
        sendto(tag + pack(next_id()), address)
        count += 1
        if not count & 4095 and time.time() > deadline:
            return


def _child(main):
    """A forked child's body: dies with its parent, never returns into the
    parent's code (os._exit), no traceback on Ctrl-C."""
    def run(*args):
        code = 1
        try:
            die_with_parent()
            main(*args)
            code = 0
        except KeyboardInterrupt:
            pass
        finally:
            os._exit(code)
    return run


def _server_process(conn, sock, first, nthreads, backend, pin, parent):
    """``nthreads`` threads (1: this process's own) serving on ``sock``;
    thread i owns node first + i + 1 and, pinned, runs on CPU first + i."""
    lock = threading.Lock()  # one pipe, several threads
    if nthreads == 1:
        next_id = _server_set_up(conn, lock, first, backend, pin)
        if next_id is not None:
            serve(sock, next_id, parent)
        return
    done = threading.Event()

    def body(index):
        try:
            next_id = _server_set_up(conn, lock, index, backend, pin)
            if next_id is not None:
                serve(sock, next_id, parent)
        finally:
            done.set()
    for index in range(first, first + nthreads):
        thread = threading.Thread(target=body, args=(index,))
        thread.daemon = True
        thread.start()
    done.wait(SERVER_LIFETIME)  # one thread ended: so does the server


def _server_set_up(conn, lock, index, backend, pin):
    """Pin the calling thread, make its generator, say so: its next_id, or
    None when that failed."""
    next_id = None
    try:
        cpu = pin.pin_current(index) if pin is not None else -1
        next_id = GENERATORS[backend](index + 1).next_id
        message = ("ready", cpu)
    except Unavailable as exc:
        message = ("unavailable", str(exc))
    except BaseException:
        message = ("error", _last_line())
    with lock:
        conn.send(message)
    return next_id


def _client_process(conn, port, arrived, go, per_client):
    socks = []
    for _ in range(FLOWS):
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind((HOST, 0))
        sock.connect((HOST, port))
        _set_receive_timeout(sock, REPLY_TIMEOUT)
        socks.append(sock)
    conn.send(("ready", None))
    tag = 0
    while True:
        try:
            loops = conn.recv()
        except EOFError:  # the controller is gone
            return
        if loops is None:
            return
        arrived.release()
        if not go.wait(VALUE_TIMEOUT):
            conn.send(("error", "never released"))
            return
        start = perf_counter()
        try:
            ids, errors = client_rounds(socks, loops * per_client // WINDOW,
                                        tag)
        except BaseException:
            conn.send(("error", _last_line()))
            return
        end = perf_counter()
        tag += loops * per_client
        conn.send(("value", (start, end, ids, errors)))


def client_rounds(socks, rounds, tag):
    """``rounds`` x (a request on each socket of the next window of
    WINDOW, then each reply): the ids received and the replies lost."""
    ids, errors, silent = [], 0, 0
    pack, unpack = TAG.pack, ID.unpack
    windows = [socks[i:i + WINDOW] for i in range(0, len(socks), WINDOW)]
    for round_ in range(rounds):
        sent = []
        window = windows[round_ % len(windows)]
        for sock in window:
            tag = (tag + 1) & TAG_MASK
            request = pack(tag)
            sock.send(request)
            sent.append(request)
        for sock, request in zip(window, sent):
            reply = _reply(sock, request)
            if reply is None:
                errors += 1
                silent += 1
                if silent >= MAX_SILENT:
                    raise RuntimeError("%d replies in a row lost (%.1f s "
                                       "each): no server answers"
                                       % (silent, REPLY_TIMEOUT))
                continue
            silent = 0
            ids.append(unpack(reply[TAG.size:])[0])
    return ids, errors


def _reply(sock, request):
    """The reply to ``request``, skipping late replies to lost ones; None
    once REPLY_TIMEOUT passed without it."""
    for _ in range(WINDOW * MAX_SILENT + 1):
        try:
            reply = sock.recv(REPLY_BYTES)
        except (socket.error, OSError) as exc:
            if _timed_out(exc):
                return None
            raise
        if len(reply) == REPLY_BYTES and reply[:TAG.size] == request:
            return reply
    return None


class ChildError(RuntimeError):
    """A server or client process died, raised, or never answered."""


class Service(object):
    """Servers and parked clients; ``time_it(loops)`` times one value,
    ``close()`` ends every process."""

    def __init__(self, params, backend, threaded):
        self.context = _fork_context()
        self.servers, self.clients, self.conns = [], [], []
        self.nservers, self.nclients = params["servers"], params["clients"]
        self.per_client = REQUESTS_PER_LOOP // self.nclients
        self.nodes = list(range(1, self.nservers + 1))
        self.arrived = self.context.Semaphore(0)
        self.go = self.context.Event()
        pin = pinning()
        try:
            self._start_servers(backend, threaded, pin)
            self._start_clients()
        except BaseException:
            self.close()
            raise
        self.facts = _pinned(pin, self.nservers)

    def _start(self, target, args, processes):
        parent_end, child_end = self.context.Pipe()
        process = self.context.Process(target=_child(target),
                                       args=(child_end,) + args)
        process.daemon = True
        process.start()
        child_end.close()
        processes.append(process)
        return parent_end

    def _start_servers(self, backend, threaded, pin):
        socks = bind_sockets(1 if threaded else self.nservers)
        self.port = socks[0].getsockname()[1]
        groups = ([(socks[0], 0, self.nservers)] if threaded else
                  [(sock, i, 1) for i, sock in enumerate(socks)])
        try:
            conns = [self._start(_server_process,
                                 (sock, first, count, backend, pin,
                                  os.getpid()), self.servers)
                     for sock, first, count in groups]
        finally:
            for sock in socks:
                sock.close()
        for index, (conn, group) in enumerate(zip(conns, groups)):
            for _ in range(group[2]):
                self._receive(conn, "ready", "server %d" % index,
                              START_TIMEOUT)

    def _start_clients(self):
        for _ in range(self.nclients):
            self.conns.append(self._start(
                _client_process, (self.port, self.arrived, self.go,
                                  self.per_client), self.clients))
        for index, conn in enumerate(self.conns):
            self._receive(conn, "ready", "client %d" % index, START_TIMEOUT)

    def __call__(self, loops):
        for conn in self.conns:
            conn.send(loops)
        deadline = time.time() + START_TIMEOUT
        for _ in range(self.nclients):
            while not self.arrived.acquire(True, POLL_SECONDS):
                self._check_alive()
                if time.time() > deadline:
                    raise ChildError("clients did not park within %d s"
                                     % START_TIMEOUT)
        self.go.set()
        results = [self._receive(conn, "value", "client %d" % i,
                                 VALUE_TIMEOUT)
                   for i, conn in enumerate(self.conns)]
        self.go.clear()  # every client is past the gate: it has answered
        self._check_alive()
        starts, ends, id_lists, errors = zip(*results)
        wall = max(ends) - min(starts)
        _record_value(wall, id_lists, sum(errors), self.nodes,
                      loops * self.per_client * self.nclients)
        record(**self.facts)
        return wall

    def _receive(self, conn, expected, who, timeout):
        deadline = time.time() + timeout
        while not conn.poll(POLL_SECONDS):
            self._check_alive()
            if time.time() > deadline:
                raise ChildError("%s did not answer within %d s"
                                 % (who, timeout))
        try:
            kind, payload = conn.recv()
        except EOFError:
            kind, payload = "error", "closed its pipe"
        if kind == "unavailable":
            raise Unavailable("%s: %s" % (who, payload))
        if kind == "error":
            self._check_alive(("server",))  # the cause, when one died
            raise ChildError("%s: %s" % (who, payload))
        assert kind == expected, (kind, expected)
        return payload

    def _check_alive(self, roles=("server", "client")):
        for role, processes in (("server", self.servers),
                                ("client", self.clients)):
            if role not in roles:
                continue
            for index, process in enumerate(processes):
                if process.exitcode is not None:
                    raise ChildError("%s process %d exited (code %s)"
                                     % (role, index, process.exitcode))

    def pids(self):
        return [p.pid for p in self.servers + self.clients]

    def close(self):
        for conn in self.conns:
            try:
                conn.send(None)
            except (IOError, OSError, ValueError):
                pass
        processes = self.clients + self.servers
        for process in processes:
            if process.is_alive():
                process.terminate()
        deadline = time.time() + 2.0
        for process in processes:
            process.join(max(0.0, deadline - time.time()))
            if process.is_alive():
                os.kill(process.pid, 9)
                process.join(2.0)
        self.servers, self.clients, self.conns = [], [], []


# PyPy's servers and clients are forked fresh in every pyperf worker and
# their JIT is cold: pyperf's one short warmup value left PyPy 2-7x behind
# CPython here, and a few warm rounds by hand put it ahead.  So on a JIT,
# the service is driven for a while before the clock.
JIT_WARMUP_SECONDS = 1.0


def _warm_up(service):
    deadline, loops = time.time() + JIT_WARMUP_SECONDS, 1
    while time.time() < deadline:
        service(loops)
        loops = min(loops * 2, 64)


def udp(backend, threaded):
    def prepare(params):
        service = Service(params, backend, threaded)
        if platform.python_implementation() == "PyPy":
            try:
                _warm_up(service)
            except BaseException:
                service.close()
                raise
        return service
    return prepare


# --- declarations ------------------------------------------------------------

def _check(backend):
    return needs(*[MODULES[backend]] if backend in MODULES else [])


def _udp_check(backend):
    def check(params):
        _fork_context()
        _check(backend)(params)
    return check


def _inprocess_spec(backend, values, quick):
    return CaseSpec(
        FAMILY, "inprocess", "shared", backend, inprocess(backend),
        "ids from one %s generator shared by N threads" % backend,
        axes=[threads(values, quick)],
        value_means="wall seconds per loop; in one loop each of the "
        "`threads` threads takes %d ids from one shared generator, all "
        "started together, timed until the last one finishes"
        % IDS_PER_LOOP,
        check=_check(backend),
        ops_per_loop=lambda params: params["threads"] * IDS_PER_LOOP)


def _udp_spec(backend, variant, clients, quick, what):
    return CaseSpec(
        FAMILY, "udp", variant, backend, udp(backend, variant == "threads"),
        "%s on one 127.0.0.1 port, %s generator" % (what, backend),
        driver=CUSTOM,
        axes=[Axis("servers", [1, 2, 4], quick=quick, unit="servers"),
              Axis("clients", clients, quick=[2], unit="processes")],
        value_means="wall seconds from the clients' release to the last "
        "reply of %d requests per loop" % REQUESTS_PER_LOOP,
        check=_udp_check(backend), ops_per_loop=REQUESTS_PER_LOOP,
        concurrency=lambda params: params["servers"] + params["clients"])


_PROCESSES = "N server processes with SO_REUSEPORT sockets"
_THREADS = "one server process, one socket, N server threads"
CASES = [
    _inprocess_spec("python", [1, 2, 4], [1, 2]),
    _inprocess_spec("cython", [1, 2], [1]),
    _inprocess_spec("cffi", [1, 2], [1]),
    # The C generator over UDP through cffi: on PyPy, Cython goes through
    # cpyext; cffi does not exist on 3.13t, where threads use Cython.
    _udp_spec("python", "processes", [2, 4], [1, 2], _PROCESSES),
    _udp_spec("cffi", "processes", [2], [2], _PROCESSES),
    _udp_spec("python", "threads", [2], [2], _THREADS),
    _udp_spec("cython", "threads", [2], [2], _THREADS),
]

_UDP = {"case": "udp"}
_PER_UDP = ["variant", "clients", "backend"]
TABLES = [
    table("UDP ids/s", rows="servers", per=_PER_UDP, where=_UDP,
          cell=throughput(unit="ids"),
          note="Requests answered or lost per second (errors are in their "
          "own table); clients and servers share the machine's CPUs."),
    table("UDP processes vs threads", rows="servers", columns="variant",
          per=["interpreter", "clients"],
          where={"case": "udp", "backend": "python"},
          cell=throughput(unit="ids"),
          note="processes: one SO_REUSEPORT socket per server process; "
          "threads: one socket read by N threads of one process."),
    table("UDP per-server share", rows="servers", per=_PER_UDP, where=_UDP,
          cell=recorded("fairness_pct", "%"),
          note="The smallest server's share of the requests x servers: "
          "100% when the kernel spread them evenly (per-server counts are "
          "in each run's `served`)."),
    table("UDP lost replies", rows="servers", per=_PER_UDP, where=_UDP,
          cell=recorded("errors"),
          note="Replies not back within %.1f s, per value." % REPLY_TIMEOUT),
    table("UDP duplicate ids", rows="servers", per=_PER_UDP, where=_UDP,
          cell=recorded("duplicates"), note="Must be 0."),
    table("In-process ids/s", rows="threads", per=["backend"],
          where={"case": "inprocess"}, cell=throughput(unit="ids"),
          note="All threads together, one shared generator."),
]

_UDP_PYTHON = {"case": "udp", "variant": "processes", "backend": "python",
               "clients": 2}
FINDINGS = [
    finding("UDP ids/s with 2 server processes over 1 (python servers, 2 "
            "clients)?", speedup(over="servers", baseline=1),
            at=dict(_UDP_PYTHON, servers=2), evidence="UDP ids/s"),
] + [
    finding("In-process ids/s, %s generator, 1 thread?" % backend,
            throughput(unit="ids"),
            at={"case": "inprocess", "backend": backend, "threads": 1})
    for backend in ("python", "cython", "cffi")
] + [
    finding("Duplicate ids over UDP, 2 server processes (must be 0)?",
            recorded("duplicates"), at=dict(_UDP_PYTHON, servers=2),
            evidence="UDP duplicate ids"),
]
