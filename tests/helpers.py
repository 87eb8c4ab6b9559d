"""Helpers shared by the tests (imported by conftest.py and test modules).

Every ``run`` must name its output with ``-o``: without it the harness writes
results/<python>.json in the project, which the tests must never touch.
"""
import ast
import math
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(ROOT, "tests")
# The tests' own case families and data; conftest.py puts it on sys.path.
FIXTURES = os.path.join(TESTS, "fixtures")

# pyperf sizing options for the smallest possible run: one worker process,
# one value of one loop, no warmup.
MINIMAL_PYPERF = ["-p", "1", "-n", "1", "-w", "0", "-l", "1"]


def pythons_to_test():
    """This interpreter, and those GILBENCH_TEST_PYTHONS names
    (``os.pathsep``-separated; .ci/run names the smoke's 2.7, PyPy and
    free-threaded tox environments, each with gilbench installed)."""
    named = os.environ.get("GILBENCH_TEST_PYTHONS", "").split(os.pathsep)
    return [sys.executable] + [python for python in named if python]


class Completed(object):
    def __init__(self, args, code, stdout, stderr):
        self.args = args
        self.code = code
        self.stdout = stdout
        self.stderr = stderr

    def __repr__(self):
        return ("<harness %s: exit %r\n--- stdout\n%s\n--- stderr\n%s>"
                % (" ".join(self.args), self.code, self.stdout[-3000:],
                   self.stderr[-3000:]))

    @property
    def stderr_lines(self):
        return [line for line in self.stderr.splitlines() if line.strip()]


def drive(spec, params, loops):
    """``spec.prepare(params)`` and one value of ``loops`` through its
    driver, in this process, as the pyperf program runs it (after_value
    included); return what the case record()ed."""
    from types import SimpleNamespace

    from gilbench.measure import record as record_module
    from gilbench.measure import timers

    # What make_timer reads of a registry.Benchmark (whose name would need
    # every axis in params).
    bench = SimpleNamespace(spec=spec, params=dict(params))
    recorded = {}
    record_module.set_sink(recorded)
    try:
        timer = timers.make_timer(bench, spec.prepare(dict(params)), None,
                                   None)
        try:
            timer(loops)
        finally:
            timer.close()
    finally:
        record_module.set_sink(None)
    return recorded


def package_dirs():
    """setup.py's PACKAGE_DIRS: installed package -> repository directory."""
    with open(os.path.join(ROOT, "setup.py")) as stream:
        tree = ast.parse(stream.read())
    for node in tree.body:
        if (isinstance(node, ast.Assign)
                and [t.id for t in node.targets] == ["PACKAGE_DIRS"]):
            return ast.literal_eval(node.value)
    raise AssertionError("setup.py defines no PACKAGE_DIRS")


def unbuilt_package(destination):
    """Copy the project's Python sources into ``destination/gilbench`` as
    an install lays them out, without any built module: a gilbench that an
    interpreter without an install imports through PYTHONPATH (and whose
    native cases are "not built").  Returns ``destination``."""
    ignore = shutil.ignore_patterns("*.so", "*.pyc", "__pycache__")
    # Parents first: copytree makes the directory a child package goes in.
    for package, directory in sorted(package_dirs().items()):
        shutil.copytree(os.path.join(ROOT, directory),
                        os.path.join(str(destination), *package.split(".")),
                        ignore=ignore)
    return destination


def run_module(module, args, timeout=150, python=sys.executable, env=None):
    """``python -m module args...`` from the project root; a Completed."""
    args = [str(a) for a in args]
    process = subprocess.run(
        [python, "-m", module] + args, cwd=ROOT, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True, timeout=timeout)
    return Completed([module] + args, process.returncode, process.stdout,
                     process.stderr)


def run_bench_script(name, *args):
    """bench/<name> with ``args``, from the repository's root, in this
    Python (the report side's, where a bench script reads results)."""
    return subprocess.run([sys.executable, os.path.join(ROOT, "bench",
                                                        name)] + list(args),
                          capture_output=True, text=True, cwd=ROOT)


def run_harness(*args, **kwargs):
    """``python -m gilbench args...``; refuses a ``run`` without ``-o``."""
    args = [str(a) for a in args]
    if args and args[0] == "run" and not any(
            a in ("-o", "--output") or a.startswith("--output=")
            for a in args):
        raise AssertionError("test bug: 'run' without -o would write into "
                             "results/")
    return run_module("gilbench", args, **kwargs)


