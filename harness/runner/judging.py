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

from gilbench.measure import lifelines

ENVIRONMENT = "GILBENCH_JUDGE_PYTHON"
REPORT_MODULES = ("numpy", "scipy", "jinja2")


class Verdict(object):
    """What one judgement said: the benchmark names an undecided finding
    reads that more processes may decide at its point (``open``), those
    only an unsure one reads (``unsure``), how many answers are undecided
    and how many of them more processes cannot decide, the names each
    undecided answer reads (``answers``), and those every answer reads
    (``partners``)."""

    def __init__(self, open_names=(), undecided=0, cannot=0,
                 unsure_names=(), answers=(), partners=()):
        self.open = set(open_names)
        self.unsure = set(unsure_names)
        self.undecided = undecided
        self.cannot = cannot
        # The names each undecided answer reads: its partners.
        self.answers = [list(names) for names in answers]
        # The names every answer reads, decided or not.
        self.partners = [list(names) for names in partners]


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
    """A ``python -m gilbench judge --serve`` process, started at the
    first judgement and kept for the rest (its imports cost more than a
    judgement); one that fails is not asked again -- the rounds go on by
    spread alone -- and says why."""

    def __init__(self, python):
        self.python = python
        self.failed = None
        self._process = None

    def __call__(self, path):
        """A Verdict on the result file at ``path``, or None."""
        if self.failed:
            return None
        try:
            if self._process is None:
                self._process = subprocess.Popen(
                    [self.python, "-m", "gilbench", "judge", "--serve"],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, universal_newlines=True,
                    preexec_fn=lifelines.die_with_parent)
                lifelines.KEPT.add(self._process.pid)
            self._process.stdin.write(path + "\n")
            self._process.stdin.flush()
            line = self._process.stdout.readline()
        except (IOError, OSError) as exc:
            return self._fail("cannot ask %s: %s" % (
                self.python, getattr(exc, "strerror", None) or exc))
        if not line:
            return self._fail(self._last_words())
        told = json.loads(line)
        if "error" in told:
            return self._fail(told["error"])
        return Verdict(told["open"], told["undecided"], told["cannot"],
                       told.get("unsure", ()),
                       [answer[-1] for answer in told.get("answers", ())],
                       told.get("partners", ()))

    def _fail(self, why):
        self.failed = why
        self.close()
        return None

    def _last_words(self):
        """What a judge that ended said last on stderr."""
        self._process.stdin.close()
        said = [line for line in self._process.stderr.read().splitlines()
                if line.strip()]
        return said[-1] if said else "%s ended" % self.python

    def close(self):
        if self._process is not None:
            try:
                self._process.stdin.close()
            except (IOError, OSError):
                pass
            self._process.kill()
            self._process.wait()
            lifelines.KEPT.discard(self._process.pid)
            self._process = None
