"""Result files: merging per-benchmark pyperf files into one, safely.

The output replaces the target whole (gilbench.atomicfile), so an
interrupted or failed run never leaves a half-written or emptied
result.  Benchmarks that could not produce a value are listed, with
the reason and their metadata, in the ``gilbench_missing`` metadata of
every benchmark (pyperf hoists it to the file's common metadata, so it is
stored once), so the report can say "n/a" in the right cell.  Each
family's declarations (tables, findings, order) and each case's constants
move from its benchmarks and entries into one ``gilbench_declarations``
key, the same on every benchmark, which pyperf hoists too: repeated per
benchmark they were most of a file's bytes.
"""
import json
import os
import platform
import sys

import pyperf

from gilbench import atomicfile
from gilbench.errors import UsageError
from gilbench.measure import buildinfo, gilguard, pypynursery
from gilbench.model import envnames, machine
from gilbench.model.resultformat import (
    BUILD_KEYS,
    CASE_KEYS,
    CASES_KEY,
    DECISION_LOOKS_KEY,
    DECLARATION_KEYS,
    DECLARATIONS_KEY,
    EXTENDED_KEY,
    LOOKS_KEY,
    MEANS_KEY,
    MISNAMED_KEY,
    MISSING_KEY,
    PLANNED_CPUS_KEY,
    RUN_KEY,
    SECONDS_KEY,
    STOPPED_KEY,
    case_id,
)


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


def cost_metadata(state, stopped=None):
    """The run metadata saying what a benchmark's measurement cost: its
    looks and decision looks (``state``), and why it stopped."""
    state = state or {}
    found = {LOOKS_KEY: state.get("looks", 1),
             DECISION_LOOKS_KEY: state.get("decision_looks", 1)}
    if "seconds" in state:
        found[SECONDS_KEY] = round(state["seconds"], 3)
    if stopped:
        found[STOPPED_KEY] = stopped
    return found


def merge_journal(benchmarks, book, entries, output):
    """Write ``output`` from the journal's committed ``entries`` ({index:
    entry}), in registry order, each benchmark with what it cost; return
    (benchmarks with values, missing entries)."""
    files, missing, costs = [], [], {}
    stops = book.progress().get("stops", {})
    for index, bench in enumerate(benchmarks):
        entry = entries.get(index)
        if entry is None:
            continue
        if entry["reason"] is None:
            path = book.pyperf_path(entry)
            files.append(path)
            costs[path] = cost_metadata(entry.get("state"),
                                        stops.get(str(index)))
        else:
            missing.append(missing_entry(bench, entry["reason"]))
    return merge(files, missing, output, how_run(book.header),
                 costs), missing


def how_run(header):
    """What RUN_KEY keeps of a run's journal header: the settings a
    later ``gilbench extend`` must run its benchmarks with again."""
    kept = dict((key, value) for key, value in header.items()
                if key in RUN_SETTINGS)
    # A module given as a path was relative to where the run started.
    kept["modules"] = [os.path.abspath(name) if os.path.isfile(name)
                       else name for name in kept.get("modules", [])]
    return json.dumps(kept, sort_keys=True)


# The journal header's keys that decide how a benchmark is measured.
RUN_SETTINGS = ("modules", "params", "quick", "pin_threads", "timeout",
                "fresh_workers", "memory_limit", "pyperf_options",
                "settings", "design", "budget")


class _Hoister(object):
    """Collects what a file would repeat per benchmark: each family's
    declarations, and each case's constants (its axes, what a value
    means, its description) where all its benchmarks agree."""

    def __init__(self):
        self.found = {}

    def strip(self, metadata, measured):
        """``metadata`` without what it hands over to the collection; a
        measured benchmark keeps what its values mean beside them."""
        family = self.found.setdefault(metadata.get("family"), {})
        case = family.setdefault(CASES_KEY, {}).setdefault(
            case_id(metadata), {})
        kept = {}
        for key, value in metadata.items():
            if key in DECLARATION_KEYS:
                family.setdefault(key, value)
            elif (key in CASE_KEYS and not (measured and key == MEANS_KEY)
                  and case.setdefault(key, value) == value):
                continue
            else:
                kept[key] = value
        return kept

    def encoded(self):
        return json.dumps(self.found, sort_keys=True)


def _rebuilt(runs, common):
    """A Benchmark of (run, metadata) pairs, ``common`` added to each."""
    return pyperf.Benchmark([
        pyperf.Run(run.values, warmups=run.warmups,
                   metadata=dict(metadata, **common), collect_metadata=False)
        for run, metadata in runs])


