"""Result files: merging per-benchmark pyperf files into one, safely.

The output is written to a temporary file beside the target and renamed
over it, so an interrupted or failed run never leaves a half-written or
emptied result.  Benchmarks that could not produce a value are listed, with
the reason and their full metadata, in the ``gilbench_missing`` metadata of
every benchmark (pyperf hoists it to the file's common metadata, so it is
stored once), so the report can say "n/a" in the right cell.
"""
import json
import os
import platform
import sys

import pyperf

from gilbench import gilguard
from gilbench.errors import UsageError
from gilbench.resultformat import MISSING_KEY


def default_output():
    """``results/py311.json``, ``results/pypy39.json``, ``py313t`` if free."""
    prefix = "pypy" if platform.python_implementation() == "PyPy" else "py"
    suffix = "t" if gilguard.free_threaded_build() else ""
    name = "%s%d%d%s.json" % (prefix, sys.version_info[0],
                              sys.version_info[1], suffix)
    return os.path.join("results", name)


def check_writable(path):
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise UsageError("output directory %r does not exist" % directory)
    if os.path.isdir(path):
        raise UsageError("output %r is a directory" % path)
    if not os.access(directory, os.W_OK):
        raise UsageError("output directory %r is not writable" % directory)


def missing_entry(bench, reason):
    """What ``gilbench_missing`` lists for a benchmark without values."""
    return {"name": bench.name, "reason": reason,
            "metadata": bench.metadata()}


def merge_journal(benchmarks, book, entries, output):
    """Write ``output`` from the journal's committed ``entries`` ({index:
    entry}), in registry order; return (benchmarks with values, missing
    entries)."""
    files, missing = [], []
    for index, bench in enumerate(benchmarks):
        entry = entries.get(index)
        if entry is None:
            continue
        if entry["reason"] is None:
            files.append(book.pyperf_path(entry))
        else:
            missing.append(missing_entry(bench, entry["reason"]))
    return merge(files, missing, output), missing


def merge(bench_files, missing, output):
    """Write one suite from ``bench_files`` plus the ``missing`` entries;
    return how many benchmarks have values.

    Returns 0, and leaves ``output`` untouched, when there is nothing.
    """
    benchmarks = []
    for path in bench_files:
        benchmarks.extend(pyperf.BenchmarkSuite.load(path).get_benchmarks())
    if not benchmarks:
        return 0
    if missing:
        encoded = json.dumps(missing, sort_keys=True)
        for bench in benchmarks:
            bench.update_metadata({MISSING_KEY: encoded})
    suite = pyperf.BenchmarkSuite(benchmarks)
    partial = output + ".partial"
    try:
        suite.dump(partial, replace=True)
        os.rename(partial, output)
    except (IOError, OSError) as exc:  # full disk, vanished directory...
        if os.path.exists(partial):
            os.remove(partial)
        raise UsageError("cannot write %r: %s (the run's journal is kept: "
                         "--resume writes it again)" % (
                             output, exc.strerror or exc))
    return len(benchmarks)
