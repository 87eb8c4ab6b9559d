"""The service family's UDP service on loopback (support code for
cases/service.py, not a family): server processes (or threads) that
answer each 4-byte tag with it and an id, client processes parked on a
gate, and ``Service``, which times one value over them and checks its ids.
"""
import multiprocessing
import os
import socket
import sys
import threading
import time
import traceback

from gilbench.api import (Unavailable, die_with_parent, perf_counter,
                          pinning, record)
from gilbench.cases import _service_clients as clients_module
from gilbench.cases._service_echo import (NATIVE_ECHO, native_server,
                                          serve_natively)
from gilbench.cases._service_ids import GENERATORS, ID, TAG, record_value
from gilbench.measure.metrics import process_cpu_seconds

HOST = "127.0.0.1"  # loopback only; tests point it elsewhere to fail a bind
REQUESTS_PER_LOOP = 1024  # over all clients
START_TIMEOUT = 20.0  # for a server or client to be ready
VALUE_TIMEOUT = 120.0  # for all clients to be done with one value
POLL_SECONDS = 0.05
SERVER_IDLE_POLL = 1.0
SERVER_IDLE_LIMIT = 300.0  # a server with no request for this long exits
SERVER_LIFETIME = 3600.0
SO_REUSEPORT = getattr(socket, "SO_REUSEPORT", 15)  # 2.7 lacks the name


class ChildError(RuntimeError):
    """A server or client process died, raised, or never answered."""


def last_line():
    lines = traceback.format_exc().strip().splitlines()
    return lines[-1] if lines else "unknown error"


def fork_context():
    if not sys.platform.startswith("linux"):
        raise Unavailable("SO_REUSEPORT load balancing needs Linux, not %s"
                          % sys.platform)
    if hasattr(multiprocessing, "get_context"):
        return multiprocessing.get_context("fork")
    return multiprocessing  # Python 2.7: fork


def bind_sockets(count):
    """``count`` UDP sockets on one ephemeral HOST port, each with
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


def cpu_ns(pids):
    """CPU time (ns) of every thread of the processes ``pids``, from
    /proc/<pid>/task/<tid>/schedstat: exact, where /proc/<pid>/stat and
    psutil count 10 ms ticks (a value is ~40 ms).  A thread that ends in
    between is not counted (server threads live as long as the service).
    None where unreadable."""
    total = 0
    for pid in pids:
        tasks = "/proc/%d/task" % pid
        try:
            tids = os.listdir(tasks)
        except OSError:
            return None
        for tid in tids:
            try:
                with open("%s/%s/schedstat" % (tasks, tid)) as stream:
                    total += int(stream.read().split()[0])
            except (IOError, OSError, ValueError, IndexError):
                pass  # a thread that just ended
    return total


# --- placement -------------------------------------------------------------

def placement(ncpus, nservers, nclients):
    """(CPU index per server, per client) under --pin-threads: servers on
    the first CPUs, clients on the others -- disjoint whenever there are
    two CPUs; when there are fewer than servers + clients, the clients
    keep at least one CPU of their own and the servers share the rest."""
    client_cpus = min(nclients, max(1, ncpus - nservers)) if ncpus > 1 else 0
    server_cpus = max(1, min(nservers, ncpus - client_cpus))
    servers = [i % server_cpus for i in range(nservers)]
    clients = [(server_cpus + i % client_cpus) if client_cpus else 0
               for i in range(nclients)]
    return servers, clients


def placement_facts(pin, servers, clients):
    """What each side had: ``server_cpus``/``client_cpus`` (how many CPUs;
    unpinned, both sides share every usable one) and ``placement``."""
    if pin is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(
            os, "sched_getaffinity") else multiprocessing.cpu_count()
        return {"server_cpus": cpus, "client_cpus": cpus,
                "placement": "shared"}
    server_set = set(pin.cpu_for(i) for i in servers)
    client_set = set(pin.cpu_for(i) for i in clients)
    return {"server_cpus": len(server_set), "client_cpus": len(client_set),
            "placement": "shared" if server_set & client_set
            else "disjoint",
            "pinned_cpus": ",".join(str(pin.cpu_for(i)) for i in servers),
            "client_pinned_cpus": ",".join(str(pin.cpu_for(i))
                                           for i in clients)}


# --- servers ---------------------------------------------------------------

def serve(sock, next_id, parent):
    """Answer requests until idle for SERVER_IDLE_LIMIT, past
    SERVER_LIFETIME, or orphaned."""
    clients_module.set_receive_timeout(sock, SERVER_IDLE_POLL)
    recvfrom, sendto, pack = sock.recvfrom, sock.sendto, ID.pack
    deadline = time.time() + SERVER_LIFETIME
    idle, count = 0, 0
    while True:
        try:
            tag, address = recvfrom(TAG.size)
        except (socket.error, OSError) as exc:
            if not clients_module.timed_out(exc):
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


def _server_loop(backend, node):
    """``loop(sock, parent)``: the Python loop over node's generator, or
    the native echo server's loop in C (its own counter)."""
    if backend == NATIVE_ECHO:
        wrapper, _ = native_server()  # Unavailable now, not once serving

        def loop(sock, parent):
            serve_natively(sock, node, parent, SERVER_IDLE_POLL,
                           SERVER_IDLE_LIMIT, SERVER_LIFETIME)
        loop.wrapper = wrapper
        return loop
    next_id = GENERATORS[backend](node).next_id
    return lambda sock, parent: serve(sock, next_id, parent)


