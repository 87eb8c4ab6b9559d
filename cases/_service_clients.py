"""The service's load generators (support code for cases/service.py, not
a family): the pure-Python client and the native one (sv_drive in
extensions/service.c, through Cython or cffi).

Both send 4-byte tags over FLOWS connected sockets (flows the kernel
spreads over SO_REUSEPORT servers by source port), keep a window of
requests in flight, count a reply not back within REPLY_TIMEOUT as lost
(and skip it, by its tag, if it comes later), and return each flow's ids
in arrival order: the order a server node promises is per flow.
"""
import errno
import os
import platform
import socket
import struct

from gilbench.api import Unavailable, import_extension

from ._service_ids import (
    CFFI_MODULE,
    CYTHON_MODULE,
    ID,
    REPLY_BYTES,
    TAG,
    TAG_MASK,
)

PYTHON, NATIVE = "python", "native"
FLOWS = 16  # sockets per client
PYTHON_WINDOW = 4  # the Python client: requests in flight, one per socket
NATIVE_IN_FLIGHT = 128  # the native clients': over all of them
REPLY_TIMEOUT = 1.0
MAX_SILENT = 3  # Python client: lost replies in a row before giving up


def open_flows(host, port, timeout=REPLY_TIMEOUT):
    socks = []
    for _ in range(FLOWS):
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        socks.append(sock)
        sock.bind((host, 0))
        sock.connect((host, port))
        set_receive_timeout(sock, timeout)
    return socks


def set_receive_timeout(sock, seconds):
    """A kernel timeout on a blocking socket: no poll() per datagram, as
    Python's own socket timeouts would add."""
    whole = int(seconds)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO,
                    struct.pack("ll", whole, int((seconds - whole) * 1e6)))


def timed_out(exc):
    return getattr(exc, "errno", None) in (errno.EAGAIN, errno.EWOULDBLOCK)


# --- pure Python -------------------------------------------------------------

def python_rounds(socks, requests, tag):
    """requests // PYTHON_WINDOW rounds of (a request on each socket of
    the next window, then each reply): (ids per socket, replies lost)."""
    ids = [[] for _ in socks]
    errors, silent = 0, 0
    pack, unpack = TAG.pack, ID.unpack
    starts = range(0, len(socks), PYTHON_WINDOW)
    windows = [list(range(i, min(i + PYTHON_WINDOW, len(socks))))
               for i in starts]
    for round_ in range(requests // PYTHON_WINDOW):
        sent = []
        window = windows[round_ % len(windows)]
        for index in window:
            tag = (tag + 1) & TAG_MASK
            request = pack(tag)
            socks[index].send(request)
            sent.append(request)
        for index, request in zip(window, sent):
            reply = _reply(socks[index], request)
            if reply is None:
                errors += 1
                silent += 1
                if silent >= MAX_SILENT:
                    raise RuntimeError("%d replies in a row lost (%.1f s "
                                       "each): no server answers"
                                       % (silent, REPLY_TIMEOUT))
                continue
            silent = 0
            ids[index].append(unpack(reply[TAG.size:])[0])
    return ids, errors


def _reply(sock, request):
    """The reply to ``request``, skipping late replies to lost ones; None
    once REPLY_TIMEOUT passed without it."""
    for _ in range(PYTHON_WINDOW * MAX_SILENT + 1):
        try:
            reply = sock.recv(REPLY_BYTES)
        except (socket.error, OSError) as exc:
            if timed_out(exc):
                return None
            raise
        if len(reply) == REPLY_BYTES and reply[:TAG.size] == request:
            return reply
    return None


# --- native ------------------------------------------------------------------

def _cffi_drive(fds, requests, window, first_tag, timeout_ms, max_silent):
    module = import_extension(CFFI_MODULE)
    ffi, lib = module.ffi, module.lib
    stride = -(-requests // len(fds))
    ids = ffi.new("long long[]", max(len(fds) * stride, 1))
    received = ffi.new("long[]", len(fds))
    lost = ffi.new("long *")
    status = lib.sv_drive(ffi.new("int[]", fds), len(fds), requests, window,
                          first_tag, timeout_ms, max_silent, ids, received,
                          lost)
    if status:
        return [], lost[0], status
    return ([ffi.unpack(ids + f * stride, received[f])
             for f in range(len(fds))], lost[0], status)


def native_module():
    """(name of the wrapper, its module): cffi on PyPy (where Cython goes
    through cpyext), else Cython, else cffi; Unavailable when neither is
    built."""
    order = [CYTHON_MODULE, CFFI_MODULE]
    if platform.python_implementation() == "PyPy":
        order.reverse()
    reasons = []
    for name in order:
        try:
            module = import_extension(name)
        except Unavailable as exc:
            reasons.append(str(exc))
            continue
        return ("cython" if name == CYTHON_MODULE else "cffi"), module
    raise Unavailable("no native wrapper of service.c: %s"
                      % "; ".join(reasons))


def native_driver():
    """(name of the wrapper, its drive function), as native_module."""
    name, module = native_module()
    return name, module.drive if name == "cython" else _cffi_drive


class NativeClient(object):
    """sv_drive over one client's flows: ``window`` requests in flight per
    flow, sent and received in batches with the GIL released."""

    def __init__(self, socks, window):
        self.wrapper, self._drive = native_driver()
        self.socks = socks  # keeps the descriptors open
        self.fds = [sock.fileno() for sock in socks]
        self.window = window

    def __call__(self, requests, tag):
        ids, lost, status = self._drive(
            self.fds, requests, self.window, tag & TAG_MASK,
            int(REPLY_TIMEOUT * 1000), len(self.fds) * self.window)
        if status > 0:
            raise OSError(status, os.strerror(status))
        if status < 0:
            raise RuntimeError("every request in flight (%d) lost: no "
                               "server answers"
                               % (len(self.fds) * self.window))
        return ids, lost


def native_window(clients):
    """Requests in flight per flow: NATIVE_IN_FLIGHT over all clients, so
    more clients do not overflow the servers' receive buffers."""
    return max(1, NATIVE_IN_FLIGHT // (clients * FLOWS))


def make_client(kind, socks, clients):
    """``rounds(requests, tag) -> (ids per flow, lost)`` of a ``kind``
    client on ``socks``."""
    if kind == NATIVE:
        return NativeClient(socks, native_window(clients))

    def rounds(requests, tag):
        return python_rounds(socks, requests, tag)
    rounds.wrapper = PYTHON
    return rounds
