"""The hand-over from ``gilbench timeit`` to its generated family: the
statement, its set-up, its name, its counts and whose objects the threads
use (their own set-up's, one shared set-up's, or both), as JSON in the
environment variable :data:`ENVIRONMENT`, which the run and every
benchmark program (and pyperf worker) inherit.

Worker side: Python 2.7-compatible.
"""
import json
import os

from gilbench.errors import UsageError

ENVIRONMENT = "GILBENCH_TIMEIT"
_KEYS = ("name", "stmt", "setup", "threads", "processes", "objects")
# The threads' objects: each thread's own (the set-up run once for each
# thread), or the one set-up's, shared by all (as python -m timeit).
OWN, SHARED = "own", "shared"


def encode(name, stmt, setup, thread_counts, process_counts,
           objects=(SHARED,)):
    """The :data:`ENVIRONMENT` value for a statement and its counts."""
    return json.dumps(dict(zip(_KEYS, (name, stmt, setup,
                                       list(thread_counts),
                                       list(process_counts),
                                       list(objects)))),
                      sort_keys=True)


def hand_over(spec):
    """Put ``spec`` where the generated family reads it."""
    os.environ[ENVIRONMENT] = encode(*[spec[key] for key in _KEYS])


def received():
    """The spec :func:`hand_over` gave; UsageError when there is none."""
    try:
        spec = json.loads(os.environ.get(ENVIRONMENT) or "")
    except ValueError:
        spec = None
    if not isinstance(spec, dict) or set(spec) != set(_KEYS):
        raise UsageError("%s holds no statement: the timeit family is "
                         "made by gilbench timeit" % ENVIRONMENT)
    return spec
