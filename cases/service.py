"""Service family: an id generator in process and as a UDP service on
loopback (N ``SO_REUSEPORT`` server processes or N server threads),
measured against an echo server and driven by a native load generator,
so the servers, not the clients, are what is measured.  The mechanics
are in the ``_service_*`` modules beside it; what each row and recorded
key means, and the findings: docs/families/service.rst.
"""
import platform
import time
from itertools import repeat

from gilbench.api import (
    CUSTOM,
    Axis,
    CaseSpec,
    finding,
    needs,
    recorded,
    speedup,
    table,
    threads,
    throughput,
)

from . import _service_udp as udp_module
from ._service_clients import (
    NATIVE,
    PYTHON,
    REPLY_TIMEOUT,
    native_driver,
)
from ._service_echo import NATIVE_ECHO, native_server
from ._service_ids import GENERATORS, MODULES, record_value

FAMILY = "service"
ORDER = 50
IDS_PER_LOOP = 1000  # per thread, in process
UDP_LOOPS = 4
ECHO = "echo"


# --- in process --------------------------------------------------------------

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
        record_value(wall, id_lists, 0, [1],
                     sum(len(ids) for ids in id_lists))


def inprocess(backend):
    def prepare(params):
        return SharedGenerator(backend)
    return prepare


# --- over UDP ----------------------------------------------------------------

# PyPy's servers and clients are forked fresh in every pyperf worker with
# a cold JIT, which pyperf's one short warmup does not warm (the service
# family's page gives the figures).  So on a JIT the service is driven
# before the clock until its rounds stop getting faster: WARM_ROUNDS in a
# row no more than WARM_WITHIN faster than the fastest before them, after
# at least JIT_WARMUP_MIN seconds (the JIT's later traces), and never for
# longer than JIT_WARMUP_SECONDS.
JIT_WARMUP_SECONDS = 1.0
JIT_WARMUP_MIN = 0.25
WARM_WITHIN = 1.10
WARM_ROUNDS = 2


def _warm_up(service, clock=time.time):
    """Drive ``service`` in rounds of doubling loops (up to 64) until it
    is warm, as above; the seconds it took."""
    start = clock()
    loops, fastest, steady = 1, float("inf"), 0
    while True:
        began = clock()
        service(loops)
        now = clock()
        per_loop = (now - began) / loops
        steady = steady + 1 if per_loop * WARM_WITHIN >= fastest else 0
        fastest = min(fastest, per_loop)
        spent = now - start
        if spent >= JIT_WARMUP_SECONDS or (
                steady >= WARM_ROUNDS and spent >= JIT_WARMUP_MIN):
            return spent
        loops = min(loops * 2, 64)


def udp(backend, threaded):
    def prepare(params):
        service = udp_module.Service(params, backend, threaded)
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
        udp_module.fork_context()
        _check(backend)(params)
        if params["client"] == NATIVE:
            native_driver()
        if backend == NATIVE_ECHO:
            native_server()
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


_SERVERS = {ECHO: "an echo server (a counter, no generator)",
            NATIVE_ECHO: "a native echo server (a counter, a loop in C)"}


def _udp_spec(backend, variant, client_kinds, what, servers, extra=(),
              client_extra=()):
    server = _SERVERS.get(backend, "%s generator" % backend)
    return CaseSpec(
        FAMILY, "udp", variant, backend, udp(backend, variant == "threads"),
        "%s on one 127.0.0.1 port, %s" % (what, server),
        driver=CUSTOM,
        axes=[Axis("servers", servers, quick=[1, 2], extra=extra,
                   unit="servers"),
              Axis("client", client_kinds, quick=[NATIVE],
                   extra=client_extra),
              Axis("clients", [1], quick=[1], extra=[2, 4],
                   unit="processes")],
        value_means="wall seconds from the clients' release to the last "
        "reply (or loss) of %d requests per loop"
        % udp_module.REQUESTS_PER_LOOP,
        check=_udp_check(backend),
        # A value is a number of requests, not a time: no calibration,
        # which here would start servers and clients once more.  The
        # user's sizing options still win.
        sizing=["--loops", str(UDP_LOOPS)],
        ops_per_loop=udp_module.REQUESTS_PER_LOOP,
        concurrency=lambda params: params["servers"] + params["clients"])


