"""The ordered case registry: case modules declare specs, this expands them.

A case module (every public module of the ``cases`` package, or a user's
module named with ``--module``) defines:

``CASES``
    a list of :class:`CaseSpec`, in the order they should run;
``TABLES`` (optional)
    a list of :func:`gilbench.model.tables.table` declarations;
``FINDINGS`` (optional)
    a list of :func:`gilbench.model.findings.finding` declarations: the
    questions the family answers, which open the report;
``ORDER`` (optional)
    a number placing the family on the page (lower first; 100 when
    absent, then by name).

The declarations travel in the result JSON's metadata, so the renderer
needs no edit for a new family.

Each spec expands to the cross product of its axes' values (the default or
the quick profile, narrowed by ``--param``), in a deterministic order --
module order, ``CASES`` order, then axes in declaration order with the last
one varying fastest -- because pyperf workers re-run the program and find
their benchmark by position.  A combination the spec's ``exclude`` refuses
is kept, marked not applicable with the reason, and recorded as such.

Benchmark names are for people and never parsed::

    family.case.variant.backend[axis=value,...]/tN   (threads driver)
    family.case.variant.backend[axis=value,...]/pN   (processes driver)

with the bracket left out when the case has no other axes.
"""
import fnmatch
import json
from collections import OrderedDict

from gilbench.errors import UsageError
from gilbench.model import axes as axes_module
from gilbench.model import (
    drivers,
    findings,
    modules,
    resultformat,
    revisions,
)
from gilbench.model.tables import CEILING, named_dimensions, reference

# Metadata keys an axis may not take: pyperf's own and gilbench's.
RESERVED_KEYS = frozenset(resultformat.NAME_PARTS + (
    "name", "unit", "loops", "inner_loops", "driver", "ops_per_loop",
    "concurrency", "value_means", "description", "cpu_utilisation",
    "cpus_usable", "cpu_affinity_effective", "cpu_affinity", "cpu_count",
    "python_gil", "py_gil_disabled_build", "pinned_cpus", "pinned_cores",
    "date",
    "duration", "uptime", "load_avg_1min", "interpreter", "tags",
    "warmups", "values", "runs", "calibrate_loops", "recalibrate_loops",
    "calibrate_warmups", "recalibrate_warmups", "hostname", "platform",
    resultformat.FORMAT_KEY, resultformat.AXES_KEY, resultformat.TABLES_KEY,
    resultformat.FINDINGS_KEY, resultformat.ORDER_KEY,
    resultformat.REFERENCE_KEY, resultformat.MISSING_KEY,
    resultformat.OUTLIERS_KEY)
    + resultformat.BUILD_KEYS)
DEFAULT_ORDER = resultformat.DEFAULT_ORDER


class Unavailable(Exception):
    """Raised by a spec's check() or prepare(): n/a here, for a reason."""