def assert_one_line_usage_error(result):
    """Exit code 2, one stderr line 'gilbench: error: ...', no traceback."""
    assert result.code == 2, result
    assert "Traceback" not in result.stderr + result.stdout, result
    assert len(result.stderr_lines) == 1, result
    assert result.stderr_lines[0].startswith("gilbench: error: "), result
    assert result.stderr_lines[0] != "gilbench: error: ", result


# ---------------------------------------------------------------------------
# Synthetic gilbench result files (report side, format 2 as documented in
# harness/resultformat.py), built with pyperf's API.

NAME_PARTS = ("family", "case", "variant", "backend")
THREADS_AXIS = {"name": "threads", "unit": "threads", "log": False}


def gil_tables():
    """The GIL family's declarations, as cases/gil.py declares them."""
    from gilbench.model.tables import ratio, table
    return [
        table("nogil/gil slowdown", rows="threads", per=["case", "backend"],
              cell=ratio(over="variant", numerator="nogil",
                         denominator="gil", fallback={"backend": "cython"}),
              note="cffi always releases the GIL, so its rows are divided "
              "by the GIL-held Cython call"),
        table("lock/trivial factor", rows="threads",
              per=["variant", "backend"],
              cell=ratio(over="case", numerator="lock",
                         denominator="trivial")),
    ]


def dims(family="gil", case="trivial", variant="gil", backend="cython",
         **axes):
    """A benchmark's dimensions: the name parts, then its axis values
    (keyword order is axis declaration order)."""
    found = {"family": family, "case": case, "variant": variant,
             "backend": backend}
    found.update(axes)
    return found


def gil(case, variant, backend, threads):
    return dims("gil", case, variant, backend, threads=threads)


def display_name(dimensions):
    """``family.case.variant.backend[axis=v,...]/tN``: for people only,
    the report never splits it."""
    name = ".".join(str(dimensions[k]) for k in NAME_PARTS)
    axes = [k for k in dimensions if k not in NAME_PARTS + ("threads",)]
    if axes:
        name += "[%s]" % ",".join("%s=%s" % (k, dimensions[k])
                                  for k in axes)
    if "threads" in dimensions:
        name += "/t%d" % dimensions["threads"]
    return name


def benchmark_metadata(dimensions, axes=None, tables=None, name=None,
                       ops_per_loop=None, concurrency=None, driver="threads",
                       extra=None):
    """The benchmark-level metadata ``python -m gilbench run`` writes.

    ``axes`` defaults to one {"name", "unit", "log"} per non-name-part
    dimension (threads with unit "threads", others unit-less); ``tables``
    to the GIL family's for family "gil", else none; ops_per_loop and
    concurrency to the threads axis (else 1).
    """
    import json

    from gilbench.model.resultformat import (
        AXES_KEY,
        FORMAT_KEY,
        FORMAT_VERSION,
        TABLES_KEY,
    )
    if axes is None:
        axes = [THREADS_AXIS if k == "threads"
                else {"name": k, "unit": "", "log": False}
                for k in dimensions if k not in NAME_PARTS]
    if tables is None:
        tables = gil_tables() if dimensions["family"] == "gil" else []
    threads = dimensions.get("threads", 1)
    metadata = dict(dimensions)
    metadata.update({
        FORMAT_KEY: FORMAT_VERSION, "name": name or display_name(dimensions),
        "unit": "second", AXES_KEY: json.dumps(axes), "driver": driver,
        "ops_per_loop": threads if ops_per_loop is None else ops_per_loop,
        "concurrency": threads if concurrency is None else concurrency,
        "value_means": "wall seconds per loop",
        "description": "synthetic", TABLES_KEY: json.dumps(tables),
    })
    metadata.update(extra or {})
    return metadata


def missing_entry(dimensions, reason, **kwargs):
    """One ``gilbench_missing`` entry (kwargs as for benchmark_metadata)."""
    metadata = benchmark_metadata(dimensions, **kwargs)
    return {"name": metadata["name"], "reason": reason,
            "metadata": metadata}