_PROCESSES = "N server processes with SO_REUSEPORT sockets"
_THREADS = "one server process, one socket, N server threads"
_BOTH = [NATIVE, PYTHON]
CASES = [
    _inprocess_spec("python", [1, 2, 4], [1, 2]),
    _inprocess_spec("cython", [1, 2], [1]),
    _inprocess_spec("cffi", [1, 2], [1]),
    # The echo ceiling first, then the id servers against it.  The C
    # generator over UDP goes through cffi: on PyPy, Cython goes through
    # cpyext; cffi does not exist on 3.13t, where threads use Cython.
    # Threads stop at 2 by default (4: --param servers=4), which keeps
    # the family's default run near its time before the echo rows.
    # What the native client drives when the server costs almost
    # nothing: cheap by default, the rest with --param.
    _udp_spec(NATIVE_ECHO, "processes", [NATIVE], _PROCESSES, [1, 2], [4],
              [PYTHON]),
    _udp_spec(ECHO, "processes", _BOTH, _PROCESSES, [1, 2, 4]),
    _udp_spec("python", "processes", _BOTH, _PROCESSES, [1, 2, 4]),
    _udp_spec("cffi", "processes", [NATIVE], _PROCESSES, [1, 2, 4]),
    _udp_spec(ECHO, "threads", [NATIVE], _THREADS, [1, 2], [4]),
    _udp_spec("python", "threads", [NATIVE], _THREADS, [1, 2], [4]),
    _udp_spec("cython", "threads", [NATIVE], _THREADS, [1, 2], [4]),
]

_UDP = {"case": "udp"}
_PER_UDP = ["variant", "client", "clients", "backend"]
_PER_SERVERS = ["variant", "client", "clients", "servers"]
_SIDES = ("clients and servers share the machine's CPUs unless "
          "--pin-threads put them on disjoint ones (the UDP CPUs tables)")
ECHO_SHARE = speedup(over="backend", baseline=ECHO)


def _udp_recorded(title, key, unit, note, plot=True):
    return table(title, rows="servers", per=_PER_UDP, where=_UDP,
                 cell=recorded(key, unit), note=note, plot=plot)


TABLES = [
    table("UDP ids/s", rows="backend", per=_PER_SERVERS, where=_UDP,
          cell=throughput(unit="ids"),
          note="Requests answered or lost per second (lost ones are in "
          "their own table); the echo row is the ceiling: the same "
          "server loop and clients, no generator; native_echo is that "
          "loop in C, what the client drives when the server costs almost "
          "nothing; %s." % _SIDES),
    table("UDP ids/s as a share of the echo ceiling", rows="backend",
          per=_PER_SERVERS, where=_UDP, cell=ECHO_SHARE,
          note="Each id server's ids/s over the echo server's at the same "
          "servers, variant and clients (the echo time / its time): 1.00x "
          "is as fast as a server that generates nothing; well below 1, "
          "the id server is the bottleneck; near 1, the clients, the "
          "kernel or the shared CPUs are.  native_echo over echo: what "
          "the Python server loop costs."),
    table("UDP processes vs threads", rows="servers", columns="variant",
          per=["interpreter", "clients", "backend"],
          where={"case": "udp", "backend": [ECHO, "python"],
                 "client": NATIVE},
          cell=throughput(unit="ids"),
          note="processes: one SO_REUSEPORT socket per server process; "
          "threads: one socket read by N threads of one process."),
    _udp_recorded("UDP per-server share", "fairness_pct", "%",
                  "The smallest server's share of the requests x servers: "
                  "100% when the kernel spread them evenly (per-server "
                  "counts are in each run's `served`)."),
    _udp_recorded("UDP lost replies", "errors", "",
                  "Replies not back within %.1f s, per value."
                  % REPLY_TIMEOUT),
    _udp_recorded("UDP duplicate ids", "duplicates", "",
                  "Must be 0: a value with a duplicate fails its "
                  "benchmark.", plot=False),
    _udp_recorded("UDP ids out of order", "nonmonotonic", "",
                  "Ids of one node that came after a larger one on the "
                  "same flow; must be 0.", plot=False),
    _udp_recorded("UDP clients' CPU", "client_cpu_pct", "%",
                  "The clients' CPU time during a value over its wall "
                  "time: 100% is one busy CPU.  Requests/s over this share "
                  "of a CPU is what the clients could drive on a CPU of "
                  "their own."),
    _udp_recorded("UDP servers' CPU", "server_cpu_pct", "%",
                  "All server processes' CPU time (every thread, from "
                  "/proc schedstat) during a value over its wall time: "
                  "near 100% x servers (or x the CPUs they had, if fewer), "
                  "the servers are the bottleneck."),
    _udp_recorded("UDP CPUs the servers had", "server_cpus", "",
                  "Without --pin-threads, every usable CPU, shared with "
                  "the clients; with it, the servers' own (each run's "
                  "`placement` says whether they were disjoint from the "
                  "clients').", plot=False),
    _udp_recorded("UDP CPUs the clients had", "client_cpus", "",
                  "As the servers' table: shared without --pin-threads.",
                  plot=False),
    table("In-process ids/s", rows="threads", per=["backend"],
          where={"case": "inprocess"}, cell=throughput(unit="ids"),
          note="All threads together, one shared generator."),
]