def declared_once(benchmarks, missing):
    """(benchmarks, missing entries) with every family's declarations and
    case constants in one DECLARATIONS_KEY on each benchmark's runs
    instead of their own."""
    hoister = _Hoister()
    stripped = [[(run, hoister.strip(run.get_metadata(), True))
                 for run in bench.get_runs()] for bench in benchmarks]
    entries = [dict(entry, metadata=hoister.strip(entry["metadata"], False))
               for entry in missing]
    common = {DECLARATIONS_KEY: hoister.encoded()}
    return [_rebuilt(runs, common) for runs in stripped], entries


def merge(bench_files, missing, output, made=None, costs=None):
    """Write one suite from ``bench_files`` plus the ``missing`` entries,
    and ``made`` (how_run's text) as RUN_KEY; ``costs``: {path: run
    metadata} for the benchmarks of some files (cost_metadata); return
    how many benchmarks have values.

    Returns 0, and leaves ``output`` untouched, when there is nothing.
    """
    benchmarks = []
    for path in bench_files:
        found = pyperf.BenchmarkSuite.load(path).get_benchmarks()
        for bench in found:
            if costs and path in costs:
                bench.update_metadata(costs[path])
        benchmarks.extend(found)
    if not benchmarks:
        return 0
    benchmarks, missing = declared_once(benchmarks, missing)
    common = buildinfo.facts()
    common.update(pypynursery.facts())
    common[PLANNED_CPUS_KEY] = machine.planned()
    misnamed = envnames.misnamed(output)
    if misnamed:
        common[MISNAMED_KEY] = misnamed
    if missing:
        common[MISSING_KEY] = json.dumps(missing, sort_keys=True)
    if made is not None:
        common[RUN_KEY] = made
    for bench in benchmarks:
        bench.update_metadata(common)
    _write(pyperf.BenchmarkSuite(benchmarks), output,
           "the run's journal is kept: --resume writes it again")
    return len(benchmarks)


def _write(suite, output, kept):
    try:
        with atomicfile.replacing(output) as stream:
            suite.dump(stream)
    except (IOError, OSError) as exc:  # full disk, vanished directory...
        raise UsageError("cannot write %r: %s (%s)" % (
            output, exc.strerror or exc, kept))


class Runs(object):
    """A result file's runs, to add to and write back whole: each
    benchmark's (run, metadata) pairs, and the keys the file stores once
    (declarations, missing entries, how it was run)."""

    def __init__(self, output):
        self.output = output
        suite = pyperf.BenchmarkSuite.load(output)
        self.shared = _shared(suite)
        self.order = [bench.get_name() for bench in suite.get_benchmarks()]
        self.runs = dict(
            (bench.get_name(), [(run, run.get_metadata())
                                for run in bench.get_runs()])
            for bench in suite.get_benchmarks())
        self._hoister = _Hoister()

    def measured(self, name):
        """The runs with values of benchmark ``name``, each with its
        metadata as it will be written."""
        return [pyperf.Run(run.values, warmups=run.warmups,
                           metadata=metadata, collect_metadata=False)
                for run, metadata in self.runs.get(name, ()) if run.values]

    def add(self, name, path, extra):
        """Append the runs of the pyperf file at ``path`` to ``name``'s,
        each with ``extra`` metadata besides its own (less what the file
        stores once)."""
        for new in pyperf.BenchmarkSuite.load(path).get_benchmarks():
            self.runs[name] += [
                (run, dict(self._hoister.strip(run.get_metadata(), True),
                           **extra)) for run in new.get_runs()]

    def update(self, name, extra):
        """Every run of ``name`` with ``extra`` metadata."""
        self.runs[name] = [(run, dict(metadata, **extra))
                           for run, metadata in self.runs[name]]

    def write(self, kept="the file is as it was before"):
        rebuilt = [_rebuilt(self.runs[name], self.shared)
                   for name in self.order]
        _write(pyperf.BenchmarkSuite(rebuilt), self.output, kept)


def appended(output, added):
    """Rewrite ``output`` with the runs of ``added`` ({benchmark name:
    pyperf file of that benchmark's new worker processes}) after its
    own; the new runs take the file's shared metadata (declarations,
    missing entries, how it was run), so pyperf still stores it once,
    and EXTENDED_KEY."""
    runs = Runs(output)
    for name, path in added.items():
        runs.add(name, path, {EXTENDED_KEY: 1})
    runs.write()


def _shared(suite):
    """The keys a merged file stores once, as its first run has them."""
    first = suite.get_benchmarks()[0].get_runs()[0].get_metadata()
    return dict((key, first[key]) for key in
                (DECLARATIONS_KEY, MISSING_KEY, MISNAMED_KEY, RUN_KEY,
                 PLANNED_CPUS_KEY) + BUILD_KEYS
                if key in first)