def _server_process(conn, sock, nodes, cpus, backend, pin, parent):
    """A thread per node (one: this process's own) serving on ``sock``;
    node i's thread, pinned, runs on CPU index cpus[i]."""
    lock = threading.Lock()  # one pipe, several threads
    if len(nodes) == 1:
        loop = _server_set_up(conn, lock, nodes[0], cpus[0], backend, pin)
        if loop is not None:
            loop(sock, parent)
        return
    done = threading.Event()

    def body(node, cpu):
        try:
            loop = _server_set_up(conn, lock, node, cpu, backend, pin)
            if loop is not None:
                loop(sock, parent)
        finally:
            done.set()
    for node, cpu in zip(nodes, cpus):
        thread = threading.Thread(target=body, args=(node, cpu))
        thread.daemon = True
        thread.start()
    done.wait(SERVER_LIFETIME)  # one thread ended: so does the server


def _server_set_up(conn, lock, node, cpu, backend, pin):
    """Pin the calling thread, make its server loop, say so (with the
    native server's wrapper): the loop, or None when that failed."""
    loop = None
    try:
        if pin is not None:
            pin.pin_current(cpu)
        loop = _server_loop(backend, node)
        message = ("ready", getattr(loop, "wrapper", None))
    except Unavailable as exc:
        message = ("unavailable", str(exc))
    except BaseException:
        message = ("error", last_line())
    with lock:
        conn.send(message)
    return loop


# --- clients ---------------------------------------------------------------

def _client_process(conn, port, arrived, go, per_client, kind, nclients,
                    cpu, pin):
    try:
        if pin is not None:
            pin.pin_current(cpu)
        rounds = clients_module.make_client(
            kind, clients_module.open_flows(HOST, port), nclients)
    except Unavailable as exc:
        conn.send(("unavailable", str(exc)))
        return
    conn.send(("ready", rounds.wrapper))
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
        start, cpu = perf_counter(), process_cpu_seconds()
        try:
            ids, errors = rounds(loops * per_client, tag)
        except BaseException:
            conn.send(("error", last_line()))
            return
        end, cpu = perf_counter(), process_cpu_seconds() - cpu
        tag += loops * per_client
        conn.send(("value", (start, end, ids, errors, cpu)))


class Service(object):
    """Servers and parked clients; ``time_it(loops)`` times one value,
    ``close()`` ends every process."""

    def __init__(self, params, backend, threaded):
        self.context = fork_context()
        self.servers, self.clients, self.conns = [], [], []
        self.nservers, self.nclients = params["servers"], params["clients"]
        self.kind = params.get("client", clients_module.PYTHON)
        self.per_client = REQUESTS_PER_LOOP // self.nclients
        self.nodes = list(range(1, self.nservers + 1))
        self.arrived = self.context.Semaphore(0)
        self.go = self.context.Event()
        pin = pinning()
        server_cpus, client_cpus = placement(
            len(pin.cpus) if pin is not None else 1, self.nservers,
            self.nclients)
        try:
            servers = self._start_servers(backend, threaded, pin,
                                          server_cpus)
            wrappers = self._start_clients(pin, client_cpus)
        except BaseException:
            self.close()
            raise
        self.facts = placement_facts(pin, server_cpus, client_cpus)
        self.facts["load_generator"] = wrappers[0]
        if servers[0] is not None:
            self.facts["server_wrapper"] = servers[0]

    def _start(self, target, args, processes):
        parent_end, child_end = self.context.Pipe()
        process = self.context.Process(target=_child(target),
                                       args=(child_end,) + args)
        process.daemon = True
        process.start()
        child_end.close()
        processes.append(process)
        return parent_end

    def _start_servers(self, backend, threaded, pin, cpus):
        socks = bind_sockets(1 if threaded else self.nservers)
        self.port = socks[0].getsockname()[1]
        groups = ([(socks[0], self.nodes, cpus)] if threaded else
                  [(sock, [node], [cpu]) for sock, node, cpu
                   in zip(socks, self.nodes, cpus)])
        try:
            conns = [self._start(_server_process,
                                 (sock, nodes, group_cpus, backend, pin,
                                  os.getpid()), self.servers)
                     for sock, nodes, group_cpus in groups]
        finally:
            for sock in socks:
                sock.close()
        return [self._receive(conn, "ready", "server %d" % index,
                              START_TIMEOUT)
                for index, (conn, group) in enumerate(zip(conns, groups))
                for _ in group[1]]

    def _start_clients(self, pin, cpus):
        for cpu in cpus:
            self.conns.append(self._start(
                _client_process, (self.port, self.arrived, self.go,
                                  self.per_client, self.kind, self.nclients,
                                  cpu, pin), self.clients))
        return [self._receive(conn, "ready", "client %d" % index,
                              START_TIMEOUT)
                for index, conn in enumerate(self.conns)]

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
        server_pids = [p.pid for p in self.servers]
        server_cpu = cpu_ns(server_pids)  # idle until the gate opens
        self.go.set()
        results = [self._receive(conn, "value", "client %d" % i,
                                 VALUE_TIMEOUT)
                   for i, conn in enumerate(self.conns)]
        self.go.clear()  # every client is past the gate: it has answered
        after = cpu_ns(server_pids)
        self._check_alive()
        starts, ends, per_flow, errors, cpus = zip(*results)
        wall = max(ends) - min(starts)
        record(**self.facts)
        if wall > 0:
            record(client_cpu_pct=100.0 * sum(cpus) / wall)
            if server_cpu is not None and after is not None:
                record(server_cpu_pct=(after - server_cpu) / 1e7 / wall)
        record_value(wall, [ids for flows in per_flow for ids in flows],
                     sum(errors), self.nodes,
                     loops * self.per_client * self.nclients)
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
