"""Two builds of a user's project measured in one run: the axis
``revision`` (``gilbench continuous BASE HEAD``).

``continuous`` installs each revision of the project into a directory of
its own and names them, with the case modules that measure the project,
in the environment variable :data:`ENVIRONMENT`.  Every case of those
modules then has the axis ``revision`` (base, head), so the run's blocks
measure the two builds in turn, one worker process of each benchmark at a
time, and a machine that slows down slows both.  A benchmark program of
a revision starts afresh (never a fork of the runner, which imported one
of them) with :data:`PATH_ENVIRONMENT` naming its directory, put first on
``sys.path`` before the case module is imported.

Worker side: Python 2.7-compatible.
"""
import json
import os
import sys

from gilbench.errors import UsageError
from gilbench.model import axes

ENVIRONMENT = "GILBENCH_REVISIONS"
PATH_ENVIRONMENT = "GILBENCH_REVISION_PATH"
AXIS = "revision"
BASE, HEAD = "base", "head"


def encode(paths, module_names):
    """The :data:`ENVIRONMENT` value: ``paths`` as [(name, directory)]."""
    return json.dumps({"revisions": [list(pair) for pair in paths],
                       "modules": list(module_names)}, sort_keys=True)


def _received():
    text = os.environ.get(ENVIRONMENT)
    if not text:
        return None
    try:
        found = json.loads(text)
        pairs = [(str(name), str(path)) for name, path in found["revisions"]]
        return pairs, [str(name) for name in found["modules"]]
    except (ValueError, KeyError, TypeError):
        raise UsageError("%s is not what gilbench continuous writes"
                         % ENVIRONMENT)


def add_axis(module_name, specs):
    """Give each case of ``module_name`` the revision axis where the
    environment names the module (once: a module is imported once)."""
    found = _received()
    if found is None or _named(module_name) not in map(_named, found[1]):
        return
    names = [name for name, _ in found[0]]
    for spec in specs:
        if AXIS not in [axis.name for axis in spec.axes]:
            spec.axes.append(axes.Axis(AXIS, names))


def _named(module):
    """A case module as named: a path made absolute, a dotted name."""
    return os.path.abspath(module) if module.endswith(".py") else module


def path_of(params):
    """The directory of the revision ``params`` name, or None."""
    name = params.get(AXIS)
    found = _received()
    if name is None or found is None:
        return None
    return dict(found[0]).get(name)


def point_of(dimensions):
    """What a benchmark's revisions share: ``dimensions`` (params, or a
    record's metadata dimensions) but the revision, as a sorted key."""
    return tuple(sorted((name, repr(value))
                        for name, value in dimensions.items()
                        if name != AXIS and value is not None))


def twins(benchmarks):
    """[[index, ...]] of ``benchmarks`` (registry Benchmarks, by index)
    that differ only in their revision: one case at one point, one
    benchmark per revision."""
    found = {}
    for index, bench in benchmarks:
        if AXIS not in bench.params:
            continue
        point = (bench.spec.base_name, point_of(bench.params))
        found.setdefault(point, []).append(index)
    return [sorted(group) for _, group in sorted(found.items())
            if len(group) > 1]


def enter():
    """In a benchmark program: its revision's directory first on
    sys.path, before any case module is imported."""
    path = os.environ.get(PATH_ENVIRONMENT)
    if path and path not in sys.path[:1]:
        sys.path.insert(0, path)
