"""``python -m gilbench.measure.timeitprobe STATUS``: the statement's trial
run, in the target interpreter, before ``timeit`` starts measuring.

Compiles the statement, runs the set-up and one call, as a benchmark's
worker will, and writes what happened to the JSON file STATUS: the stage
it reached (rewritten before each, so a ``timeit`` that kills a hung
probe can say which part hung), the error naming what failed, or, when
all went well, the GIL state and the modules whose import re-enabled it
on a free-threaded build.  A probe of its own keeps a set-up that
crashes, hangs or re-enables the GIL out of ``timeit``'s process.

Worker side: Python 2.7-compatible.
"""
from __future__ import print_function

import json
import os
import sys

from gilbench.measure import gilguard, statement
from gilbench.model import modules, timeitspec

STAGES = ("compile", "setup", "first call", "done")


def _write(path, **facts):
    with open(path, "w") as stream:
        json.dump(facts, stream)


def probe(spec, status):
    """Each stage in turn; StatementError names the one that failed."""
    _write(status, stage="compile")
    statement.compile_loop(spec["stmt"], {})  # before a slow set-up
    _write(status, stage="setup")
    work = statement.prepare(spec["stmt"], spec["setup"])
    _write(status, stage="first call")
    statement.first_call(work)
    _write(status, stage="done", gil=gilguard.state(),
           reenabled_by=gilguard.reenabling_modules(),
           reenabled=gilguard.reenabled_reason() is not None)


def main(argv):
    status = argv[0]
    gilguard.install()
    spec = timeitspec.received()
    try:
        probe(spec, status)
    except statement.StatementError as exc:
        with open(status) as stream:
            stage = json.load(stream)["stage"]
        _write(status, stage=stage, error=str(exc))
    sys.stdout.flush()
    # Not sys.exit: threads or atexit hooks the set-up left must not keep
    # the probe alive past its answer.
    os._exit(0)


if __name__ == "__main__":
    modules.working_directory_last()  # as the benchmark programs do
    main(sys.argv[1:])