class CaseSpec(object):
    """One member of a benchmark family, run at every axis combination.

    ``prepare(params)`` does the set-up outside the clock (``params`` maps
    every axis to its value) and returns, by ``driver``:

    * ``threads``: ``work(loops)``, called once per value by each of the
      ``threads`` threads, all released together;
    * ``processes``: ``work(loops)``, called once per value by each of the
      ``processes`` worker processes (forked after prepare(), so they
      inherit what it built), all released together;
    * ``custom``: ``time_it(loops) -> seconds``, the case's own clock; CPU
      utilisation is then the process tree's CPU over the whole call
      divided by those seconds, so a case that does untimed work inside
      the call returns ``(seconds, cpu_seconds)`` with the CPU of its
      timed windows instead (``gilbench.api.TreeCpuClock`` measures it).

    What prepare() returns may have a ``close()``, called when the worker
    is done.  ``check(params)`` (optional, cheap: imports, platform tests)
    and prepare() raise :class:`Unavailable` when the combination cannot
    run here; ``exclude(params)`` returns a reason (or None) for a
    combination that makes no sense, recorded as "n/a: <reason>".
    ``ops_per_loop`` and ``concurrency`` are an int, an axis name or a
    function of params; by default the driver's count (threads or
    processes), else 1.  ``sizing``: pyperf options for a case whose
    values are long or whose set-up is costly: under ``--design fixed``
    its recipe (e.g. ``["-p", "2"]``), under the adaptive design only how
    long its values are (``--loops``, ``--min-time``), since how many
    processes and values it gets is the design's; the quick profile and
    the user's own sizing options take precedence.
    ``before_fork(params)`` (optional): work that every
    process of the benchmark would repeat and can inherit instead (e.g.
    calibrating a C work loop), run once in the benchmark program before
    it forks its loop calibration and workers; prepare() must not rely on
    it, since workers started afresh (``--fresh-workers``) skip it and
    forks renewing their layout import the case module again.
    ``outliers``: None, or ``INTERRUPTIONS`` for work whose values only
    an interruption (the hypervisor, another tenant) makes slower, such
    as a C loop on a worker's own data: the report then leaves out its
    values beyond the benchmark's median by more than the fence
    (gilbench.report.data.interruptions), and says how many.
    """

    def __init__(self, family, case, variant, backend, prepare, description,
                 axes=(), driver=drivers.THREADS, value_means=None,
                 exclude=None, check=None, ops_per_loop=None,
                 concurrency=None, sizing=None, before_fork=None,
                 outliers=None):
        self.module_name = None  # load_specs names the module declaring it
        self.family = family
        self.case = case
        self.variant = variant
        self.backend = backend
        self.prepare = prepare
        self.description = description
        self.driver = driver
        self.axes = drivers.with_default_axes(driver, list(axes))
        self.value_means = value_means or drivers.value_means(driver)
        self.exclude = exclude
        self.check = check
        self.ops_per_loop = _resolver(
            ops_per_loop, drivers.count_axis(driver))
        self.concurrency = _resolver(concurrency, drivers.count_axis(driver))
        self.sizing = list(sizing or ())
        self.before_fork = before_fork
        self.outliers = outliers
        self._validate()

    @property
    def base_name(self):
        return "%s.%s.%s.%s" % (self.family, self.case, self.variant,
                                self.backend)

    def axis(self, name):
        for axis in self.axes:
            if axis.name == name:
                return axis
        return None

    def _validate(self):
        if self.driver not in drivers.DRIVERS:
            raise UsageError("case %r: driver must be one of %s"
                             % (self.base_name, ", ".join(drivers.DRIVERS)))
        if self.value_means is None:
            raise UsageError("case %r: a custom driver must say what a value "
                             "means (value_means=...)" % self.base_name)
        if self.outliers not in resultformat.OUTLIER_RULES:
            raise UsageError("case %r: outliers must be None or %s"
                             % (self.base_name, ", ".join(
                                 repr(rule) for rule in
                                 resultformat.OUTLIER_RULES if rule)))
        names = [axis.name for axis in self.axes]
        if len(set(names)) != len(names):
            raise UsageError("case %r declares an axis twice"
                             % self.base_name)
        for name in names:
            if name in RESERVED_KEYS:
                raise UsageError("case %r: %r is a reserved metadata key and "
                                 "cannot name an axis" % (self.base_name,
                                                          name))
        _check_name_parts(self)


def _resolver(declared, count_axis):
    """A function params -> int for ops_per_loop / concurrency."""
    if declared is None:
        declared = count_axis if count_axis else 1
    if callable(declared):
        return lambda params: int(declared(params))
    if isinstance(declared, int):
        return lambda params: declared
    return lambda params: int(params[declared])


def _check_name_parts(spec):
    for part in (spec.family, spec.case, spec.variant, spec.backend):
        if not axes_module._STRING_VALUE.match(str(part)) or "." in part:
            raise UsageError("case %r: name parts may hold only letters, "
                             "digits, '_' and '-' (not %r)"
                             % (spec.base_name, part))


