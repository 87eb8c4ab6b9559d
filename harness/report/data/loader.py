"""Loads gilbench result files (format 2, see gilbench.model.resultformat) into
Records: one per benchmark, measured or missing, with its dimensions read
from metadata -- never from its name."""
from __future__ import annotations

import json
import os
from dataclasses import replace

import numpy
import pyperf

from gilbench.errors import UsageError
from gilbench.model import resultformat as fmt
from gilbench.model.resultformat import INTERPRETER
from gilbench.report import kinds, twocpus
from gilbench.report.data import interpreters, interruptions
from gilbench.report.data.records import COUNT_AXES, Record, ResultFile
from gilbench.report.numbers import intervals, pairs, variance

REQUIRED = fmt.NAME_PARTS + (fmt.AXES_KEY, "ops_per_loop", "concurrency")
RERUN = "re-run it with this gilbench (gilbench run)"


def _load_suite(path):
    try:
        return pyperf.BenchmarkSuite.load(path)
    except FileNotFoundError:
        raise UsageError(f"result file {path!r} does not exist")
    except Exception as exc:  # pyperf raises many types on bad input
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UsageError(f"{path!r} is not a pyperf result file ({reason})")


def check_format(path, name, meta):
    """Refuse, in one line, anything but a format-2 gilbench benchmark."""
    version = meta.get(fmt.FORMAT_KEY)
    if version is None and "family" not in meta:
        raise UsageError(f"{path!r} is a pyperf file but not a gilbench "
                         f"result ({name!r} has no {fmt.FORMAT_KEY} or "
                         "family metadata)")
    if version is None:  # format 1 had no version key
        version = 1
    if version != fmt.FORMAT_VERSION:
        newer = isinstance(version, int) and version > fmt.FORMAT_VERSION
        todo = "update gilbench to render it" if newer else RERUN
        raise UsageError(f"{path!r} is gilbench result format {version}; "
                         f"this report reads format {fmt.FORMAT_VERSION} "
                         f"only: {todo}")
    _require(path, name, meta, REQUIRED)


def _require(path, name, meta, keys):
    lacking = [k for k in keys if k not in meta]
    if not lacking:
        lacking = [a["name"] for a in _axes(path, name, meta)
                   if a["name"] not in meta]
    if lacking:
        raise UsageError(f"{path!r} is not a valid gilbench format "
                         f"{fmt.FORMAT_VERSION} result ({name!r} has no "
                         f"{', '.join(lacking)} metadata)")


def _json(path, what, text, kind):
    try:
        data = json.loads(text)
    except (TypeError, ValueError):
        data = None
    if not isinstance(data, kind):
        raise UsageError(f"{path!r} has unreadable {what} metadata "
                         f"(expected a JSON {kind.__name__})")
    return data


def _axes(path, name, meta):
    axes = _json(path, f"{fmt.AXES_KEY} of {name!r}",
                 meta.get(fmt.AXES_KEY, "[]"), list)
    if not all(isinstance(a, dict) and "name" in a for a in axes):
        raise UsageError(f"{path!r}: {fmt.AXES_KEY} of {name!r} must list "
                         "objects with a name")
    return axes


def _dims(path, name, meta):
    keys = list(fmt.NAME_PARTS) + [a["name"] for a in _axes(path, name,
                                                              meta)]
    return {k: meta[k] for k in keys}


def _mean_over_runs(metadatas, key):
    found = [meta[key] for meta in metadatas if key in meta]
    return sum(found) / len(found) if found else None


def _recorded_runs(metadatas):
    """Every numeric per-run metadata key: its value in each run."""
    found = {}
    for meta in metadatas:
        for key, value in meta.items():
            if isinstance(value, (int, float)) and not isinstance(value,
                                                                  bool):
                found.setdefault(key, []).append(value)
    return {key: tuple(found[key]) for key in sorted(found)}


def _count_axis(meta):
    """The count axis of the benchmark's driver, which pairs it with a
    twin of another driver at the same concurrency."""
    driver = meta.get("driver")
    return driver if driver in COUNT_AXES else None


def _kept_values(bench, meta):
    """(runs, each run's values, values left out or None): every value,
    or those its case's declared rule keeps (which leaves every run at
    least its fastest value: interruptions.kept)."""
    runs = [run for run in bench.get_runs() if run.values]
    run_values = [tuple(run.values) for run in runs]
    if not interruptions.declared(meta):
        return runs, run_values, None
    kept, left_out = interruptions.kept(run_values)
    return runs, list(kept), left_out


