"""Finding and importing case modules (the built-in ``gilbench.cases``
package, a dotted module name, or a ``.py`` file named by path)."""
import importlib
import os
import pkgutil
import re
import sys

from gilbench.errors import UsageError
from gilbench.model import shadowing
from gilbench.model.envnames import free_threaded_build


def _import_path(path):
    """Import a case file under its :func:`loaded_name`."""
    path = os.path.abspath(path)
    # Last, so its sibling modules import but an installed distribution
    # wins over a source tree beside the file (a package at a project's
    # root, not built in place).
    _search_last(os.path.dirname(path))
    name = _interned(loaded_name(path))
    if name in sys.modules:
        return sys.modules[name]
    try:
        from importlib.util import module_from_spec, spec_from_file_location
    except ImportError:  # Python 2.7
        module, execute = _source_module(name, path)
    else:
        loader = _hooked[0](name, path) if _hooked else None
        module = module_from_spec(spec_from_file_location(name, path,
                                                          loader=loader))
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


def _interned(name):
    """``name`` interned, as an import statement's module names are.  A
    module's ``__name__`` is referenced by every function made in it
    (``func_module``); on a free-threaded 3.13+ an interned str is
    immortal, a built one is counted atomically by every thread making
    functions there (docs/families/pyops.rst, "Creating a closure")."""
    if not isinstance(name, str):  # 2.7's unicode (from JSON): no intern
        return name
    return (sys.intern if hasattr(sys, "intern") else intern)(name)  # noqa: F821


def load_sources_as_bytecode():
    """On a free-threaded CPython, make modules imported from now on from
    source get their constants as from a ``.pyc``: ``compile()`` leaves a
    module's constants (a tuple, a float) mortal there, unmarshalling
    makes them immortal, so whether one contends between threads would
    depend on whether a ``.pyc`` could be written (PYTHONDONTWRITEBYTECODE,
    a read-only tree).  Once per process; elsewhere nothing changes."""
    if _hooked or not free_threaded_build():
        return
    from importlib import machinery

    class BytecodeConstantsLoader(machinery.SourceFileLoader):
        def source_to_code(self, data, path, **options):
            return constants_as_from_bytecode(
                machinery.SourceFileLoader.source_to_code(
                    self, data, path, **options))
    # The default loaders' order (extensions, source, bytecode), with
    # this loader for source.
    sys.path_hooks.insert(0, machinery.FileFinder.path_hook(
        (machinery.ExtensionFileLoader, machinery.EXTENSION_SUFFIXES),
        (BytecodeConstantsLoader, machinery.SOURCE_SUFFIXES),
        (machinery.SourcelessFileLoader, machinery.BYTECODE_SUFFIXES)))
    sys.path_importer_cache.clear()
    _hooked.append(BytecodeConstantsLoader)


_hooked = []  # the loader class, once load_sources_as_bytecode() hooked it


def constants_as_from_bytecode(code):
    """``code`` (from ``compile()``) with its constants as a ``.pyc``
    gives them: on a free-threaded build unmarshalling makes them
    immortal, where compile() leaves them mortal (counted atomically by
    every thread that loads one); elsewhere ``code`` itself."""
    if not free_threaded_build():
        return code
    import marshal
    return marshal.loads(marshal.dumps(code))


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


def working_directory_last():
    """Move the working directory ``python -m`` puts first on sys.path to
    the end: a project's source tree (``./pkg``, not built in place) must
    not stand in for the package installed here, in a gilbench program or
    the benchmark programs it starts; a module found only there (a case
    module by dotted name, a statement's import) still is."""
    if sys.path and sys.path[0] in ("", os.getcwd()):
        sys.path.append(sys.path.pop(0))


def _search_last(directory):
    """Put ``directory`` on sys.path after site-packages, unless there."""
    if directory not in sys.path and not (
            directory == os.getcwd() and "" in sys.path):
        sys.path.append(directory)


def import_module(name):
    """Import a dotted name or a ``.py`` path; UsageError when impossible."""
    is_path = _is_path(name)
    if is_path and not os.path.isfile(name):
        raise UsageError("case module file %r does not exist" % name)
    load_sources_as_bytecode()
    try:
        if is_path:
            return _import_path(name)
        # A dotted name resolves from the working directory too, but after
        # what is installed (gilbench's own programs drop the directory
        # ``python -m`` puts first: gilbench/__main__.py).
        _search_last(os.getcwd())
        return importlib.import_module(_interned(name))
    except Exception as exc:  # a user's module may raise anything
        raise UsageError("cannot import case module %r: %s"
                         % (name, shadowing.explained(exc)))


def default_module_names():
    """Every public module of the ``gilbench.cases`` package, by name."""
    from gilbench import cases
    names = [info[1] for info in pkgutil.iter_modules(cases.__path__)]
    return [cases.__name__ + "." + n for n in sorted(names)
            if not n.startswith("_")]
