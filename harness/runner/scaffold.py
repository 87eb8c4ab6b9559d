"""``gilbench init [--tox] [--ci]``: write, into a user's extension project,
a case module that measures a call into their package (``bench/
gilbench_cases.py``), a tox file with an env per interpreter found here
plus a report env (``tox-gilbench.ini``), and a GitHub Actions workflow
running it (``.github/workflows/gilbench.yml``).  An existing file is never
overwritten.  The texts are ``templates/init/*.tmpl``."""
from __future__ import print_function

import json
import os
import re

from gilbench import templates
from gilbench.errors import OneLineErrorParser, UsageError
from gilbench.model import envnames

CASES = "bench/gilbench_cases.py"
TOX = "tox-gilbench.ini"
WORKFLOW = ".github/workflows/gilbench.yml"
_SOURCE = re.compile(r"^[\w.-]+/[\w.-]+(@[\w./-]+)?$")
_NOT_PACKAGES = ("bench", "benchmarks", "build", "dist", "doc", "docs",
                 "test", "tests", "tools", "results")


def build_parser():
    parser = OneLineErrorParser(
        prog="gilbench init",
        description="Write gilbench's case module for your package into "
        "this project (%s), and with --tox a tox file with an env per "
        "interpreter found here and a report env (%s), with --ci a GitHub "
        "Actions workflow running it (%s).  An existing file is never "
        "overwritten." % (CASES, TOX, WORKFLOW))
    parser.add_argument("--tox", action="store_true",
                        help="also write %s" % TOX)
    parser.add_argument("--ci", action="store_true",
                        help="also write %s (and %s, with an env for "
                        "every interpreter the workflow runs)"
                        % (WORKFLOW, TOX))
    parser.add_argument("--gilbench-source", metavar="OWNER/NAME[@REF]",
                        help="with --ci: the GitHub repository (and branch, "
                        "tag or commit; default main) the workflow fetches "
                        "gilbench from")
    parser.add_argument("--directory", default=".", metavar="DIR",
                        help="the project's root (default: here)")
    parser.add_argument("--package", metavar="NAME",
                        help="the package to import (default: the one "
                        "directory at the root, or under src/, with an "
                        "__init__.py)")
    for call, says in (("held", "that holds the GIL for the whole call"),
                       ("released", "doing the same with the GIL "
                        "released"),
                       ("cffi", "the same work through cffi")):
        parser.add_argument("--" + call, metavar="MODULE:FUNCTION",
                            help="the function %s (default: none, n/a "
                            "until named in the case module)" % says)
    parser.add_argument("--argument", type=int, default=1000,
                        metavar="N", help="every call's argument (default "
                        "1000)")
    return parser


def main(argv):
    args = build_parser().parse_args(argv)
    root = args.directory
    if not os.path.isdir(root):
        raise UsageError("--directory %r is not a directory" % root)
    for call in ("held", "released", "cffi"):
        name = getattr(args, call)
        if name is not None and not re.match(r"^[\w.]+:\w+$", name):
            raise UsageError("--%s %r is not MODULE:FUNCTION" % (call, name))
    if args.ci and not args.gilbench_source:
        raise UsageError("--ci needs --gilbench-source OWNER/NAME[@REF]: "
                         "where the workflow fetches gilbench from")
    if args.gilbench_source is not None and not _SOURCE.match(
            args.gilbench_source):
        raise UsageError("--gilbench-source %r is not OWNER/NAME[@REF]"
                         % args.gilbench_source)
    package = args.package or _package(root)
    words = {"PACKAGE": package, "CASES": CASES,
             "FAMILY": re.sub(r"\W", "_", package).lower(),
             "HELD": _literal(args.held), "RELEASED": _literal(args.released),
             "CFFI": _literal(args.cffi), "ARGUMENT": str(args.argument)}
    files = [(CASES, _filled("gilbench_cases.py.tmpl", words))]
    if args.tox or args.ci:
        # The workflow runs every known interpreter (envnames.KNOWN, the
        # one list): with --ci each has its section.
        found = [i for i in envnames.KNOWN
                 if args.ci or _on_path(i.basepython)]
        files.append((TOX, _tox_file(words, found)))
    if args.ci:
        repository, _, ref = args.gilbench_source.partition("@")
        files.append((WORKFLOW, _filled("gilbench.yml.tmpl", dict(
            words, MATRIX=_matrix(), GILBENCH_REPOSITORY=repository,
            GILBENCH_REF=ref or "main"))))
    for path, text in files:
        _write_new(root, path, text)
    return 0