def _measured(path, bench, meta):
    runs, run_values, left_out = _kept_values(bench, meta)
    # pyperf builds a run's metadata dict anew at each get_metadata().
    metadatas = [run.get_metadata() for run in runs]
    cpus = (_mean_over_runs(metadatas, "cpus_usable")
            or meta.get("cpu_count", 1))
    per_run = _recorded_runs(metadatas)
    values = tuple(v for run in run_values for v in run)
    return Record(
        name=bench.get_name(), dims=_dims(path, bench.get_name(), meta),
        unit=meta.get("unit", "second"),
        mean=(bench.mean() if left_out is None
              else float(numpy.mean(values))),
        # numpy's, not pyperf's bench.stdev() (statistics.stdev, which
        # sums exactly in fractions: slow for thousands of benchmarks).
        stdev=float(numpy.std(values, ddof=1)) if len(values) > 1 else 0.0,
        ops_per_loop=int(meta["ops_per_loop"]),
        concurrency=int(meta["concurrency"]), cpus_usable=int(cpus),
        cpu_utilisation=_mean_over_runs(metadatas, "cpu_utilisation"),
        recorded={k: sum(v) / len(v) for k, v in per_run.items()},
        recorded_runs=per_run, count_axis=_count_axis(meta),
        foreign_cpu=fmt.busiest_share(metadatas),
        values=values, run_values=tuple(run_values),
        interruptions=left_out,
        run_blocks=tuple(m.get(fmt.BLOCK_KEY) for m in metadatas),
        run_partners=tuple(m.get(fmt.PARTNER_KEY) for m in metadatas),
        run_probes=tuple(m.get(fmt.PROBE_KEY) for m in metadatas),
        looks=int(max(per_run.get(fmt.LOOKS_KEY, (1,)))),
        decision_looks=int(max(per_run.get(fmt.DECISION_LOOKS_KEY, (1,)))),
        stopped=metadatas[-1].get(fmt.STOPPED_KEY),
        why_unavailable=next((m[fmt.WHY_UNAVAILABLE_KEY] for m in metadatas
                              if fmt.WHY_UNAVAILABLE_KEY in m), None))


def _entries(path, run_meta, restore):
    """The file's MISSING_KEY entries, checked, their metadata restored."""
    entries = _json(path, fmt.MISSING_KEY,
                    run_meta.get(fmt.MISSING_KEY, "[]"), list)
    for entry in entries:
        if not (isinstance(entry, dict) and isinstance(entry.get("name"), str)
                and isinstance(entry.get("reason"), str)
                and isinstance(entry.get("metadata"), dict)):
            raise UsageError(f"{path!r}: each {fmt.MISSING_KEY} entry needs "
                             "a name, a reason and metadata")
    return [dict(entry, metadata=restore(entry["metadata"]))
            for entry in entries]


def _missing(path, entries, cpus_usable):
    records = []
    for entry in entries:
        name, meta = entry["name"], entry["metadata"]
        _require(path, name, meta, fmt.NAME_PARTS + (fmt.AXES_KEY,))
        records.append(Record(
            name=name, dims=_dims(path, name, meta),
            unit=meta.get("unit", "second"),
            ops_per_loop=int(meta.get("ops_per_loop", 1)),
            concurrency=int(meta.get("concurrency", 1)),
            count_axis=_count_axis(meta),
            cpus_usable=cpus_usable, reason=entry["reason"]))
    return records


def _declared(path, name, meta, key, what, keys):
    declared = _json(path, f"{key} of {name!r}", meta[key], list)
    for declaration in declared:
        problem = kinds.problem(declaration, keys)
        if problem:
            raise UsageError(f"{path!r}: {name!r} declares a {what} the "
                             f"report cannot read ({problem})")
    return declared


class _Restorer:
    """Puts a file's DECLARATIONS_KEY (each family's declarations and
    case constants, stored once) back into each benchmark's and entry's
    metadata, where older files carried them; what a benchmark carries
    itself wins."""

    def __init__(self, path, default):
        self.path = path
        self.default = default  # the file's, for missing entries
        self.parsed = {}

    def __call__(self, meta):
        text = meta.get(fmt.DECLARATIONS_KEY, self.default)
        if text is None:
            return meta
        if text not in self.parsed:
            self.parsed[text] = _json(self.path, fmt.DECLARATIONS_KEY, text,
                                      dict)
        family = self.parsed[text].get(meta.get("family"))
        if not isinstance(family, dict):
            return meta
        case = family.get(fmt.CASES_KEY, {})
        case = case.get(fmt.case_id(meta)) if isinstance(case, dict) else None
        declared = {k: v for k, v in family.items() if k != fmt.CASES_KEY}
        return {**declared, **(case if isinstance(case, dict) else {}),
                **meta}