class Benchmark(object):
    """A spec at one combination of axis values: one pyperf benchmark."""

    def __init__(self, spec, params, declared, excluded=None):
        self.spec = spec
        self.params = params  # OrderedDict, in axis declaration order
        self.declared = declared  # its family's Declared
        self.excluded = excluded  # "n/a: ..." when exclude() refused it
        self.name = benchmark_name(spec, params)

    def matches(self, pattern):
        forms = (self.name, self.spec.base_name, self.name.split("/")[0])
        return pattern in forms or any(fnmatch.fnmatchcase(form, pattern)
                                       for form in forms)

    def metadata(self):
        """Benchmark-level metadata (see gilbench.model.resultformat)."""
        spec, params = self.spec, self.params
        metadata = {
            resultformat.FORMAT_KEY: resultformat.FORMAT_VERSION,
            "family": spec.family, "case": spec.case,
            "variant": spec.variant, "backend": spec.backend,
            "driver": spec.driver,
            "ops_per_loop": spec.ops_per_loop(params),
            "concurrency": spec.concurrency(params),
            "value_means": spec.value_means,
            "description": spec.description,
            resultformat.AXES_KEY: json.dumps(
                [{"name": a.name, "unit": a.unit, "log": a.log}
                 for a in spec.axes], sort_keys=True),
        }
        if spec.outliers:
            metadata[resultformat.OUTLIERS_KEY] = spec.outliers
        metadata.update(params)
        metadata.update(self.declared.metadata())
        return metadata


def benchmark_name(spec, params):
    count_axis = drivers.count_axis(spec.driver)
    inner = ",".join("%s=%s" % (name, axes_module.format_value(value))
                     for name, value in params.items()
                     if name != count_axis)
    name = spec.base_name + ("[%s]" % inner if inner else "")
    if count_axis:
        name += "/%s%d" % (count_axis[0], params[count_axis])
    return name


def _combinations(axis_values):
    """Cross product of [(name, values)], the last axis varying fastest."""
    combos = [OrderedDict()]
    for name, values in axis_values:
        combos = [_extended(combo, name, value)
                  for combo in combos for value in values]
    return combos


def _extended(combo, name, value):
    new = OrderedDict(combo)
    new[name] = value
    return new


class Selection(object):
    """Which axis values to run: a profile plus ``--param`` overrides."""

    def __init__(self, quick=False, params=None):
        self.quick = quick
        self.params = params or {}  # axis name -> raw text from the CLI

    def values(self, axis):
        """The values of ``axis`` to run; --param values the axis does not
        declare are left out (another case may declare them)."""
        if axis.name not in self.params:
            return axis.profile(self.quick)
        return [value for value in axis.parse(self.params[axis.name])
                if axis.declares(value)]


class Declared(object):
    """What a case module declares for the report: its TABLES, FINDINGS,
    ORDER and REFERENCE, as every benchmark of the family carries them."""

    def __init__(self, tables=(), findings=(), order=DEFAULT_ORDER,
                 reference=None):
        self.tables = list(tables)
        self.findings = list(findings)
        self.order = order
        # {count axis: name parts, "memory": {count axis: name parts}}
        # or None
        self.reference = reference

    def is_reference(self, spec):
        """Whether ``spec``'s benchmarks are reference points this
        declares: the compute ceiling's, or the memory ceiling's."""
        points = self.reference or {}
        axis = drivers.count_axis(spec.driver)
        return any(
            where is not None and all(getattr(spec, part) == value
                                      for part, value in where.items())
            for where in (points.get(axis),
                          points.get("memory", {}).get(axis)))

    def metadata(self):
        metadata = {}
        if self.tables:
            metadata[resultformat.TABLES_KEY] = json.dumps(self.tables,
                                                           sort_keys=True)
        if self.findings:
            metadata[resultformat.FINDINGS_KEY] = json.dumps(
                self.findings, sort_keys=True)
        if self.order != DEFAULT_ORDER:
            metadata[resultformat.ORDER_KEY] = self.order
        if self.reference:
            metadata[resultformat.REFERENCE_KEY] = json.dumps(
                self.reference, sort_keys=True)
        return metadata


