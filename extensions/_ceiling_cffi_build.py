"""cffi (API mode) build of ceiling.c, declared from the real ceiling.h.

cffi releases the GIL around every call it makes into C, so cl_spin runs
with the GIL released here as in the Cython wrapper's ``spin``.
"""
import os
import sys

# setuptools runs this file by path: make the project importable.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
from extensions.cffi_family import family_ffi  # noqa: E402

ffi = family_ffi("ceiling")

if __name__ == "__main__":
    ffi.compile(verbose=True)