def _declarations(path, metas):
    """Table and finding declarations, page order and axis descriptions
    per family, first seen wins (every benchmark of a family carries the
    same ones)."""
    tables, findings, order, axes = {}, {}, {}, {}
    for name, meta in metas:
        family = meta["family"]
        if fmt.TABLES_KEY in meta and family not in tables:
            tables[family] = _declared(path, name, meta, fmt.TABLES_KEY,
                                       "table", fmt.TABLE_KEYS)
        if fmt.FINDINGS_KEY in meta and family not in findings:
            findings[family] = _declared(path, name, meta,
                                         fmt.FINDINGS_KEY, "finding",
                                         fmt.FINDING_KEYS)
        if isinstance(meta.get(fmt.ORDER_KEY), (int, float)):
            order.setdefault(family, meta[fmt.ORDER_KEY])
        for axis in _axes(path, name, meta):
            axes.setdefault(family, {}).setdefault(axis["name"], axis)
    return tables, findings, order, axes


def _references(path, metas):
    """{family: reference points} of the families declaring them; a file
    written before REFERENCE_KEY existed gets the ceiling family's of
    that time."""
    found = {}
    for name, meta in metas:
        if fmt.REFERENCE_KEY in meta and meta["family"] not in found:
            found[meta["family"]] = _json(
                path, f"{name!r}'s {fmt.REFERENCE_KEY}",
                meta[fmt.REFERENCE_KEY], dict)
    if not found:
        families = {meta["family"] for _, meta in metas}
        found = {family: points for family, points
                 in fmt.LEGACY_REFERENCE.items() if family in families}
    return found


def load_result(path):
    suite = _load_suite(path)
    benchmarks = suite.get_benchmarks()
    if not benchmarks:
        raise UsageError(f"{path!r} holds no benchmarks")
    run_meta = _first_run_metadata(benchmarks)
    restore = _Restorer(path, run_meta.get(fmt.DECLARATIONS_KEY))
    metas = [(b.get_name(), restore(b.get_metadata())) for b in benchmarks]
    for name, meta in metas:
        check_format(path, name, meta)
    label, key = interpreters.identify(run_meta, path)
    entries = _entries(path, run_meta, restore)
    records = [_measured(path, b, meta)
               for b, (_, meta) in zip(benchmarks, metas)]
    records += _missing(path, entries, records[0].cpus_usable)
    metas += [(e["name"], e["metadata"]) for e in entries]
    tables, findings, order, axes = _declarations(path, metas)
    return ResultFile(path=path, interpreter=label, version_key=key,
                      records=records, tables=tables, axes=axes,
                      findings=findings, order=order,
                      references=_references(path, metas),
                      facts=_facts(run_meta, benchmarks),
                      host=str(run_meta.get("hostname", "")),
                      executable=str(run_meta.get("python_executable", "")),
                      planned_cpus=_planned_cpus(run_meta, records))


def _first_run_metadata(benchmarks):
    """Benchmark metadata plus the per-run keys (GIL state, CPUs) of its
    first run: pyperf keeps keys that differ between runs only there."""
    for bench in benchmarks:
        for run in bench.get_runs():
            if run.values:
                return run.get_metadata()
    return benchmarks[0].get_metadata()


def _pinning(run_meta, benchmarks):
    parts = []
    if "cpu_affinity" in run_meta:
        parts.append("--affinity %s" % run_meta["cpu_affinity"])
    pinned = [r.get_metadata() for b in benchmarks for r in b.get_runs()
              if "pinned_cpus" in r.get_metadata()]
    if pinned:
        # The most threads pinned at once says which cores they took.
        widest = max(pinned, key=lambda m: len(m["pinned_cpus"]))
        cores = widest.get("pinned_cores")
        parts.append("--pin-threads" + (" (package:core %s)" % cores
                                        if cores else ""))
    return ", ".join(parts) or "no"


def _planned_cpus(run_meta, records):
    """The usable CPUs the run was planned for; a file from before that
    was recorded, its fewest usable CPUs (what it was planned for)."""
    planned = run_meta.get(fmt.PLANNED_CPUS_KEY)
    if planned is not None:
        return int(planned)
    usable = [r.cpus_usable for r in records if r.cpus_usable]
    return min(usable) if usable else None


