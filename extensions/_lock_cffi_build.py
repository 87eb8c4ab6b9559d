"""cffi (API mode) build of lock.c, declared from the real lock.h.

cffi releases the GIL around every call it makes into C, so every function
of this module runs with the GIL released: the cffi rows of the lock family
are ``nogil`` by construction and have no GIL-held twin.
"""
from __future__ import absolute_import

import os

from cffi import FFI

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = os.path.join(HERE, "lock.h")


def header_declarations(path):
    """The header minus preprocessor lines, which cdef() cannot parse."""
    with open(path) as header:
        return "".join(line for line in header
                       if not line.lstrip().startswith("#"))


ffi = FFI()
ffi.cdef(header_declarations(HEADER))
# Paths relative to setup.py's directory, where setuptools runs this build.
ffi.set_source(
    "extensions._lock_cffi",
    '#include "lock.h"',
    sources=["extensions/lock.c"],
    include_dirs=["extensions"],
    extra_link_args=["-pthread"],
    # A per-interpreter file name (not .abi3.so): tox builds every
    # interpreter in place in the same tree, and a shared name would let
    # one interpreter's build replace another's.
    py_limited_api=False,
)

if __name__ == "__main__":
    ffi.compile(verbose=True)
