"""Finding and importing case modules (the built-in ``gilbench.cases``
package, a dotted module name, or a ``.py`` file named by path)."""
import importlib
import os
import pkgutil
import re
import sys

from gilbench.errors import UsageError


def _import_path(path):
    """Import a case file under its :func:`loaded_name`."""
    path = os.path.abspath(path)
    directory = os.path.dirname(path)
    if directory not in sys.path:  # lets it import its sibling modules
        sys.path.insert(0, directory)
    name = loaded_name(path)
    if name in sys.modules:
        return sys.modules[name]
    try:
        from importlib.util import module_from_spec, spec_from_file_location
    except ImportError:  # Python 2.7
        module, execute = _source_module(name, path)
    else:
        module = module_from_spec(spec_from_file_location(name, path))
        execute = module.__spec__.loader.exec_module
    sys.modules[name] = module
    try:
        execute(module)
    except BaseException:
        del sys.modules[name]  # a retry must not find a half-run module
        raise
    return module


def loaded_name(name):
    """The ``sys.modules`` key of a case module named by a dotted name or
    a ``.py`` path: a file's is derived from its full path, so a file
    called e.g. json.py, or two files of one name, cannot collide."""
    if not _is_path(name):
        return name
    return "gilbench_cases_" + re.sub(r"\W", "_", os.path.abspath(name)[:-3])


def is_harness_module(module):
    """Whether ``module`` is part of gilbench itself (not its built-in
    cases, which are case modules like a user's)."""
    name = module.__name__
    return name.startswith("gilbench.") and not name.startswith(
        "gilbench.cases.")


def _is_path(name):
    return name.endswith(".py") or os.sep in name


def _source_module(name, path):
    """Python 2.7: (a new module, what runs the file's source in it).
    Not imp.load_source, which takes a .pyc whose mtime matches the
    source's to the second: an edit saved within that second ran the
    old code."""
    import imp
    module = imp.new_module(name)
    module.__file__ = path

    def execute(module):
        with open(path) as stream:
            code = compile(stream.read(), path, "exec")
        exec(code, module.__dict__)
    return module, execute


def _search_working_directory():
    """A dotted name resolves from the working directory, as under
    ``python -m``: the ``gilbench`` console script's sys.path starts with
    its own bin directory instead."""
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())


def import_module(name):
    """Import a dotted name or a ``.py`` path; UsageError when impossible."""
    is_path = _is_path(name)
    if is_path and not os.path.isfile(name):
        raise UsageError("case module file %r does not exist" % name)
    try:
        if is_path:
            return _import_path(name)
        _search_working_directory()
        return importlib.import_module(name)
    except Exception as exc:  # a user's module may raise anything
        raise UsageError("cannot import case module %r: %s: %s"
                         % (name, type(exc).__name__, exc))


def default_module_names():
    """Every public module of the ``gilbench.cases`` package, by name."""
    from gilbench import cases
    names = [info[1] for info in pkgutil.iter_modules(cases.__path__)]
    return [cases.__name__ + "." + n for n in sorted(names)
            if not n.startswith("_")]
