"""The service's native echo server (support code for cases/service.py,
not a family): sv_serve in extensions/service.c, the Python echo server's
loop in C -- the same answers (the tag and a per-server counter laid out
as an id), the same exits (idle, lifetime, orphaned) -- through Cython
with the GIL released, or cffi (on PyPy, or where Cython is not built).
A server that costs almost nothing: what one native client can drive.
"""
import os

from ._service_clients import native_module

NATIVE_ECHO = "native_echo"


def _cffi_serve(module):
    ffi, lib = module.ffi, module.lib

    def serve(fd, node, parent, poll_ms, idle_ms, lifetime_ms):
        served = ffi.new("long long *")
        status = lib.sv_serve(fd, node, parent, poll_ms, idle_ms,
                              lifetime_ms, served)
        return status, served[0]
    return serve


def native_server():
    """(name of the wrapper, ``serve(fd, node, parent, poll_ms, idle_ms,
    lifetime_ms) -> (why it ended, requests answered)``); Unavailable
    when neither wrapper is built."""
    name, module = native_module()
    return name, module.serve if name == "cython" else _cffi_serve(module)


def serve_natively(sock, node, parent, poll_s, idle_s, lifetime_s):
    """sv_serve on ``sock`` until idle, past its lifetime or orphaned:
    (why it ended, requests answered); OSError when a socket call failed
    (a server that cannot answer is a failed benchmark, as in Python)."""
    _, serve = native_server()
    status, served = serve(sock.fileno(), node, parent, int(poll_s * 1000),
                           int(idle_s * 1000), int(lifetime_s * 1000))
    if status > 0:
        raise OSError(status, os.strerror(status))
    return status, served
