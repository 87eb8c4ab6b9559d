"""Builds gilbench and its native extensions for the running interpreter.

One build for both wrappers of each C family: Cython modules through
cythonize() and cffi modules through cffi_modules, so C stays the single
source of truth.  Runs on every target interpreter (2.7 included).

The repository keeps its top-level layout; installed, everything lives
under the one import name ``gilbench`` (PACKAGE_DIRS), so an install puts
no generic top-level names (harness, cases...) into a user's environment.
Dependencies come from the requirements files, which are the single
source of truth for the per-interpreter pins (environment markers).
"""
from __future__ import print_function

import io
import os
import re
import sys

from Cython import __version__ as cython_version
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extensions import flavour  # noqa: E402  (needs the path above)

# Generated C goes to a per-ABI directory: 2.7 builds with an older Cython
# than 3.x, and 3.13t needs other C than 3.13 (see extensions/flavour.py).
CYTHON_BUILD_DIR = "build/cython-" + flavour.name()

# A family's Cython modules: extensions/_<family>_cy.pyx beside <family>.c,
# and _<family>_cy31.pyx for constructs only Cython 3.1+ compiles
# (cython.pymutex, cython.critical_section), built where the Cython
# building has them (2.7 builds with Cython 3.0).
CYTHON_SUFFIXES = {"_cy.pyx": (3, 0), "_cy31.pyx": (3, 1)}
CYTHON_VERSION = tuple(int(part) for part in re.findall(
    r"\d+", cython_version)[:2])


def _cython_modules():
    """(module name, family) of every Cython module this Cython builds.

    A new family adds its files and nothing here (its cffi build script,
    extensions/_<family>_cffi_build.py, is found the same way).
    """
    return [(name[:-len(".pyx")], name[1:-len(suffix)])
            for name in sorted(os.listdir(EXTENSIONS))
            for suffix, needs in sorted(CYTHON_SUFFIXES.items())
            if name.startswith("_") and name.endswith(suffix)
            and CYTHON_VERSION >= needs]


HERE = os.path.dirname(os.path.abspath(__file__))
EXTENSIONS = os.path.join(HERE, "extensions")
HEADERS = sorted("extensions/" + name for name in os.listdir(EXTENSIONS)
                 if name.endswith(".h"))
# Installed package -> repository directory.  gilbench's layers
# (SUBPACKAGES) are directories of harness/, found under its own.
PACKAGE_DIRS = {
    "gilbench": "harness",
    "gilbench.cases": "cases",
    "gilbench.extensions": "extensions",
    "gilbench.templates": "templates",
}
SUBPACKAGES = ["gilbench.measure", "gilbench.model", "gilbench.report",
               "gilbench.runner"] + [
    "gilbench.report." + group for group in (
        "commands", "data", "kinds", "numbers", "pages", "tables")]
CYTHON_EXTENSIONS = [
    Extension(
        "gilbench.extensions." + module,
        sources=["extensions/%s.pyx" % module, "extensions/%s.c" % family],
        include_dirs=["extensions"],
        depends=HEADERS,  # a header's change rebuilds the module
        extra_compile_args=["-pthread"],
        extra_link_args=["-pthread"],
    )
    for module, family in _cython_modules()
]
CFFI_MODULES = sorted(
    "extensions/%s:ffi" % name for name in os.listdir(EXTENSIONS)
    if name.startswith("_") and name.endswith("_cffi_build.py"))


class ParallelBuildExt(build_ext):
    """build_ext compiling its extensions on every CPU this process may
    use at once, unless told otherwise (``-j``): an editable install
    builds in a fresh directory each time, and the main job's thirteen
    installs each compiled a dozen modules one after another.  2.7's
    distutils has no parallel build, and keeps its serial one."""

    def finalize_options(self):
        if (getattr(self, "parallel", False) is None
                and hasattr(os, "sched_getaffinity")):
            self.parallel = len(os.sched_getaffinity(0))
        build_ext.finalize_options(self)


def requirements(name):
    """The requirement lines of a requirements file, ``-r`` followed,
    environment markers kept (pip evaluates them at install time)."""
    lines = []
    with open(os.path.join(HERE, name)) as stream:
        for line in stream:
            line = line.split(" #")[0].strip()
            if line.startswith("-r "):
                lines.extend(requirements(line[3:].strip()))
            elif line and not line.startswith("#"):
                lines.append(line)
    return lines


def runtime_requirements():
    """The worker side's dependencies for the interpreter building.

    Chosen here, not by a marker: no environment marker can tell
    free-threaded 3.13 (no cffi) from 3.13.  A wheel's tag (cp313t vs
    cp313) keeps the two builds' metadata apart.
    """
    if flavour.free_threaded():
        return requirements("requirements-freethreaded.txt")
    return requirements("requirements.txt")


def _named(requirement, name):
    return re.match(r"%s\b(?![-.])" % name, requirement, re.I) is not None


def cffi_options():
    """cffi_modules, and cffi as a build requirement, where cffi exists.

    setuptools hands setup_requires to an isolated build as its dynamic
    requirements; the cffi lines are the runtime ones (PyPy's line is
    excluded by its marker: PyPy ships its own cffi).
    """
    reason = flavour.cffi_unsupported()
    if reason:
        print("gilbench: cffi modules not built: " + reason,
              file=sys.stderr)
        return {}
    return {"cffi_modules": CFFI_MODULES,
            "setup_requires": [r for r in runtime_requirements()
                               if _named(r, "cffi")]}


setup(
    name="gilbench",
    version="0.1.0",
    description="Concurrency benchmarks of C extensions across interpreters",
    long_description=io.open(os.path.join(HERE, "README.rst"),
                             encoding="utf-8").read(),
    long_description_content_type="text/x-rst",
    # The worker side runs on 2.7 and 3.8+; the report side (the
    # ``report`` extra, gilbench.report) needs 3.9+.
    python_requires=">=2.7, !=3.0.*, !=3.1.*, !=3.2.*, !=3.3.*, !=3.4.*, "
                    "!=3.5.*, !=3.6.*, !=3.7.*",
    packages=sorted(PACKAGE_DIRS) + SUBPACKAGES,
    package_dir=PACKAGE_DIRS,
    package_data={"gilbench.templates": ["*.j2", "init/*.tmpl"]},
    install_requires=runtime_requirements(),
    extras_require={"report": requirements("requirements-report.txt")},
    entry_points={"console_scripts": ["gilbench = gilbench.runner.cli:main"]},
    ext_modules=cythonize(
        CYTHON_EXTENSIONS,
        build_dir=CYTHON_BUILD_DIR,
        compiler_directives={"language_level": 3},
    ),
    zip_safe=False,
    cmdclass={"build_ext": ParallelBuildExt},
    **cffi_options()
)
