"""``gilbench timeit --python A --python B ... STMT``: the same statement
on several interpreters in one command, and one answer table with a
column per interpreter.

Each interpreter runs ``gilbench timeit`` itself (so each needs gilbench
importable: checked first, and said in one line when one has not), into
its own result file; this interpreter's report side then answers from
all of them (Python >= 3.9; older ones print where the files are).

Worker side: Python 2.7-compatible.
"""
from __future__ import print_function

import os
import subprocess
import sys
import tempfile

from gilbench.errors import UsageError
from gilbench.runner import judging, runoptions

# Options of ours that a single-interpreter run must not see again.
_DROPPED = ("--python", "-o", "--output")


def single_run_arguments(argv):
    """``argv`` less --python and -o/--output (with their values)."""
    return runoptions.without(argv, _DROPPED)


def _call(command):
    """(exit code, stderr) of ``command``, its stdout discarded (2.7 has
    no subprocess.run)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE,
                               universal_newlines=True, env=_environment())
    _, stderr = process.communicate()
    return process.returncode, stderr


def _environment():
    """This process's environment; where this interpreter judges
    findings and none is named, it judges the others' rounds too (an
    interpreter without the report side sizes them by spread alone)."""
    environ = dict(os.environ)
    mine = judging.judge_python()
    if mine and judging.ENVIRONMENT not in environ:
        environ[judging.ENVIRONMENT] = mine
    return environ


def check_interpreter(python):
    """One line when ``python`` cannot run gilbench."""
    if not (os.path.isfile(python) and os.access(python, os.X_OK)):
        raise UsageError("--python %s: no such interpreter" % python)
    code, stderr = _call([python, "-c", "import gilbench"])
    if code != 0:
        said = stderr.strip().splitlines() or ["exit code %d" % code]
        raise UsageError("--python %s: gilbench is not importable there "
                         "(%s); install it into that interpreter: python "
                         "-m pip install './gilbench'" % (python, said[-1]))


def _directory(output):
    if output is None:
        return tempfile.mkdtemp(prefix="gilbench-timeit-")
    if not os.path.isdir(output):
        raise UsageError("-o %s: with --python, -o names an existing "
                         "directory for the result files" % output)
    return output


def main(argv, args, stmt):
    for python in args.python:
        check_interpreter(python)
    if args.dry_run:  # each interpreter's plan, printed as it makes it
        for python in args.python:
            print("gilbench timeit: %s" % python)
            sys.stdout.flush()
            code = subprocess.call([python, "-m", "gilbench", "timeit"]
                                   + single_run_arguments(argv))
            if code:
                return code
        return 0
    directory = _directory(args.output)
    rest = single_run_arguments(argv)
    paths, code = [], 0
    for index, python in enumerate(args.python, 1):
        path = os.path.join(directory, "timeit-%d.json" % index)
        print("gilbench timeit: %s ..." % python, file=sys.stderr)
        returned, stderr = _call([python, "-m", "gilbench", "timeit"] + rest
                                 + ["-o", path])
        if returned != 0 or not os.path.exists(path):
            said = stderr.strip().splitlines()
            print("gilbench timeit: %s failed: %s" % (
                python, said[-1] if said else "exit code %d" % returned),
                file=sys.stderr)
            if returned == 2:
                return 2  # the statement itself is bad input there
            code = returned or 1
            continue
        paths.append(path)
    for line in _answers(paths, stmt):
        print(line)
    return code


def _answers(paths, stmt):
    found = ["Results: %s" % ", ".join(paths)] if paths else []
    if not paths or sys.version_info < (3, 9):
        return found + (["Answers: gilbench report %s (Python >= 3.9)"
                         % " ".join(paths)] if paths else [])
    try:
        from gilbench.report.tables import timeit_answers
    except ImportError as exc:
        return found + ["Answers: gilbench report %s, where the report "
                        "extra is installed (%s)" % (" ".join(paths), exc)]
    return timeit_answers.table_lines(paths, stmt) + found
