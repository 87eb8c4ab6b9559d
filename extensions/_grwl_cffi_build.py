"""cffi (API mode) build of grwl.c, declared from the real grwl.h.

cffi releases the GIL around every call it makes into C, so gr_run runs
with the GIL released, as the Cython wrapper's ``with nogil:`` does.
"""
import os
import sys

# setuptools runs this file by path: make the project importable.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
from extensions.cffi_family import family_ffi  # noqa: E402

ffi = family_ffi("grwl")

if __name__ == "__main__":
    ffi.compile(verbose=True)
