"""Asking the report side which benchmarks an undecided finding still
needs, between an adaptive run's rounds.

The findings and their intervals are the report's (Python >= 3.9,
numpy): ``python -m gilbench judge FILE`` answers in JSON, in its own
process -- never imported here, so the runner that forks every benchmark
program stays free of numpy's threads.  Which Python judges:
``GILBENCH_JUDGE_PYTHON`` (``none``: no one), else this interpreter when
it has the report side, else none, and the rounds size each benchmark by
the spread of its processes alone (``gilbench refine`` decides the
findings later).  Worker side: Python 2.7-compatible.
"""
import json
import os
import subprocess
import sys

ENVIRONMENT = "GILBENCH_JUDGE_PYTHON"
REPORT_MODULES = ("numpy", "scipy", "jinja2")


class Verdict(object):
    """What one judgement said: the benchmark names an undecided finding
    reads (``open``), and how many answers are undecided and how many of
    them more processes cannot decide."""

    def __init__(self, open_names=(), undecided=0, cannot=0):
        self.open = set(open_names)
        self.undecided = undecided
        self.cannot = cannot


def _has_report_side():
    if sys.version_info < (3, 9):
        return False
    import importlib.util
    return all(importlib.util.find_spec(name) is not None
               for name in REPORT_MODULES)


def judge_python():
    """The Python that judges findings, or None (see the module's doc)."""
    told = os.environ.get(ENVIRONMENT)
    if told:
        return None if told.lower() == "none" else told
    return sys.executable if _has_report_side() else None


class Judge(object):
    """Calls ``python -m gilbench judge`` with ``python``; one that fails
    is not asked again (the rounds go on by spread alone) and says why."""

    def __init__(self, python):
        self.python = python
        self.failed = None

    def __call__(self, path):
        """A Verdict on the result file at ``path``, or None."""
        if self.failed:
            return None
        command = [self.python, "-m", "gilbench", "judge", path]
        try:
            process = subprocess.Popen(command, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE)
            out, err = process.communicate()
        except OSError as exc:
            self.failed = "cannot start %s: %s" % (self.python,
                                                   exc.strerror or exc)
            return None
        if process.returncode != 0:
            said = [line for line in err.decode("utf-8", "replace")
                    .splitlines() if line.strip()]
            self.failed = said[-1] if said else "exit code %d" % (
                process.returncode,)
            return None
        told = json.loads(out.decode("utf-8"))
        return Verdict(told["open"], told["undecided"], told["cannot"])