def _facts(run_meta, benchmarks):
    loads = [r.get_metadata().get("load_avg_1min")
             for b in benchmarks for r in b.get_runs()]
    loads = [x for x in loads if x is not None]
    return {
        "python": run_meta.get("python_version", "?"),
        "gil": run_meta.get("python_gil", "?"),
        "cpus": "%s usable (%s) of %s" % (
            run_meta.get("cpus_usable", "?"),
            run_meta.get("cpu_affinity_effective", "?"),
            run_meta.get("cpu_count", "?")),
        "pinned": _pinning(run_meta, benchmarks),
        "load": ("%.2f-%.2f" % (min(loads), max(loads))) if loads else "?",
        "pyperf": run_meta.get("perf_version", "?"),
        "host": run_meta.get("hostname", "?"),
        "cpu model": "%s x %s" % (run_meta.get("cpu_model_name", "?"),
                                  run_meta.get("cpu_count", "?")),
        **interpreters.build_facts(run_meta),
    }


def add_paths_argument(parser):
    """The FILE_OR_DIR... every command reading result files takes."""
    parser.add_argument("paths", nargs="+", metavar="FILE_OR_DIR",
                        help="result JSON files, or directories of them")


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


# From this many bytes of result files on, most of them are loaded in a
# forked child (gilbench.report.twocpus) while this process loads the
# rest and imports scipy.stats (which judging the splits needs, and
# which takes about as long as loading several files): HERE_SHARE of the
# bytes stay here.
PARALLEL_FROM = 2_000_000
HERE_SHARE = 1 / 3
# From this many benchmarks on, half the files' variance fits are made
# in a forked child: a fork and its Spreads sent back cost tens of ms.
PARALLEL_FIT_FROM = 1000
# This process's share of the fits when it does the caller's work too
# (the figures' warm-up), so that both sides end together
# (docs/architecture.rst).
FIT_SHARE_BESIDE = 1 / 3


def _cut(sizes, share):
    """How many of the first ``sizes`` (at least one, and one fewer than
    all) hold no more than ``share`` of their sum."""
    cut, done, most = 1, sizes[0], sum(sizes) * share
    while cut < len(sizes) - 1 and done + sizes[cut] <= most:
        done, cut = done + sizes[cut], cut + 1
    return cut


def _load_all(files):
    sizes = [os.path.getsize(path) if os.path.isfile(path) else 0
             for path in files]
    if sum(sizes) < PARALLEL_FROM or len(files) < 2:
        return [load_result(path) for path in files]
    cut = _cut(sizes, HERE_SHARE)

    def here():
        from scipy import stats  # noqa: F401 (see HERE_SHARE)
        return [load_result(path) for path in files[:cut]]
    first, second = twocpus.alongside(
        here, lambda: [load_result(path) for path in files[cut:]])
    return first + second


def load_results(paths, meanwhile=None):
    """ResultFiles in interpreter order (2.7, 3.8, 3.9, PyPy 3.9, 3.10...),
    each record's dims completed with its file's interpreter label.
    ``meanwhile``: the caller's own work, done in this process while a
    child fits half the files (the figures' warm-up), if any."""
    results = _load_all(expand_paths(paths))
    interpreters.name_hosts(results)
    interpreters.disambiguate(results)
    for result in results:
        result.records = [
            replace(r, dims={**r.dims, INTERPRETER: result.interpreter})
            for r in result.records]
    # Every benchmark's Record.split at once (the tables ask one by one).
    intervals.judge_splits(record.run_values for result in results
                           for record in result.records)
    _fit_all(results, meanwhile)
    for result in results:
        result.records = [variance.at_median_state(r)
                          for r in result.records]
    return sorted(results, key=lambda r: (r.version_key, r.interpreter))


def _fit_all(results, meanwhile=None):
    """variance.fit of each file (each its own): the files holding about
    half the benchmarks in a forked child (twocpus), which sends back
    only the Spreads, the rest here, after ``meanwhile()`` (if any): then
    this process fits the files of FIT_SHARE_BESIDE of them."""
    def fitted(part):
        found, paired = {}, {}
        for result in part:
            found.update(variance.fit(result.records,
                                      split=lambda record: record.split))
            paired.update(pairs.fit(result.records))
        return found, paired

    def here(part):
        if meanwhile is not None:
            meanwhile()
        return fitted(part)

    sizes = [len(result.records) for result in results]
    if len(results) < 2 or sum(sizes) < PARALLEL_FIT_FROM:
        here(results)
        return
    cut = _cut(sizes, 1 / 2 if meanwhile is None else FIT_SHARE_BESIDE)
    _, (there, paired) = twocpus.alongside(lambda: here(results[:cut]),
                                           lambda: fitted(results[cut:]))
    variance.keep(there)
    pairs.keep(paired)
