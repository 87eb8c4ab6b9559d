"""Test families of every shape for the case model (tests/test_model_*.py).

* ``model.grid``: a threads case with two more axes (str and float) and a
  constraint that refuses one combination;
* ``model.meta``: a custom-driver case that records per-run metadata;
* ``model.window``: a processes case whose workers append their timed
  window (start, end, pid) to a file named by the environment, so a test
  can check that all N windows overlap (every process started before the
  clock);
* ``model.dies`` / ``model.stuck``: processes cases where worker 1 kills
  itself with SIGSEGV, or sleeps forever (the run's timeout ends it);
* ``model.tally``: threads and processes cases whose workers return what
  they did, recorded by ``after_value`` after each value.

Loaded by path in the harness, its children and their workers: standard
library and gilbench.api only.
"""
import os
import signal
import time

from gilbench.api import (PROCESSES, CUSTOM, Axis, CaseSpec, record, table,
                         throughput, value, worker_index)

FAMILY = "model"
WINDOW_FILE_ENV = "GILBENCH_TEST_WINDOWS"
EXCLUDED_REASON = "spin makes no sense with 0.5 ms"
RECORDED_KEY = "widgets_made"


def _adder(params):
    def work(loops):
        total = 0
        for i in range(loops):
            total += i
    return work


def _exclude(params):
    if params["kind"] == "spin" and params["hold_ms"] == 0.5:
        return EXCLUDED_REASON
    return None


def _custom(params):
    def time_it(loops):
        start = time.time()
        for _ in range(loops):
            sum(range(10))
        record(**{RECORDED_KEY: loops * params["size"]})
        return time.time() - start
    return time_it


def _window(params):
    path = os.environ.get(WINDOW_FILE_ENV)  # unset: a plain processes case

    def work(loops):
        start = time.time()
        deadline = start + 0.02  # long enough for every process to overlap
        total = 0
        while time.time() < deadline:
            for i in range(loops):
                total += i
        if path is None:
            return
        with open(path, "a") as stream:
            stream.write("%r %r %d %d\n" % (start, time.time(), os.getpid(),
                                             worker_index()))
    return work


def _dies(params):
    parent = os.getpid()

    def work(loops):
        if os.getpid() != parent:  # in a worker process, not the controller
            import resource
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file
            os.kill(os.getpid(), signal.SIGSEGV)
    return work


def _stuck(params):
    def work(loops):
        time.sleep(3600)
    return work


class _Tally(object):
    """Each worker returns (its index, its pid, loops); after each value
    the controller records what came back."""

    def __call__(self, loops):
        return worker_index(), os.getpid(), loops

    def after_value(self, wall, returns):
        indexes, pids, loops = zip(*returns)
        record(tally_indexes=",".join(str(i) for i in indexes),
               tally_pids=len(set(pids)), tally_loops=sum(loops),
               tally_wall_ok=int(wall > 0))


def _tally(params):
    return _Tally()


CASES = [
    CaseSpec(FAMILY, "grid", "v", "python", _adder, "two axes + threads",
             axes=[Axis("kind", ["mutex", "spin"], quick=["mutex"]),
                   Axis("hold_ms", [0.5, 2.0], quick=[0.5], unit="ms",
                        log=True)],
             exclude=_exclude),
    CaseSpec(FAMILY, "meta", "v", "python", _custom, "custom with record()",
             driver=CUSTOM, axes=[Axis("size", [1, 3], quick=[1])],
             value_means="wall seconds per loop of sum(range(10))"),
    CaseSpec(FAMILY, "window", "v", "python", _window,
             "processes that log their timed window", driver=PROCESSES),
    CaseSpec(FAMILY, "dies", "v", "python", _dies,
             "a worker process dies", driver=PROCESSES),
    CaseSpec(FAMILY, "stuck", "v", "python", _stuck,
             "worker processes hang", driver=PROCESSES),
    CaseSpec(FAMILY, "tally", "threads", "python", _tally,
             "threads return what they did"),
    CaseSpec(FAMILY, "tally", "processes", "python", _tally,
             "processes return what they did", driver=PROCESSES),
]

TABLES = [
    table("grid", rows="threads", per=["kind"], cell=value()),
    table("grid throughput", rows="threads", per=["kind"],
          cell=throughput()),
]
