"""Helpers shared by the tests (imported by conftest.py and test modules).

Every ``run`` must name its output with ``-o``: without it the harness writes
results/<python>.json in the project, which the tests must never touch.
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(ROOT, "tests")

# pyperf sizing options for the smallest possible run: one worker process,
# one value of one loop, no warmup.
MINIMAL_PYPERF = ["-p", "1", "-n", "1", "-w", "0", "-l", "1"]


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


def run_module(module, args, timeout=150):
    """``python -m module args...`` from the project root; a Completed."""
    args = [str(a) for a in args]
    process = subprocess.run(
        [sys.executable, "-m", module] + args, cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True, timeout=timeout)
    return Completed([module] + args, process.returncode, process.stdout,
                     process.stderr)


def run_harness(*args, **kwargs):
    """``python -m harness args...``; refuses a ``run`` without ``-o``."""
    args = [str(a) for a in args]
    if args and args[0] == "run" and not any(
            a in ("-o", "--output") or a.startswith("--output=")
            for a in args):
        raise AssertionError("test bug: 'run' without -o would write into "
                             "results/")
    return run_module("harness", args, **kwargs)


def assert_one_line_usage_error(result):
    """Exit code 2, one stderr line 'gilbench: error: ...', no traceback."""
    assert result.code == 2, result
    assert "Traceback" not in result.stderr + result.stdout, result
    assert len(result.stderr_lines) == 1, result
    assert result.stderr_lines[0].startswith("gilbench: error: "), result
    assert result.stderr_lines[0] != "gilbench: error: ", result


# ---------------------------------------------------------------------------
# Synthetic gilbench result files (report side), built with pyperf's API.

def values_with_rsd(mean, rsd):
    """Two values whose pyperf mean is ``mean`` and whose sample standard
    deviation is ``rsd * mean``."""
    half = mean * rsd / 2 ** 0.5
    return [mean - half, mean + half]


def gil_benchmark(name, values, python_version, implementation="cpython",
                  cpus_usable=2, ratios=None, missing=None,
                  cpu_utilisation=None, extra=None):
    """A pyperf.Benchmark named ``family.case.variant.backend/tN`` with
    the metadata ``python -m harness run`` writes."""
    import json

    import pyperf

    from cases.gil import RATIOS

    base, _, threads = name.partition("/t")
    family, case, variant, backend = base.split(".")
    metadata = {
        "name": name, "unit": "second",
        "family": family, "case": case, "variant": variant,
        "backend": backend, "threads": int(threads),
        "value_means": "wall seconds per loop",
        "cpus_usable": cpus_usable,
        "python_implementation": implementation,
        "python_version": python_version + " (64-bit)",
        "gilbench_ratios": json.dumps(RATIOS if ratios is None else ratios,
                                      sort_keys=True),
    }
    if missing:
        metadata["gilbench_missing"] = json.dumps(missing, sort_keys=True)
    if cpu_utilisation is not None:
        metadata["cpu_utilisation"] = cpu_utilisation
    metadata.update(extra or {})
    run = pyperf.Run(list(values), metadata=metadata, collect_metadata=False)
    return pyperf.Benchmark([run])


def write_result(directory, filename, python_version, benchmarks=None,
                 missing=None, **kwargs):
    """Dump one result file; ``benchmarks`` maps name -> values.  Returns
    its path."""
    import pyperf

    directory.mkdir(parents=True, exist_ok=True)
    if benchmarks is None:
        benchmarks = {"gil.trivial.gil.cython/t1": [1e-6, 1e-6],
                      "gil.trivial.nogil.cython/t1": [2e-6, 2e-6]}
    suite = pyperf.BenchmarkSuite([
        gil_benchmark(name, values, python_version, missing=missing,
                      **kwargs)
        for name, values in benchmarks.items()])
    path = directory / filename
    suite.dump(str(path), replace=True)
    return path