_UDP_AT = {"case": "udp", "variant": "processes", "client": NATIVE,
           "clients": 1}
FINDINGS = [
    finding("UDP ids/s with 2 server processes over 1 (python id "
            "servers, native client)?", speedup(over="servers", baseline=1),
            at=dict(_UDP_AT, backend="python", servers=2),
            evidence="UDP ids/s"),
    finding("Echo ceiling: UDP requests/s with 2 server processes over 1 "
            "(native client)?", speedup(over="servers", baseline=1),
            at=dict(_UDP_AT, backend=ECHO, servers=2),
            evidence="UDP ids/s"),
] + [
    finding("Python id server's ids/s as a share of the echo ceiling, %d "
            "server process%s (native client)?"
            % (servers, "" if servers == 1 else "es"), ECHO_SHARE,
            at=dict(_UDP_AT, backend="python", servers=servers),
            evidence="UDP ids/s as a share of the echo ceiling")
    for servers in (1, 2)
] + [
    finding("Requests/s one native client drives against one echo server "
            "process?", throughput(unit="req"),
            at=dict(_UDP_AT, backend=ECHO, servers=1),
            evidence="UDP ids/s"),
    finding("Requests/s one native client drives against a native echo "
            "server, 1 server process?", throughput(unit="req"),
            at=dict(_UDP_AT, backend=NATIVE_ECHO, servers=1),
            evidence="UDP ids/s"),
    finding("Python echo server's requests/s as a share of the native "
            "echo server's, 1 server process (native client; near 1, the "
            "client is the limit, well below, the Python server loop)?",
            speedup(over="backend", baseline=NATIVE_ECHO),
            at=dict(_UDP_AT, backend=ECHO, servers=1),
            evidence="UDP ids/s"),
    finding("Echo ceiling, 1 server process: the native client's "
            "requests/s over the Python client's?",
            speedup(over="client", baseline=PYTHON),
            at=dict(_UDP_AT, backend=ECHO, servers=1, client=NATIVE),
            evidence="UDP ids/s"),
] + [
    finding("In-process ids/s, %s generator, 1 thread?" % backend,
            throughput(unit="ids"),
            at={"case": "inprocess", "backend": backend, "threads": 1})
    for backend in ("python", "cython", "cffi")
] + [
    finding("Duplicate ids over UDP, 2 server processes (must be 0)?",
            recorded("duplicates"),
            at=dict(_UDP_AT, backend="python", servers=2),
            evidence="UDP duplicate ids", oversubscribed=True),
]
