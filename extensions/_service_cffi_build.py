"""cffi (API mode) build of service.c, declared from the real service.h.

cffi releases the GIL around every call it makes into C; sv_next is
lock-free, so that is safe, and costs what a cffi call costs.
"""
import os
import sys

# setuptools runs this file by path: make the project importable.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
from extensions.cffi_family import family_ffi  # noqa: E402

ffi = family_ffi("service")

if __name__ == "__main__":
    ffi.compile(verbose=True)