def expand(spec, declared, selection):
    """The spec's benchmarks under ``selection`` (none when --param leaves
    one of its axes without a value)."""
    axis_values = [(axis.name, selection.values(axis)) for axis in spec.axes]
    benchmarks = []
    for params in _combinations(axis_values):
        reason = spec.exclude(dict(params)) if spec.exclude else None
        benchmarks.append(Benchmark(spec, params, declared,
                                    "n/a: %s" % reason if reason else None))
    return benchmarks


def load_specs(module_names):
    """[(spec, Declared)] of the modules, in order; checks the
    declarations."""
    found = []
    for module_name in module_names or modules.default_module_names():
        module = modules.import_module(module_name)
        specs = getattr(module, "CASES", None)
        if not isinstance(specs, list) or not all(
                isinstance(s, CaseSpec) for s in specs):
            raise UsageError("case module %r has no CASES list of CaseSpec"
                             % module_name)
        revisions.add_axis(module_name, specs)
        declared = _declared(module_name, module, specs)
        for spec in specs:
            spec.module_name = module_name  # a benchmark's program imports
            found.append((spec, declared))  # this module alone
    _check_unique(found)
    return found


def _declared(module_name, module, specs):
    tables = list(getattr(module, "TABLES", []))
    found = list(getattr(module, "FINDINGS", []))
    order = getattr(module, "ORDER", DEFAULT_ORDER)
    if isinstance(order, bool) or not isinstance(order, (int, float)):
        raise UsageError("case module %r: ORDER must be a number"
                         % module_name)
    _check_declarations(module_name, specs, tables, "TABLES", "table",
                        "title", named_dimensions)
    _check_declarations(module_name, specs, found, "FINDINGS", "finding",
                        "question", findings.named_dimensions)
    points = getattr(module, "REFERENCE", None)
    if points is not None:
        if not isinstance(points, dict):
            raise UsageError("case module %r: REFERENCE must be "
                             "gilbench.api.reference(...)" % module_name)
        try:
            points = reference(**points)
        except UsageError as exc:
            raise UsageError("case module %r: %s" % (module_name, exc))
    return Declared(tables, found, order, points)


def _check_declarations(module_name, specs, declarations, attribute, what,
                        label, dimensions_of):
    """Every dimension a table or finding names is a name part,
    ``interpreter`` or an axis of one of the module's cases: a typo fails
    here, at ``list`` and ``run``, not as an empty table in a report."""
    known = set(resultformat.NAME_PARTS) | {"interpreter"}
    for spec in specs:
        known.update(axis.name for axis in spec.axes)
    for declared in declarations:
        if not isinstance(declared, dict) or "cell" not in declared \
                or label not in declared:
            raise UsageError("case module %r: %s must hold "
                             "gilbench.api.%s(...) declarations"
                             % (module_name, attribute, what))
        unknown = sorted(set(dimensions_of(declared)) - known)
        if unknown:
            raise UsageError("case module %r: %s %r names %s, which is "
                             "no name part or axis of its cases"
                             % (module_name, what, declared[label],
                                ", ".join(unknown)))


def _check_unique(found):
    seen = set()
    for spec, _ in found:
        if spec.base_name in seen:
            raise UsageError("two cases are both named %r" % spec.base_name)
        seen.add(spec.base_name)


def _check_params(found, selection):
    """Every --param names an axis of some case, parses for each case that
    has it, and every value it names is declared by one of them."""
    for name in sorted(selection.params):
        text = selection.params[name]
        having = [spec.axis(name) for spec, _ in found if spec.axis(name)]
        if not having:
            raise UsageError("unknown axis %r in --param (python -m gilbench "
                             "list --json shows every case's axes)" % name)
        for value in having[0].parse(text):
            if not any(axis.declares(value) for axis in having):
                raise UsageError(
                    "--param %s=%s: no case declares %r (declared: %s)"
                    % (name, text, value, ", ".join(sorted(set(
                        axes_module.format_value(v) for axis in having
                        for v in axis.values + axis.extra)))))
        for axis in having[1:]:
            axis.parse(text)


