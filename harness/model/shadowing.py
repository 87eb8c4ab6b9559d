"""Why an import failed, in one line, when a source tree under the working
directory stood in for an installed package: a project with its package
at the repository root, run from that root, imports ``./pkg`` (whose
compiled modules are not built there) instead of what pip installed; and
when the project could not be built in this environment at all, the line
``gilbench.runner.projectbuild`` left there (UNBUILT_NOTE) says why."""
import io
import os
import re
import sys

# In the environment's prefix (a tox env's directory): the root of the
# project that could not be built there, then why, a line each; written by
# gilbench.runner.projectbuild.
UNBUILT_NOTE = "gilbench-unbuilt.txt"


def unbuilt_note_path():
    return os.path.join(sys.prefix, UNBUILT_NOTE)


def unbuilt():
    """(the project's root, why it was not built in this environment), or
    None."""
    try:
        with io.open(unbuilt_note_path(), encoding="utf-8") as stream:
            lines = stream.read().splitlines()
    except (IOError, OSError):
        return None
    return (lines[0], lines[1]) if len(lines) >= 2 else None


def explained(exc, typed=True):
    """``exc`` as "Type: text" (``typed``) or its text, and, where it is an
    import that failed in a package imported from under the working
    directory, where that package came from and what to do."""
    text = "%s: %s" % (type(exc).__name__, exc) if typed else str(exc)
    hint = None
    if isinstance(exc, ImportError):
        hint = _unbuilt(exc) or _shadowed(exc)
    return "%s; %s" % (text, hint) if hint else text


def _shadowed(exc):
    cwd = os.getcwd()
    found = _failed_package(exc, cwd)
    if found is None:
        return None
    top, directory = found
    where = "./" + os.path.relpath(directory, cwd)
    source_root = os.path.dirname(directory)
    installed = _found(top, [p for p in sys.path
                             if os.path.abspath(p or cwd) != source_root])
    if installed:
        return ("%s was imported from %s, under the working directory; the "
                "installed one is in %s: run from elsewhere or use a src "
                "layout" % (top, where, os.path.dirname(installed)))
    return ("%s was imported from %s, under the working directory, and is "
            "not built there: install the project (pip install .) or build "
            "it in place" % (top, where))


def _unbuilt(exc):
    """Why the project was not built here, where the failed import is of
    a package in that project's tree or found nowhere."""
    note = unbuilt()
    name = _failed_name(exc)
    if note is None or not name:
        return None
    root, reason = note
    directory = _found(name.split(".")[0], sys.path)
    if directory is None or _under(directory, os.path.abspath(root)):
        return reason
    return None


def _failed_name(exc):
    """The dotted name of the module that failed to import, or None."""
    name = getattr(exc, "name", None)  # 3.3+; 2.7 names only the last part
    if name is None:
        said = re.search(r"No module named '?([\w.]+)", str(exc))
        name = said and said.group(1)
    return name or None


def _failed_package(exc, cwd):
    """(the top-level package in which the import failed, the directory
    it is imported from) where that is under ``cwd``; else None.  A
    failed import has removed the package from sys.modules: where the
    import system finds it is where it came from."""
    name = _failed_name(exc)
    if not name or "." not in name:
        return None
    top = name.split(".")[0]
    directory = _found(top, sys.path)
    installed = set(("site-packages", "dist-packages")).intersection(
        (directory or "").split(os.sep))
    if directory and _under(directory, cwd) and not installed:
        return top, directory
    return None


def _under(path, directory):
    return (path + os.sep).startswith(os.path.join(directory, ""))


def _found(top, paths):
    """The directory of the package ``top`` as found on ``paths`` (""
    meaning the working directory), or None."""
    paths = [p or os.getcwd() for p in paths]
    try:
        from importlib.machinery import PathFinder
    except ImportError:  # Python 2.7
        import imp
        try:
            return os.path.abspath(imp.find_module(top, paths)[1])
        except ImportError:
            return None
    spec = PathFinder.find_spec(top, paths)
    locations = spec is not None and spec.submodule_search_locations
    return os.path.abspath(list(locations)[0]) if locations else None
