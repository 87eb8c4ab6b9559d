"""Loads gilbench result files into plain records for the pivot code."""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field

import pyperf

from harness.errors import UsageError

DIMENSIONS = ("family", "case", "variant", "backend")
MISSING_KEY = "gilbench_missing"  # written by harness.results


@dataclass(frozen=True)
class Measurement:
    name: str
    dims: dict
    threads: int
    mean: float
    stdev: float
    cpus_usable: int
    cpu_utilisation: float | None

    @property
    def rsd(self):
        return self.stdev / self.mean if self.mean else 0.0


@dataclass
class ResultFile:
    path: str
    interpreter: str  # e.g. "CPython 3.11", "PyPy 3.9", "CPython 3.13t"
    version_key: tuple
    measurements: list
    missing: dict  # benchmark name -> "n/a: ..." / "failed: ..."
    ratios: dict  # family -> list of ratio declarations
    facts: dict = field(default_factory=dict)


def _load_suite(path):
    try:
        return pyperf.BenchmarkSuite.load(path)
    except FileNotFoundError:
        raise UsageError(f"result file {path!r} does not exist")
    except Exception as exc:  # pyperf raises many types on bad input
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UsageError(f"{path!r} is not a pyperf result file ({reason})")


def _measurement(bench):
    meta = bench.get_metadata()
    runs_util = [run.get_metadata().get("cpu_utilisation")
                 for run in bench.get_runs() if run.values]
    runs_util = [u for u in runs_util if u is not None]
    stdev = bench.stdev() if bench.get_nvalue() > 1 else 0.0
    return Measurement(
        name=bench.get_name(), dims={k: meta[k] for k in DIMENSIONS},
        threads=int(meta["threads"]), mean=bench.mean(), stdev=stdev,
        cpus_usable=int(meta.get("cpus_usable", meta.get("cpu_count", 1))),
        cpu_utilisation=(sum(runs_util) / len(runs_util)
                         if runs_util else None))


def _language_version(python_version):
    """(3, 9) from "3.9.18 (64-bit)" or "PyPy 7.3.11 (Python 3.9.16) ..."."""
    match = (re.search(r"Python (\d+)\.(\d+)", python_version)
             or re.match(r"(\d+)\.(\d+)", python_version))
    return (int(match.group(1)), int(match.group(2))) if match else None


def _interpreter(meta, path):
    impl = meta.get("python_implementation", "unknown").lower()
    major_minor = _language_version(meta.get("python_version", ""))
    if major_minor is None:
        raise UsageError(f"{path!r} has no readable python_version metadata")
    free = (meta.get("python_gil") == "disabled"
            or meta.get("py_gil_disabled_build") == 1)
    name = {"cpython": "CPython", "pypy": "PyPy"}.get(impl, impl)
    label = "%s %d.%d%s" % (name, *major_minor, "t" if free else "")
    return label, (major_minor, impl != "cpython", free)


def load_result(path):
    suite = _load_suite(path)
    benchmarks = suite.get_benchmarks()
    required = DIMENSIONS + ("threads",)
    for bench in benchmarks:
        lacking = [k for k in required if k not in bench.get_metadata()]
        if lacking:
            raise UsageError(f"{path!r} is a pyperf file but not a gilbench "
                             f"result ({bench.get_name()!r} has no "
                             f"{', '.join(lacking)} metadata)")
    common = benchmarks[0].get_metadata()
    label, key = _interpreter(common, path)
    ratios = {}
    for bench in benchmarks:
        meta = bench.get_metadata()
        if "gilbench_ratios" in meta:
            ratios[meta["family"]] = json.loads(meta["gilbench_ratios"])
    return ResultFile(
        path=path, interpreter=label, version_key=key,
        measurements=[_measurement(b) for b in benchmarks],
        missing=json.loads(common.get(MISSING_KEY, "{}")), ratios=ratios,
        facts=_facts(common, benchmarks))


def _facts(common, benchmarks):
    loads = [b.get_metadata().get("load_avg_1min") for b in benchmarks]
    loads += [r.get_metadata().get("load_avg_1min")
              for b in benchmarks for r in b.get_runs()]
    loads = [x for x in loads if x is not None]
    return {
        "python": common.get("python_version", "?"),
        "gil": common.get("python_gil", "?"),
        "cpus": "%s usable (%s) of %s" % (
            common.get("cpus_usable", "?"),
            common.get("cpu_affinity_effective", "?"),
            common.get("cpu_count", "?")),
        "pinned": common.get("cpu_affinity", "no"),
        "load": ("%.2f-%.2f" % (min(loads), max(loads))) if loads else "?",
        "pyperf": common.get("perf_version", "?"),
    }


def expand_paths(paths):
    """Files named, plus the *.json files of directories named."""
    files = []
    for path in paths:
        if os.path.isdir(path):
            files.extend(sorted(os.path.join(path, name)
                                for name in os.listdir(path)
                                if name.endswith(".json")))
        else:
            files.append(path)
    if not files:
        raise UsageError("no result files given (or none in the "
                         "directories given)")
    return files


def load_results(paths):
    """ResultFiles in interpreter order (2.7, 3.8, 3.9, PyPy 3.9, 3.10...)."""
    results = [load_result(path) for path in expand_paths(paths)]
    labels = [r.interpreter for r in results]
    for result in results:
        if labels.count(result.interpreter) > 1:
            stem = os.path.splitext(os.path.basename(result.path))[0]
            result.interpreter = f"{result.interpreter} ({stem})"
    return sorted(results, key=lambda r: (r.version_key, r.interpreter))
