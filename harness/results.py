"""Result files: merging per-benchmark pyperf files into one, safely.

The output is written to a temporary file beside the target and renamed
over it, so an interrupted or failed run never leaves a half-written or
emptied result.  Benchmarks that could not produce a value are listed, with
the reason and their metadata, in the ``gilbench_missing`` metadata of
every benchmark (pyperf hoists it to the file's common metadata, so it is
stored once), so the report can say "n/a" in the right cell; a family's
declarations are left out of an entry where a benchmark with values, or
an earlier entry, carries them.
"""
import json
import os
import platform
import sys

import pyperf

from gilbench import gilguard
from gilbench.errors import UsageError
from gilbench.resultformat import (FINDINGS_KEY, MISSING_KEY, ORDER_KEY,
                                   TABLES_KEY)

DECLARATION_KEYS = (TABLES_KEY, FINDINGS_KEY, ORDER_KEY)


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


def declared_once(benchmarks, missing):
    """The ``missing`` entries without their family's declarations
    (tables, findings, order) where a measured benchmark or an earlier
    entry of the family already carries them: a file's report reads the
    first it finds, and these keys were most of a file's bytes."""
    carried = set(bench.get_metadata().get("family")
                  for bench in benchmarks
                  if DECLARATION_KEYS[0] in bench.get_metadata())
    trimmed = []
    for entry in missing:
        family = entry["metadata"].get("family")
        if family in carried:
            metadata = dict((k, v) for k, v in entry["metadata"].items()
                            if k not in DECLARATION_KEYS)
            entry = dict(entry, metadata=metadata)
        elif any(k in entry["metadata"] for k in DECLARATION_KEYS):
            carried.add(family)
        trimmed.append(entry)
    return trimmed


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
        missing = declared_once(benchmarks, missing)
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
