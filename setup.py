"""Builds gilbench and its native extensions for the running interpreter.

One build for both wrappers of each C family: Cython modules through
cythonize() and cffi modules through cffi_modules, so C stays the single
source of truth.  Runs on every target interpreter (2.7 included).
"""
import platform
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup

# Generated C goes to a per-interpreter directory: 2.7 builds with an older
# Cython than 3.x, and a shared extensions/*.c would be reused across them.
CYTHON_BUILD_DIR = "build/cython-%s%d%d" % (
    platform.python_implementation().lower(), sys.version_info[0],
    sys.version_info[1])

CYTHON_EXTENSIONS = [
    Extension(
        "extensions._gil_cy",
        sources=["extensions/_gil_cy.pyx", "extensions/gil.c"],
        include_dirs=["extensions"],
        extra_compile_args=["-pthread"],
        extra_link_args=["-pthread"],
    ),
]

setup(
    name="gilbench",
    version="0.1.0",
    description="Concurrency benchmarks of C extensions across interpreters",
    packages=["harness", "harness.report", "cases", "extensions"],
    ext_modules=cythonize(
        CYTHON_EXTENSIONS,
        build_dir=CYTHON_BUILD_DIR,
        compiler_directives={"language_level": 3},
    ),
    cffi_modules=["extensions/_gil_cffi_build.py:ffi"],
    setup_requires=["cffi>=1.0"],
    zip_safe=False,
)
