"""One cffi (API mode) builder for every native family.

``family_ffi("gil")`` declares ``extensions/gil.h`` with ``cdef()`` -- the
real header, minus preprocessor lines, which cdef cannot parse -- and
compiles ``extensions/gil.c`` into ``gilbench.extensions._gil_cffi``, so
the C stays the single source of truth for the Cython and the cffi
wrapper.  Each family's ``_<family>_cffi_build.py`` is the
``cffi_modules`` entry point.
"""
from __future__ import absolute_import

import os

from cffi import FFI

HERE = os.path.dirname(os.path.abspath(__file__))


def header_declarations(path):
    """The header minus preprocessor lines, which cdef() cannot parse."""
    with open(path) as header:
        return "".join(line for line in header
                       if not line.lstrip().startswith("#"))


def family_ffi(family):
    ffi = FFI()
    ffi.cdef(header_declarations(os.path.join(HERE, family + ".h")))
    # Paths relative to setup.py's directory, where setuptools runs this.
    ffi.set_source(
        "gilbench.extensions._%s_cffi" % family,  # the installed name
        '#include "%s.h"' % family,
        sources=["extensions/%s.c" % family],
        include_dirs=["extensions"],
        depends=sorted("extensions/" + name for name in os.listdir(HERE)
                       if name.endswith(".h")),  # a header's change rebuilds
        extra_link_args=["-pthread"],
        # A per-interpreter file name (not .abi3.so): tox builds every
        # interpreter in place in the same tree, and a shared name would
        # let one interpreter's build replace another's.
        py_limited_api=False,
    )
    return ffi