CEILING_MODULE = "gilbench.cases.ceiling"


def load(module_names, selection=None, patterns=None):
    """The ordered benchmark list for the given modules and selection.
    A case module whose declarations read the ceiling (efficiency
    against CEILING) brings the built-in ceiling family's reference
    points along, for the count axes of the benchmarks chosen, measured
    at the selection's counts."""
    selection = selection or Selection()
    found = load_specs(module_names)
    ceiling = _ceiling_needed(found)
    if ceiling:
        found += load_specs([CEILING_MODULE])
    _check_params(found, selection)
    benchmarks = []
    for spec, declared in found:
        benchmarks.extend(expand(spec, declared, selection))
    chosen = select(benchmarks, patterns, selection)
    if not ceiling:
        return chosen
    if not patterns:  # the whole ceiling family only when a glob asks
        chosen = [b for b in chosen if not b.declared.reference]
    axes = set(drivers.count_axis(b.spec.driver) for b in chosen)
    return chosen + [b for b in benchmarks if b not in chosen
                     and b.declared.is_reference(b.spec)
                     and drivers.count_axis(b.spec.driver) in axes]


def _ceiling_needed(found):
    """Whether declarations read the ceiling, and no loaded module
    declares a REFERENCE."""
    if any(declared.reference for _, declared in found):
        return False
    cells = [item["cell"] for _, declared in found
             for item in declared.tables + declared.findings]
    return any(cell.get("against") == CEILING for cell in cells)


def select(benchmarks, patterns, selection=None):
    """Benchmarks matching any glob; every glob must match something."""
    if not patterns:
        if not benchmarks:
            raise UsageError("no benchmark selected")
        return list(benchmarks)
    for pattern in patterns:
        if not any(b.matches(pattern) for b in benchmarks):
            profile = (" in the quick profile" if selection and
                       selection.quick else "")
            raise UsageError("unknown case %r%s (gilbench list "
                             "shows the registered ones)" % (pattern,
                                                             profile))
    return [b for b in benchmarks if any(b.matches(p) for p in patterns)]


def unique_specs(benchmarks):
    """The specs behind ``benchmarks``, each once, in order."""
    specs = []
    for bench in benchmarks:
        if bench.spec not in specs:
            specs.append(bench.spec)
    return specs


def encode_params(params):
    """Axis values as JSON, for a benchmark program's command line."""
    return json.dumps(params)


def decode_params(spec, text):
    """The OrderedDict of axis values that :func:`encode_params` wrote, in
    the spec's axis order and with each axis's type (2.7's json gives
    unicode)."""
    try:
        raw = json.loads(text)
    except ValueError:
        raise UsageError("bad --bench-params %r" % (text,))
    if not isinstance(raw, dict) or set(raw) != set(
            axis.name for axis in spec.axes):
        raise UsageError("--bench-params %r does not give the axes of %r"
                         % (text, spec.base_name))
    return OrderedDict((axis.name, axis.type(raw[axis.name]))
                       for axis in spec.axes)


class Respawn(object):
    """Picklable: makes a case's work again in a spawned worker process
    (the processes driver's ``respawn``)."""

    def __init__(self, module_names, base_name, params):
        self.module_names = module_names
        self.base_name = base_name
        self.params = params

    def __call__(self):
        spec, _ = find_spec(self.module_names, self.base_name)
        return spec.prepare(dict(self.params))


def find_spec(module_names, base_name):
    for spec, declared in load_specs(module_names):
        if spec.base_name == base_name:
            return spec, declared
    raise UsageError("unknown case %r" % base_name)
