"""Which interpreter a result file measured: its column label and order,
and how it was built."""
from __future__ import annotations

import os
import re

from gilbench.errors import UsageError
from gilbench.model.resultformat import MISNAMED_KEY


def _language_version(python_version):
    """(3, 9) from "3.9.18 (64-bit)" or "PyPy 7.3.11 (Python 3.9.16) ..."."""
    match = (re.search(r"Python (\d+)\.(\d+)", python_version)
             or re.match(r"(\d+)\.(\d+)", python_version))
    return (int(match.group(1)), int(match.group(2))) if match else None


def identify(meta, path):
    """(label, order key) from a file's pyperf metadata.

    A free-threaded build is "CPython 3.13t"; run with PYTHON_GIL=1 it
    holds a GIL again, which changes every number, so it is told apart as
    "CPython 3.13t (GIL on)" and sorted right after its sibling.
    """
    impl = str(meta.get("python_implementation", "unknown")).lower()
    major_minor = _language_version(str(meta.get("python_version", "")))
    if major_minor is None:
        raise UsageError(f"{path!r} has no readable python_version metadata")
    free_build = (meta.get("py_gil_disabled_build") == 1
                  or meta.get("python_gil") == "disabled")
    gil_on = free_build and meta.get("python_gil") == "enabled"
    name = {"cpython": "CPython", "pypy": "PyPy"}.get(impl, impl)
    label = "%s %d.%d%s%s" % (name, *major_minor, "t" if free_build else "",
                              " (GIL on)" if gil_on else "")
    if meta.get(MISNAMED_KEY):  # its env or file named another interpreter
        label += " (misnamed)"
    return label, (major_minor, impl != "cpython", free_build, gil_on)


def short_label(label):
    """A column's label in a few characters, for a compact matrix:
    "CPython 3.13t (GIL on)" is "3.13t+G", "PyPy 3.9" "PyPy3.9"; whatever
    else a label says (a host, a file's stem, misnamed) stays."""
    return (label.replace("CPython ", "", 1).replace(" (GIL on)", "+G", 1)
            .replace("PyPy ", "PyPy", 1))


def name_hosts(results):
    """Results from several machines merge into one report: when their
    hosts differ, every label names its host ("CPython 3.12 on ci-arm";
    a file without pyperf's hostname metadata keeps its plain label)."""
    if len({r.host for r in results}) > 1:
        for result in results:
            if result.host:
                result.interpreter += " on " + result.host


def disambiguate(results):
    """Equal labels (two files of one interpreter) get the file's stem."""
    labels = [r.interpreter for r in results]
    for result in results:
        if labels.count(result.interpreter) > 1:
            stem = os.path.splitext(os.path.basename(result.path))[0]
            result.interpreter = f"{result.interpreter} ({stem})"


# How a column's interpreter was built (gilbench.measure.buildinfo and
# pyperf's python_compiler): the facts a report shows per column.
BUILD_FACTS = {"origin": "python_origin", "compiler": "python_compiler",
               "optimizations": "python_optimizations", "libc": "python_libc"}
# The facts that change speed when they differ between two builds (every
# install has an origin of its own).
SPEED_FACTS = ("compiler", "optimizations", "libc")


def build_facts(meta):
    """{fact: value} of BUILD_FACTS ("?" where the file predates them),
    and "named": how the interpreter is not what its env or file names,
    or "as named"."""
    facts = {fact: str(meta.get(key, "?"))
             for fact, key in BUILD_FACTS.items()}
    facts["named"] = str(meta.get(MISNAMED_KEY) or "as named")
    return facts


def build_difference(facts, other_facts):
    """"" or "builds differ: optimizations none / PGO, LTO; ..." for two
    columns' facts (those the files record)."""
    parts = ["%s %s / %s" % (fact, facts[fact], other_facts[fact])
             for fact in SPEED_FACTS
             if "?" not in (facts[fact], other_facts[fact])
             and facts[fact] != other_facts[fact]]
    return "builds differ: " + "; ".join(parts) if parts else ""