def _package(root):
    """The one importable package at ``root`` or under ``root/src``."""
    found = []
    for base in (root, os.path.join(root, "src")):
        if os.path.isdir(base):
            found += [name for name in sorted(os.listdir(base))
                      if name not in _NOT_PACKAGES and os.path.isfile(
                          os.path.join(base, name, "__init__.py"))]
    if len(found) != 1:
        raise UsageError("cannot tell which package to measure (%s): name "
                         "it with --package" % (", ".join(found) or
                                                "no package found"))
    return found[0]


def _literal(name):
    return json.dumps(name) if name else "None"


def _filled(template, words):
    path = os.path.join(os.path.dirname(os.path.abspath(templates.__file__)),
                        "init", template)
    with open(path) as stream:
        text = stream.read()
    for key, value in words.items():
        text = text.replace("@%s@" % key, value)
    return text


def _tox_file(words, found):
    envs = "".join(_env_section(interpreter) for interpreter in found)
    envlist = ", ".join([i.name for i in found] + ["report"])
    return _filled("tox-gilbench.ini.tmpl", dict(
        words, ENVLIST=envlist, ENVS=envs, SOURCE=_gilbench_source()))


def _env_section(interpreter):
    lines = ["", "[testenv:%s]" % interpreter.name]
    if interpreter.gil_on:
        lines.append("# The same binary with the GIL forced on (pyperf passes "
                     "PYTHON_GIL\n# to its workers).")
    lines.append("basepython = " + interpreter.basepython)
    if interpreter.seed_current:
        lines.append("# virtualenv 20.21's seeded pip predates this "
                     "interpreter: seed current ones.")
        lines.append("download = true")
    if interpreter.free_threaded:
        lines += ["deps =",
                  "    -r {[gilbench]source}/requirements-freethreaded.txt",
                  "    -r {[gilbench]source}/requirements-build.txt"]
    if interpreter.gil_on:
        lines.append("setenv = PYTHON_GIL = 1")
    return "\n".join(lines) + "\n"


def _ci_python(interpreter):
    """How the workflow gets an env's interpreter: ("python", what
    setup-python installs) or ("container", the image that has it)."""
    claim = envnames.named(interpreter.name)
    if claim.version == (2, 7):
        return "container", "python:2.7"  # setup-python has none
    version = ".".join(str(part) for part in claim.version)
    if claim.pypy:
        return "python", "pypy" + (version if len(claim.version) > 1
                                   else "3.10")
    return "python", version + ("t" if claim.free_threaded else "")


def _matrix():
    """The workflow's matrix entries: every known interpreter, in order."""
    return "\n".join('          - {env: %s, %s: "%s"}'
                     % ((i.name,) + _ci_python(i)) for i in envnames.KNOWN)


def _gilbench_source():
    """The clone this gilbench was installed from, where pip recorded it
    (PEP 610) or this is one; else a placeholder to edit."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(
        templates.__file__)))
    if os.path.isfile(os.path.join(here, "setup.py")):
        return here
    try:
        from importlib.metadata import distribution
        url = json.loads(distribution("gilbench").read_text(
            "direct_url.json") or "{}").get("url", "")
    except Exception:  # 2.7, or no record: the user names it
        url = ""
    if url.startswith("file://"):
        return url[len("file://"):]
    return "/path/to/gilbench"


def _on_path(program):
    try:
        from shutil import which
    except ImportError:  # Python 2.7
        from distutils.spawn import find_executable as which
    return which(program) is not None


def _write_new(root, path, text):
    target = os.path.join(root, path)
    if os.path.exists(target):
        print("kept %s: it exists (delete it to have it written again)"
              % path)
        return
    directory = os.path.dirname(target)
    if directory and not os.path.isdir(directory):
        os.makedirs(directory)
    with open(target, "w") as stream:
        stream.write(text)
    print("wrote " + path)