def findings_row(markdown, label):
    """The answers of question ``label`` ("Q1") in a Markdown report's
    findings matrix: its row's cells after the label (which may carry
    the marks every answer shares, "Q1^")."""
    import re
    pattern = re.compile(r"\|%s[?~^!#+]*\s*\|" % re.escape(label))
    row = next(line for line in markdown.splitlines()
               if pattern.match(line))
    return [cell.strip() for cell in row.strip("|").split("|")[1:]]


def findings_details(markdown, label):
    """Question ``label``'s block of intervals and notes, on one line."""
    import re
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines)
                 if line.startswith("- %s: " % label))
    block = [lines[start]]
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        block.append(line)
    return re.sub(r"\s+", " ", " ".join(block))


def plain(text):
    """A cell's text without its interval (`` [low-high]``), for tests of
    what the cell computes rather than how sure it is."""
    import re
    return re.sub(r" \[[^\]]*-[^\]]*\]", "", text)


def values_with_rsd(mean, rsd):
    """Two values whose pyperf mean is ``mean`` and whose sample standard
    deviation is ``rsd * mean``."""
    half = mean * rsd / 2 ** 0.5
    return [mean - half, mean + half]


def run_metadata(python_version, implementation="cpython", cpus_usable=2,
                 cpu_utilisation=None, missing=None, extra=None):
    """Per-run metadata: interpreter, CPUs, and the file's missing list."""
    import json

    from gilbench.model.resultformat import MISSING_KEY
    metadata = {"cpus_usable": cpus_usable,
                "python_implementation": implementation,
                "python_version": python_version + " (64-bit)"}
    if missing:
        metadata[MISSING_KEY] = json.dumps(missing, sort_keys=True)
    if cpu_utilisation is not None:
        metadata["cpu_utilisation"] = cpu_utilisation
    metadata.update(extra or {})
    return metadata


def gil_benchmark(dimensions, values, python_version, implementation="cpython",
                  cpus_usable=2, missing=None, cpu_utilisation=None,
                  extra=None, **kwargs):
    """A pyperf.Benchmark of one run with ``values`` (a list of lists:
    one run, i.e. worker process, each); ``extra`` is per-run metadata
    (e.g. python_gil), kwargs go to benchmark_metadata."""
    import pyperf

    metadata = benchmark_metadata(dimensions, **kwargs)
    metadata.update(run_metadata(python_version, implementation, cpus_usable,
                                 cpu_utilisation, missing, extra))
    per_run = values if values and isinstance(values[0], (list, tuple)) \
        else [values]
    return pyperf.Benchmark([
        pyperf.Run(list(run), metadata=metadata, collect_metadata=False)
        for run in per_run])


DEFAULT_BENCHMARKS = [(gil("trivial", "gil", "cython", 1), [1e-6, 1e-6]),
                      (gil("trivial", "nogil", "cython", 1), [2e-6, 2e-6])]


def write_result(directory, filename, python_version, benchmarks=None,
                 missing=(), **kwargs):
    """Dump one result file and return its path.

    ``benchmarks``: (dims, values) pairs, or (dims, values, kwargs) with
    benchmark_metadata arguments for that one; ``missing``: (dims, reason)
    pairs, or ready entries (dicts).  Other kwargs go to every benchmark
    and missing entry (axes, tables, ...) or to gil_benchmark (per run).
    """
    import pyperf

    per_run = {k: kwargs.pop(k) for k in ("implementation", "cpus_usable",
                                          "cpu_utilisation", "extra")
               if k in kwargs}
    entries = [m if isinstance(m, dict) else missing_entry(*m, **kwargs)
               for m in missing]
    directory.mkdir(parents=True, exist_ok=True)
    suite = pyperf.BenchmarkSuite([
        gil_benchmark(item[0], item[1], python_version, missing=entries,
                      **dict(per_run, **dict(kwargs, **(
                          item[2] if len(item) > 2 else {}))))
        for item in (DEFAULT_BENCHMARKS if benchmarks is None
                     else benchmarks)])
    path = directory / filename
    suite.dump(str(path), replace=True)
    return path


# ---------------------------------------------------------------------------
# A synthetic matrix: several interpreters (and hosts), lines, bars, a log
# axis and a speedup, for the HTML page, the browser test and compare.

