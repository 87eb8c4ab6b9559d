"""cffi (API mode) build of lock.c, declared from the real lock.h.

cffi releases the GIL around every call it makes into C, so every function
of this module runs with the GIL released: the cffi rows of the lock family
are ``nogil`` by construction and have no GIL-held twin.
"""
import os
import sys

# setuptools runs this file by path: make the project importable.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
from extensions.cffi_family import family_ffi  # noqa: E402

ffi = family_ffi("lock")

if __name__ == "__main__":
    ffi.compile(verbose=True)
