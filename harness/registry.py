"""The ordered case registry: case modules declare specs, this expands them.

A case module (every public module of the ``cases`` package, or a user's
module named with ``--module``) defines:

``CASES``
    a list of :class:`CaseSpec`, in the order they should run;
``RATIOS`` (optional)
    a list of :func:`ratio` declarations telling the report which pairs of
    benchmarks to divide.  They travel inside the result JSON's metadata, so
    the renderer needs no edit for a new family.

Expansion is deterministic (module order, ``CASES`` order, then thread
counts ascending) because pyperf workers re-run the program and find their
benchmark by position.
"""
import fnmatch
import importlib
import json
import os
import pkgutil
import re
import sys

from harness.errors import UsageError

# What one pyperf value means for a threaded case (see harness.fanout).
THREADED_VALUE_MEANS = (
    "wall seconds per loop; in one loop each of the `threads` threads makes "
    "one call, all started together, timed until the last one finishes")


class Unavailable(Exception):
    """Raised by a spec's prepare(): this combination is n/a, for a reason."""


class CaseSpec(object):
    """One benchmark family member, run at every requested thread count.

    ``prepare()`` does the set-up (imports, objects) outside the clock and
    returns ``work(loops)``, which each thread calls once per value; it raises
    :class:`Unavailable` when the combination cannot run here.
    """

    def __init__(self, family, case, variant, backend, prepare,
                 description, value_means=THREADED_VALUE_MEANS):
        self.family = family
        self.case = case
        self.variant = variant
        self.backend = backend
        self.prepare = prepare
        self.description = description
        self.value_means = value_means

    @property
    def base_name(self):
        return "%s.%s.%s.%s" % (self.family, self.case, self.variant,
                                self.backend)


def ratio(title, over, numerator, denominator, fallback=None, note=""):
    """Declare a ratio table: benchmarks whose metadata key ``over`` is
    ``numerator`` divided by their twins where it is ``denominator``.

    ``fallback`` names other metadata values to try for the denominator
    when no exact twin exists (e.g. a cffi row, which has no GIL-held twin,
    divided by the Cython GIL-held one); ``note`` says so in the report.
    """
    return {"title": title, "over": over, "numerator": numerator,
            "denominator": denominator, "fallback": fallback or {},
            "note": note}


class Benchmark(object):
    """A spec at one thread count: what pyperf registers under ``name``."""

    def __init__(self, spec, threads, ratios):
        self.spec = spec
        self.threads = threads
        self.ratios = ratios
        self.name = "%s/t%d" % (spec.base_name, threads)

    def matches(self, pattern):
        return (fnmatch.fnmatchcase(self.name, pattern)
                or fnmatch.fnmatchcase(self.spec.base_name, pattern))

    def metadata(self):
        spec = self.spec
        metadata = {
            "family": spec.family, "case": spec.case,
            "variant": spec.variant, "backend": spec.backend,
            "threads": self.threads,
            "value_means": spec.value_means,
            "description": spec.description,
        }
        if self.ratios:
            metadata["gilbench_ratios"] = json.dumps(self.ratios,
                                                     sort_keys=True)
        return metadata


def _import_path(path):
    """Import a case file under a name derived from its full path, so a
    file called e.g. json.py, or two files of one name, cannot collide."""
    path = os.path.abspath(path)
    directory = os.path.dirname(path)
    if directory not in sys.path:  # lets it import its sibling modules
        sys.path.insert(0, directory)
    name = "gilbench_cases_" + re.sub(r"\W", "_", path[:-3])
    if name in sys.modules:
        return sys.modules[name]
    try:
        from importlib.util import module_from_spec, spec_from_file_location
    except ImportError:  # Python 2.7
        import imp
        return imp.load_source(name, path)
    module = module_from_spec(spec_from_file_location(name, path))
    sys.modules[name] = module
    module.__spec__.loader.exec_module(module)
    return module


def _import_module(name):
    """Import a dotted name or a ``.py`` path; UsageError when impossible."""
    is_path = name.endswith(".py") or os.sep in name
    if is_path and not os.path.isfile(name):
        raise UsageError("case module file %r does not exist" % name)
    try:
        if is_path:
            return _import_path(name)
        return importlib.import_module(name)
    except Exception as exc:  # a user's module may raise anything
        raise UsageError("cannot import case module %r: %s: %s"
                         % (name, type(exc).__name__, exc))


def default_module_names():
    """Every public module of the ``cases`` package, sorted by name."""
    import cases
    names = [info[1] for info in pkgutil.iter_modules(cases.__path__)]
    return ["cases." + n for n in sorted(names) if not n.startswith("_")]


def load(module_names, thread_counts):
    """Expand the modules' specs into the ordered benchmark list."""
    benchmarks = []
    for module_name in module_names or default_module_names():
        module = _import_module(module_name)
        specs = getattr(module, "CASES", None)
        if not isinstance(specs, list):
            raise UsageError("case module %r has no CASES list" % module_name)
        ratios = list(getattr(module, "RATIOS", []))
        for spec in specs:
            for threads in thread_counts:
                benchmarks.append(Benchmark(spec, threads, ratios))
    _check_names(benchmarks)
    return benchmarks


_NAME_PART = re.compile(r"^[A-Za-z0-9_-]+$")


def _check_names(benchmarks):
    """Unique names whose parts the report can split apart again."""
    seen = set()
    for bench in benchmarks:
        spec = bench.spec
        for part in (spec.family, spec.case, spec.variant, spec.backend):
            if not _NAME_PART.match(str(part)):
                raise UsageError("case %r: name parts may hold only letters, "
                                 "digits, '_' and '-' (not %r)"
                                 % (spec.base_name, part))
        if bench.name in seen:
            raise UsageError("two cases are both named %r" % bench.name)
        seen.add(bench.name)


def select(benchmarks, patterns):
    """Benchmarks matching any glob; every glob must match something."""
    if not patterns:
        return list(benchmarks)
    for pattern in patterns:
        if not any(b.matches(pattern) for b in benchmarks):
            raise UsageError("unknown case %r (python -m harness list shows "
                             "the registered ones)" % pattern)
    return [b for b in benchmarks if any(b.matches(p) for p in patterns)]


def unique_specs(benchmarks):
    """The specs behind ``benchmarks``, each once, in order."""
    specs = []
    for bench in benchmarks:
        if bench.spec not in specs:
            specs.append(bench.spec)
    return specs


def find(benchmarks, name):
    for bench in benchmarks:
        if bench.name == name:
            return bench
    raise UsageError("unknown benchmark %r" % name)
