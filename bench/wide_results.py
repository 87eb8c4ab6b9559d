"""Thirteen result files, as the main job writes them, from three real
ones: for timing the report (``bench/report_page.py``) at the main job's
width where only a few interpreters were run.

Usage: python bench/wide_results.py SOURCE_DIR OUT_DIR

SOURCE_DIR holds ``py311.json`` (a CPython with a GIL), ``py313t.json``
(a free-threaded build) and ``pypy3.json`` (a PyPy), e.g. from
``source tools/bootstrap.sh; tox_run -e py311,py313t,pypy3 -- --quick``.
OUT_DIR gets the main job's thirteen: CPython 2.7 and 3.8-3.15 (from
py311), 3.13t and its GIL-on twin (from py313t), PyPy 3.9 and 3.11 (from
pypy3).  Each copy says it is the interpreter it stands for in the
metadata the report reads (python_version, python_implementation,
python_gil, py_gil_disabled_build, python_executable, ...), and its
values are its source's times a factor per interpreter and benchmark
(seeded: the same files every time), so that the columns differ as real
interpreters' do.  What the source could not measure (its n/a entries)
stays n/a in every copy; the three measured files are written
unchanged.  On the real main job's thirteen files, run
report_page.py on its results/ directly instead.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys

# (file stem, source stem, python_version, implementation, GIL metadata,
# speed: the interpreter's values are its source's divided by it)
WIDE = [
    ("py27", "py311", "2.7.18", "cpython", "enabled", 0, 0.6),
    ("py38", "py311", "3.8.20", "cpython", "enabled", 0, 0.7),
    ("py39", "py311", "3.9.20", "cpython", "enabled", 0, 0.75),
    ("py310", "py311", "3.10.15", "cpython", "enabled", 0, 0.8),
    ("py311", "py311", "3.11.7", "cpython", "enabled", 0, 1.0),
    ("py312", "py311", "3.12.8", "cpython", "enabled", 0, 1.05),
    ("py313", "py311", "3.13.5", "cpython", "enabled", 0, 1.1),
    ("py313t", "py313t", "3.13.5", "cpython", "disabled", 1, 1.0),
    ("py313t-gil", "py313t", "3.13.5", "cpython", "enabled", 1, 0.95),
    ("py314", "py311", "3.14.0", "cpython", "enabled", 0, 1.15),
    ("py315", "py311", "3.15.0a1", "cpython", "enabled", 0, 1.2),
    ("pypy3", "pypy3", "3.9.18", "pypy", None, None, 1.0),
    ("pypy311", "pypy3", "3.11.11", "pypy", None, None, 1.1),
]
SPREAD = 0.08  # how far a benchmark's factor strays from the speed


def _version(source, version):
    """python_version as pyperf writes it; PyPy's names its language
    version inside ("PyPy 7.3.11 (Python 3.9.16) ...")."""
    if "Python " in source:
        head, _, rest = source.partition("Python ")
        return head + "Python " + version + rest[rest.find(")"):]
    return version + source[source.find(" "):]


def _rewrite(metadata, stem, version, gil, free_build):
    if "python_version" in metadata:
        metadata["python_version"] = _version(metadata["python_version"],
                                              version)
    if gil is not None and "python_gil" in metadata:
        metadata["python_gil"] = gil
    if free_build is not None and "py_gil_disabled_build" in metadata:
        metadata["py_gil_disabled_build"] = free_build
    if "python_executable" in metadata:
        metadata["python_executable"] = "/work/main/.tox/%s/bin/python" \
            % stem
    if "python_origin" in metadata:
        metadata["python_origin"] = "synthetic copy (%s)" % version


def derive(source, stem, version, gil, free_build, speed, seed):
    """A copy of ``source`` (a loaded pyperf JSON dict) standing for
    another interpreter."""
    data = json.loads(json.dumps(source))
    draw = random.Random(seed)
    _rewrite(data.get("metadata", {}), stem, version, gil, free_build)
    for bench in data["benchmarks"]:
        _rewrite(bench.get("metadata", {}), stem, version, gil, free_build)
        factor = 1.0 / (speed * (1 + draw.uniform(-SPREAD, SPREAD)))
        for run in bench["runs"]:
            _rewrite(run.get("metadata", {}), stem, version, gil,
                     free_build)
            if "values" in run:
                run["values"] = [v * factor for v in run["values"]]
            if "warmups" in run:
                run["warmups"] = [[loops, v * factor]
                                  for loops, v in run["warmups"]]
    return data


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source")
    parser.add_argument("out")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    sources = {}
    for seed, (stem, source, version, impl, gil, free_build,
               speed) in enumerate(WIDE):
        if source not in sources:
            path = os.path.join(args.source, source + ".json")
            if not os.path.exists(path):
                sys.exit("wide_results: no %s" % path)
            with open(path, encoding="utf-8") as stream:
                sources[source] = json.load(stream)
        # The measured files themselves stay as they are.
        data = sources[source] if stem == source else derive(
            sources[source], stem, version, gil, free_build, speed, seed)
        with open(os.path.join(args.out, stem + ".json"), "w",
                  encoding="utf-8") as stream:
            json.dump(data, stream, sort_keys=True)
    print("wrote %d files in %s" % (len(WIDE), args.out))


if __name__ == "__main__":
    main()