# (file stem, python_version, implementation, per-run extra metadata)
MATRIX_INTERPRETERS = [
    ("py27", "2.7.18", "cpython", {}),
    ("py39", "3.9.18", "cpython", {}),
    ("py311", "3.11.7", "cpython", {}),
    ("py312", "3.12.8", "cpython", {}),
    ("py313", "3.13.1", "cpython", {}),
    ("py313t", "3.13.1", "cpython",
     {"py_gil_disabled_build": 1, "python_gil": "disabled"}),
    ("py313t-gil", "3.13.1", "cpython",
     {"py_gil_disabled_build": 1, "python_gil": "enabled"}),
    ("pypy3", "3.9.16", "pypy", {}),
]
# Sixteen interpreters, as a report of late 2026 holds: every CPython
# from 2.7, free-threaded builds with their GIL-on twins, two PyPys.
_FREE = {"py_gil_disabled_build": 1, "python_gil": "disabled"}
_TWIN = {"py_gil_disabled_build": 1, "python_gil": "enabled"}
WIDE_INTERPRETERS = MATRIX_INTERPRETERS + [
    ("py38", "3.8.18", "cpython", {}),
    ("py310", "3.10.13", "cpython", {}),
    ("py314", "3.14.0", "cpython", {}),
    ("py314t", "3.14.0", "cpython", _FREE),
    ("py314t-gil", "3.14.0", "cpython", _TWIN),
    ("py315", "3.15.0", "cpython", {}),
    ("py315t", "3.15.0", "cpython", _FREE),
    ("pypy311", "3.11.11", "pypy", {}),
]
WORK_AXES = [{"name": "work_ns", "unit": "ns", "log": True}, THREADS_AXIS]
POOL_AXES = [{"name": "method", "unit": "", "log": False}]


def matrix_tables():
    """Declarations beyond the GIL family's: a log axis (work_ns), a
    speedup over threads (the ideal line), a throughput, and categorical
    rows (grouped bars)."""
    from gilbench.model.tables import ratio, speedup, table, throughput
    return {
        "work": [
            table("nogil/gil vs work", rows="work_ns", per=["threads"],
                  cell=ratio(over="variant", numerator="nogil",
                             denominator="gil")),
            table("Scaling", rows="threads", per=["work_ns", "variant"],
                  cell=speedup(over="threads", baseline=1, scaled=True)),
            table("Throughput", rows="threads", per=["work_ns", "variant"],
                  cell=throughput(unit="calls")),
        ],
        "pool": [
            table("Speedup over serial", rows="method",
                  cell=speedup(over="method", baseline="serial")),
        ],
    }


def _noisy(mean, rsd, count=4):
    """``count`` values around ``mean`` with about ``rsd`` spread."""
    steps = [(i - (count - 1) / 2.0) / ((count - 1) / 2.0)
             for i in range(count)]
    return [mean * (1 + rsd * s) for s in steps]


def matrix_benchmarks(index, slower=1.0, missing_cffi=False):
    """(benchmarks, missing) of interpreter ``index`` of the matrix;
    ``slower`` multiplies every mean (compare's "changed" side)."""
    tables = matrix_tables()
    speed = 1.0 + 0.15 * index
    benchmarks, missing = [], []
    for case, case_cost in (("trivial", 20e-9), ("lock", 45e-9)):
        for variant, backend in (("gil", "cython"), ("nogil", "cython"),
                                 ("nogil", "cffi"), ("gil", "python")):
            for threads in (1, 2, 3, 4):
                d = gil(case, variant, backend, threads)
                if missing_cffi and backend == "cffi":
                    missing.append((d, "n/a: gilbench.extensions._gil_cffi "
                                    "not built (No module named cffi)"))
                    continue
                factor = (1.2 + 0.3 * index) ** (threads ** 0.5) \
                    if variant == "nogil" else 1.0
                factor *= 8 if backend == "python" else 1
                mean = case_cost * speed * factor * threads ** 1.1 * slower
                benchmarks.append((d, _noisy(mean, 0.02 + 0.01 * threads)))
    for work_ns in (0, 100, 1000, 10000):
        for variant in ("gil", "nogil"):
            for threads in (1, 2, 4):
                d = dims("work", "spin", variant, "cython", work_ns=work_ns,
                         threads=threads)
                cost = (work_ns + 30) * 1e-9 * speed
                mean = (cost * threads if variant == "gil"
                        else cost * (1 + 0.2 * threads)
                        + 200e-9 * threads)
                benchmarks.append((d, _noisy(mean * slower, 0.03), {
                    "axes": WORK_AXES, "tables": tables["work"]}))
    for method, gain in (("serial", 1.0), ("threads", 1.1),
                         ("processes", 1.8), ("interpreters", 1.6)):
        d = dims("pool", "map", "warm", "python", method=method)
        benchmarks.append((d, _noisy(1e-3 * speed / gain * slower, 0.04), {
            "axes": POOL_AXES, "tables": tables["pool"], "ops_per_loop": 1,
            "concurrency": 2}))
    return benchmarks, missing


