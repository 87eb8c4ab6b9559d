"""``gilbench continuous BASE HEAD --module CASES``: did this change make
a call stop scaling?  Both revisions of the project, measured in one run.

Run from the project's root (or ``--directory``), with the interpreter
to measure on.  Each of BASE and HEAD, a git revision of the project (or
a directory holding one), is exported and built by this interpreter as
its own build system says (gilbench.runner.projectbuild), into a
directory of its own.  Then one ``gilbench run`` of the case modules
measures both: every case gets the axis ``revision`` (base, head;
gilbench.model.revisions), and the run's blocks take the two in turn,
so a machine that slows down slows both.  ``gilbench compare RESULT
--sides revision=base,head`` then answers, question by question, what
changed (on Python >= 3.9; the result file can be compared elsewhere).

Unless told (``--threads``, ``--time``), it measures the thread counts
the modules' findings read and 1, within a budget of :data:`BUDGET`
seconds.  Options other than these go to ``gilbench run`` (pyperf's
too).  Worker side: Python 2.7-compatible.
"""
from __future__ import print_function

import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

from gilbench.errors import PassThroughParser, UsageError
from gilbench.model import revisions
from gilbench.runner import projectbuild

COMPARE = ("gilbench compare %s --sides revision=base,head "
           "--fail-changed-answers")


def parser():
    parser = PassThroughParser(
        prog="gilbench continuous",
        description="Measure two revisions of this project in one run, "
        "in turn, so that the machine's speed cancels; then gilbench "
        "compare answers what changed.  Other options go to gilbench run.")
    parser.add_argument("base", metavar="BASE",
                        help="the revision before (a git commit, branch "
                        "or tag of the project, or a directory)")
    parser.add_argument("head", metavar="HEAD",
                        help="the revision after (HEAD: the checkout's "
                        "last commit; what is not committed is not "
                        "measured)")
    parser.add_argument("--module", action="append", required=True,
                        metavar="MODULE", help="the case module measuring "
                        "the project (a path or a dotted name); repeatable")
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the run's result JSON (both revisions)")
    parser.add_argument("--directory", default=".", metavar="DIR",
                        help="the project's root (default: here)")
    return parser


def main(argv, run_command):
    """``run_command(argv)``: ``gilbench run``'s (the command line's,
    which dispatches to this module)."""
    args, rest = parser().parse_known_args(argv)
    if "--fresh-workers" in rest:
        # A fresh pyperf worker would not know its revision's directory.
        raise UsageError("--fresh-workers: not with two revisions (each "
                         "worker is a fork of its revision's program)")
    root = os.path.abspath(args.directory)
    if not os.path.isdir(root):
        raise UsageError("--directory %r is not a directory" % args.directory)
    work = tempfile.mkdtemp(prefix="gilbench-continuous-")
    try:
        paths = [(name, build(root, revision, os.path.join(work, name)))
                 for name, revision in ((revisions.BASE, args.base),
                                        (revisions.HEAD, args.head))]
        code = measure(paths, args, rest, run_command)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if code == 0:
        print("Both revisions: %s\nWhat changed: %s"
              % (args.output, COMPARE % args.output))
    return code


def source(root, revision, directory):
    """A directory holding ``revision`` of the project at ``root``: the
    directory itself where it is one, else a git export of it."""
    given = os.path.join(root, revision)
    if os.path.isdir(given):
        return given
    try:
        process = subprocess.Popen(
            ["git", "-C", root, "archive", "--format=tar", revision],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as exc:
        raise UsageError("%s: not a directory, and git cannot run here "
                         "(%s)" % (revision, exc))
    data, said = process.communicate()
    if process.returncode != 0:
        lines = said.decode("utf-8", "replace").strip().splitlines()
        raise UsageError("%s: not a directory, nor a git revision of %s "
                         "(%s)" % (revision, root,
                                   lines[-1] if lines else "git failed"))
    exported = os.path.join(directory, "src")
    os.makedirs(exported)
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        archive.extractall(exported)
    return exported


def build(root, revision, directory):
    """Build ``revision`` into ``directory``/site with this interpreter;
    that directory.  A build that fails is one line (projectbuild's),
    and exit code 1 for the command."""
    os.makedirs(directory)
    tree = source(root, revision, directory)
    site = os.path.join(directory, "site")
    code = projectbuild.main([tree, "--", sys.executable, "-m", "pip",
                              "install", "--no-build-isolation", "--no-deps",
                              "-q", "--target", site, tree])
    if code != 0 or not os.path.isdir(site):
        raise BuildFailed("%s did not build here (above)" % revision)
    return site


class BuildFailed(Exception):
    """A revision that does not build: the command fails, naming it."""


def measure(paths, args, rest, run_command):
    """One run of the case modules with the revision axis; its exit
    code."""
    os.environ[revisions.ENVIRONMENT] = revisions.encode(paths, args.module)
    # The runner imports the project to tell what can run: the base's.
    sys.path.insert(0, paths[0][1])
    argv = []
    for module in args.module:
        argv += ["--module", module]
    told = [a.split("=")[0] for a in rest]
    counts = None if "--threads" in told or "--param" in told \
        else asked_counts(args.module, THREADS)
    if counts:
        argv += ["--threads", ",".join(str(c) for c in counts)]
    if not set(told) & {"--time", "--budget", "--design", "--quick"}:
        argv += ["--time", str(BUDGET)]
    return run_command(argv + ["-o", args.output] + rest)


# A check's default budget, in seconds: the rounds after the first looks
# go on until each revision's answers are decided or this is spent; run's
# own default (half the fixed recipe's estimate) is sized for a matrix of
# families, not for one module's few benchmarks.
BUDGET = 60


THREADS = "threads"


def asked_counts(module_names, axis):
    """The counts of ``axis`` the modules' findings read, with 1 (every
    speedup's baseline): what a check needs measured, where each finding
    names its count; None (the axis's own values) where one reads a curve
    along it (a fit, a crossover) or names none."""
    from gilbench.model import findings, machine, registry
    counts = {1}
    for _, declared in registry.load_specs(module_names):
        for found in declared.findings:
            at, cell = found.get("at", {}), found["cell"]
            if axis not in at or cell.get("along") == axis or \
                    cell.get("kind") in ("scaling", "crossover"):
                return None
            value = at[axis]
            counts.add(machine.planned() if value == findings.USABLE
                       else value)
    return sorted(counts)

