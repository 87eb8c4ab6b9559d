"""``python -m gilbench.runner.projectbuild ROOT -- COMMAND...``: install a
user's project into this environment as its own build system says, then
run COMMAND (the tox file's ``pip install`` of the project).

First the project's build requirements -- ``[build-system] requires`` of
its ``pyproject.toml`` and ``setup_requires`` of its ``setup.cfg`` -- are
installed into this environment, one at a time so that one that cannot
install is named: the COMMAND then builds without isolation, with the
tools the environment holds (gilbench's pins, 2.7's and the free-threaded
builds' included) brought up to what the project asks.  A requirement
that does not install here (setuptools >= 77 on Python 2.7) is one line,
and the project is not installed (an earlier build is uninstalled): the
line is left in the environment (gilbench.model.shadowing.UNBUILT_NOTE),
so every benchmark importing the project is "n/a" with it and the
environment goes on.  A build that fails with its requirements installed
is one line and exit 1, pip's whole output in the environment's
gilbench-build.log: that environment fails, the others go on.  Worker
side: Python 2.7-compatible.
"""
from __future__ import print_function

import io
import os
import subprocess
import sys

from gilbench.model import shadowing

PREFIX = "gilbench: "


def main(argv):
    if "--" not in argv or argv.index("--") != 1 or len(argv) < 3:
        print(PREFIX + "error: usage: python -m gilbench.runner.projectbuild "
              "ROOT -- COMMAND...", file=sys.stderr)
        return 2
    root, command = argv[0], argv[2:]
    _forget_note()
    try:
        name, requirements = declared(root)
    except ValueError as exc:
        print(PREFIX + "error: %s" % exc, file=sys.stderr)
        return 2
    for requirement in requirements:
        failed = _install(requirement)
        if failed is not None:
            reason = ("%s's build requires %s, which does not install on "
                      "%s (pip: %s)" % (name, requirement, _interpreter(),
                                        failed))
            _leave_note(root, reason)
            # An earlier build left here would be measured as this one.
            _run([sys.executable, "-m", "pip", "uninstall", "-y", "-q",
                  name])
            print(PREFIX + "n/a: " + reason, file=sys.stderr)
            return 0
    built = _run(command, log=_build_log())
    if built is not None:
        print(PREFIX + "error: %s did not build with its build requirements "
              "(%s) installed: %s (the whole output: %s)"
              % (name, ", ".join(requirements) or "none declared", built,
                 _build_log()), file=sys.stderr)
        return 1
    return 0


def declared(root):
    """(the project's name, its build requirements as written):
    ``[project] name`` or the root's directory name; ``[build-system]
    requires`` (PEP 518), then setup.cfg's ``setup_requires``.  A
    ValueError for a file that does not parse."""
    name, found = os.path.basename(os.path.abspath(root)), []
    pyproject = os.path.join(root, "pyproject.toml")
    if os.path.isfile(pyproject):
        with io.open(pyproject, encoding="utf-8") as stream:
            text = stream.read()
        try:
            table = _toml_loads(text)
        except Exception as exc:  # each parser has its own error class
            raise ValueError("%s does not parse: %s" % (pyproject, exc))
        found += list(table.get("build-system", {}).get("requires", []))
        name = table.get("project", {}).get("name", name)
    setup_cfg = os.path.join(root, "setup.cfg")
    if os.path.isfile(setup_cfg):
        found += [r for r in _setup_requires(setup_cfg) if r not in found]
    return name, found


def _toml_loads(text):
    """TOML's parser: the stdlib's from 3.11, else the one pip carries
    (tomli from pip 21.2, toml before: 2.7's pip 20.3)."""
    try:
        import tomllib
    except ImportError:
        try:
            from pip._vendor import tomli as tomllib
        except ImportError:
            from pip._vendor import toml
            return toml.loads(text)
    return tomllib.loads(text)


def _setup_requires(path):
    try:
        from configparser import ConfigParser
    except ImportError:  # Python 2.7
        from ConfigParser import ConfigParser
    parser = ConfigParser()
    parser.read(path)
    if not parser.has_option("options", "setup_requires"):
        return []
    # setuptools' "list-semi": one a line, or a line of ;-separated ones
    text = parser.get("options", "setup_requires").strip()
    parts = text.splitlines() if "\n" in text else text.split(";")
    return [part.strip() for part in parts if part.strip()]


def _install(requirement):
    """None once ``requirement`` is in this environment (pip skips one
    whose marker excludes this interpreter), else pip's last error
    line."""
    return _run([sys.executable, "-m", "pip", "install", "-q",
                 "--disable-pip-version-check", requirement])


def _run(command, log=None):
    """None if ``command`` succeeds, else the last line it printed that
    says why (pip's "ERROR: ..."), or its exit code; its whole output
    goes to the file ``log`` names, if any."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
    output = process.communicate()[0].decode("utf-8", "replace")
    if log is not None:
        with io.open(log, "w", encoding="utf-8") as stream:
            stream.write(output)
    if process.returncode == 0:
        return None
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR:")]
    said = (errors or lines or ["exit code %d" % process.returncode])[-1]
    return said[len("ERROR:"):].strip() if said.startswith("ERROR:") \
        else said


def _build_log():
    return os.path.join(sys.prefix, "gilbench-build.log")


def _interpreter():
    import platform
    return "%s %d.%d" % (platform.python_implementation(),
                         sys.version_info[0], sys.version_info[1])


def _forget_note():
    try:
        os.remove(shadowing.unbuilt_note_path())
    except OSError:
        pass


def _leave_note(root, reason):
    with io.open(shadowing.unbuilt_note_path(), "w",
                 encoding="utf-8") as stream:
        stream.write(u"%s\n%s\n" % (os.path.abspath(root), reason))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