def write_matrix(directory, interpreters=None, host=None, slower=1.0,
                 cpu_model="Synthetic CPU @ 3.0GHz", cpu_count=8,
                 catalogue=MATRIX_INTERPRETERS):
    """One result file per interpreter of ``catalogue`` (or the given
    subset of its stems), as ``python -m gilbench run`` would write them;
    returns their paths."""
    paths = []
    for index, (stem, version, impl, extra) in enumerate(catalogue):
        if interpreters is not None and stem not in interpreters:
            continue
        per_run = dict(extra, cpu_model_name=cpu_model, cpu_count=cpu_count,
                       load_avg_1min=0.5 + 0.1 * index)
        if host is not None:
            per_run["hostname"] = host
        benchmarks, missing = matrix_benchmarks(
            index, slower, missing_cffi=(impl == "pypy"))
        paths.append(write_result(
            directory, stem + ".json", version, benchmarks, missing=missing,
            implementation=impl, cpus_usable=cpu_count,
            cpu_utilisation=1.0, extra=per_run))
    return paths


# ---------------------------------------------------------------------------
# The main job's shape: one real result file relabelled as each of the
# thirteen interpreters the main job measures (tools/matrix.sh).

MAIN_JOB_STEMS = ("py27", "py38", "py39", "pypy3", "py310", "py311",
                  "pypy311", "py312", "py313", "py313t", "py313t-gil",
                  "py314", "py315")
_INTERPRETER_KEYS = ("python_version", "python_implementation",
                     "py_gil_disabled_build", "python_gil")


def _relabelled(node, version, implementation, extra):
    """``node`` (a pyperf JSON tree) with every metadata dict's interpreter
    keys saying ``version``/``implementation`` plus ``extra``."""
    if isinstance(node, list):
        return [_relabelled(item, version, implementation, extra)
                for item in node]
    if not isinstance(node, dict):
        return node
    found = {key: _relabelled(value, version, implementation, extra)
             for key, value in node.items()}
    meta = found.get("metadata")
    if isinstance(meta, dict) and any(k in meta for k in _INTERPRETER_KEYS):
        meta = {k: v for k, v in meta.items() if k not in _INTERPRETER_KEYS}
        meta.update(extra, python_version="%s (64-bit)" % version,
                    python_implementation=implementation)
        found["metadata"] = meta
    return found


def _scaled_runs(benchmark, factor):
    for run in benchmark.get("runs", ()):
        if "values" in run:
            run["values"] = [v * factor for v in run["values"]]
        if "warmups" in run:
            run["warmups"] = [[loops, v * factor]
                              for loops, v in run["warmups"]]


def relabel_as_main_job(source, directory, spread=0.15, seed=7):
    """The result file ``source`` written once per MAIN_JOB_STEMS
    interpreter into ``directory``, its interpreter metadata replaced and
    each benchmark's values scaled by a factor of its own (log-normal,
    ``spread``), so the thirteen columns answer differently; returns the
    paths."""
    import json
    import random
    with open(str(source)) as stream:
        data = json.load(stream)
    catalogue = {stem: rest for stem, *rest in WIDE_INTERPRETERS}
    chance = random.Random(seed)
    paths = []
    for stem in MAIN_JOB_STEMS:
        version, implementation, extra = catalogue[stem]
        copy = _relabelled(data, version, implementation, extra)
        for benchmark in copy["benchmarks"]:
            _scaled_runs(benchmark, math.exp(chance.gauss(0, spread)))
        path = os.path.join(str(directory), stem + ".json")
        with open(path, "w") as stream:
            json.dump(copy, stream)
        paths.append(path)
    return paths
