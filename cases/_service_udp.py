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

from gilbench.api import (
    Team,
    Unavailable,
    perf_counter,
    pinning,
    process_cpu_seconds,
    record,
)
from gilbench.api import fork_context as team_fork_context

from . import _service_clients as clients_module
from ._service_echo import (
    NATIVE_ECHO,
    native_server,
    serve_natively,
)
from ._service_ids import GENERATORS, ID, TAG, record_value

HOST = "127.0.0.1"  # loopback only; tests point it elsewhere to fail a bind
REQUESTS_PER_LOOP = 1024  # over all clients
START_TIMEOUT = 20.0  # for a server or client to be ready
VALUE_TIMEOUT = 120.0  # for all clients to be done with one value
SERVER_IDLE_POLL = 1.0
SERVER_IDLE_LIMIT = 300.0  # a server with no request for this long exits
SERVER_LIFETIME = 3600.0
SO_REUSEPORT = getattr(socket, "SO_REUSEPORT", 15)  # 2.7 lacks the name


class ChildError(RuntimeError):
    """A server or client process died, raised, or never answered."""


def fork_context():
    if not sys.platform.startswith("linux"):
        raise Unavailable("SO_REUSEPORT load balancing needs Linux, not %s"
                          % sys.platform)
    return team_fork_context()


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


def _server_process(member, sock, nodes, cpus, backend, pin, parent):
    """A thread per node (one: this process's own) serving on ``sock``;
    node i's thread, pinned, runs on CPU index cpus[i]."""
    if len(nodes) == 1:
        loop = _server_set_up(member, nodes[0], cpus[0], backend, pin)
        if loop is not None:
            loop(sock, parent)
        return
    done = threading.Event()

    def body(node, cpu):
        try:
            loop = _server_set_up(member, node, cpu, backend, pin)
            if loop is not None:
                loop(sock, parent)
        finally:
            done.set()
    for node, cpu in zip(nodes, cpus):
        thread = threading.Thread(target=body, args=(node, cpu))
        thread.daemon = True
        thread.start()
    done.wait(SERVER_LIFETIME)  # one thread ended: so does the server


def _server_set_up(member, node, cpu, backend, pin):
    """Pin the calling thread, make its server loop, say so (with the
    native server's wrapper): the loop, or None when that failed."""
    def make():
        if pin is not None:
            pin.pin_current(cpu)
        loop = _server_loop(backend, node)
        return loop, getattr(loop, "wrapper", None)
    return member.set_up(make)


# --- clients ---------------------------------------------------------------

def _client_process(member, port, per_client, kind, nclients, cpu, pin):
    def make():
        if pin is not None:
            pin.pin_current(cpu)
        rounds = clients_module.make_client(
            kind, clients_module.open_flows(HOST, port), nclients)
        return rounds, rounds.wrapper
    rounds = member.set_up(make)
    if rounds is None:
        return
    tag = 0
    for loops in member.orders():
        try:
            member.park(VALUE_TIMEOUT)
            start, cpu_before = perf_counter(), process_cpu_seconds()
            ids, errors = rounds(loops * per_client, tag)
        except BaseException:
            member.fail()
            return
        end, used = perf_counter(), process_cpu_seconds() - cpu_before
        tag += loops * per_client
        member.reply((start, end, ids, errors, used))


class Service(object):
    """Servers and parked clients; ``time_it(loops)`` times one value,
    ``close()`` ends every process."""

    def __init__(self, params, backend, threaded):
        self.context = fork_context()
        self.server_team = self.client_team = None
        self.nservers, self.nclients = params["servers"], params["clients"]
        self.kind = params.get("client", clients_module.PYTHON)
        self.per_client = REQUESTS_PER_LOOP // self.nclients
        self.nodes = list(range(1, self.nservers + 1))
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

    @property
    def servers(self):
        return self.server_team.processes if self.server_team else []

    @property
    def clients(self):
        return self.client_team.processes if self.client_team else []

    def _start_servers(self, backend, threaded, pin, cpus):
        socks = bind_sockets(1 if threaded else self.nservers)
        self.port = socks[0].getsockname()[1]
        groups = ([(socks[0], self.nodes, cpus)] if threaded else
                  [(sock, [node], [cpu]) for sock, node, cpu
                   in zip(socks, self.nodes, cpus)])
        try:
            # Servers never park: they serve until killed.
            self.server_team = Team(
                _server_process,
                [(sock, nodes, group_cpus, backend, pin, os.getpid())
                 for sock, nodes, group_cpus in groups],
                role="server", error=ChildError, unavailable=Unavailable,
                context=self.context, gated=False)
        finally:
            for sock in socks:
                sock.close()
        # A threaded server says ready once a node.
        return self.server_team.ready(START_TIMEOUT, each=len(groups[0][1]))

    def _start_clients(self, pin, cpus):
        self.client_team = Team(
            _client_process,
            [(self.port, self.per_client, self.kind, self.nclients, cpu, pin)
             for cpu in cpus],
            role="client", error=ChildError, unavailable=Unavailable,
            context=self.context, watch=[self.server_team])
        return self.client_team.ready(START_TIMEOUT)

    def __call__(self, loops):
        self.client_team.park(loops, START_TIMEOUT)
        server_pids = self.server_team.pids()
        server_cpu = cpu_ns(server_pids)  # idle until the gate opens
        results = self.client_team.release(VALUE_TIMEOUT)
        after = cpu_ns(server_pids)
        self.client_team.check_alive()  # the servers too
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

    def pids(self):
        return [p.pid for p in self.servers + self.clients]

    def close(self):
        # No grace: servers never read their pipe, and a client told to
        # stop has nothing left to finish.
        for team in (self.client_team, self.server_team):
            if team is not None:
                team.close(grace=0.0)
        self.server_team = self.client_team = None
