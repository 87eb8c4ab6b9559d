"""Executor family: which concurrent.futures executor to pick, and what its
start-up, transfer and shut-down cost (the PEP 554 executor write-up).

A *batch* is ``tasks`` tasks of one ``workload`` submitted together and
waited for; every result the pool returns is checked (nbody energy, kernel
state, echoed payload) and a wrong one fails the benchmark.  Methods:

* ``serial``: the same tasks in a loop in the caller (the baseline);
* ``pickle``: what a pool pays to move each task and its result: pickle and
  unpickle both, without running the task;
* ``thread``: ``ThreadPoolExecutor``;
* ``process-fork``, ``process-forkserver``, ``process-spawn``:
  ``ProcessPoolExecutor`` with that start method (2.7: fork only);
* ``interp``: a pool of subinterpreters, each with its own GIL: the stdlib
  ``InterpreterPoolExecutor`` (3.14+), else
  ``gilbench.measure.interpreterpool``'s (3.13 ``_interpreters``, 3.12
  ``_xxsubinterpreters``, with channels).

Workloads (extensions/executor.py): ``trivial`` (``abs(-1)``), ``sleep``
(releases the GIL), ``nbody`` (pure Python, holds it) and ``native`` (a C
loop inside Cython's ``with nogil``); ``task_ms`` is the nominal size of one
task (exact for sleep; fixed step counts for nbody and native, about that
long on CPython 3.11 here).  ``payload=large`` gives every task 1 MiB of
bytes and a list of 100k ints as argument and result.

Phases, each its own benchmark: ``warm`` = a batch on a live executor
(created and run once before the clock); ``cold`` = create the executor
and run its first batch; ``teardown`` = ``shutdown(wait=True)`` after a
batch.  A value is wall seconds per batch (cold: per executor start and
first batch; teardown: per shutdown).  Every run records ``cpu_percent``
(CPU time of the process tree -- pool processes included -- over the timed
windows only; cold and teardown: of the first loop of each value),
``peak_uss_bytes`` and ``peak_pss_bytes`` (USS and PSS
summed over the process tree with the executor live after a batch; the
largest sample) and ``tasks_checked``.

Findings (the PEP 554 write-up's Method | Warm | Cold | Teardown table):
the fastest method per workload at 4 workers warm, and by what margin;
the slowest cold start and the slowest teardown; and the
subinterpreter pool's speedup over serial for nbody, the workload only
processes and own-GIL subinterpreters can run in parallel.
"""
import pickle
import sys

from gilbench.api import (CUSTOM, HIGHEST, Axis, CaseSpec, TreeCpuClock,
                          Unavailable, best, counts, efficiency, finding,
                          import_extension, perf_counter, record, recorded,
                          speedup, table, value)
from gilbench.measure.interpreterpool import (interpreters_unavailable,
                                              make_interpreter_pool)

FAMILY = "executor"
ORDER = 40
# The default run measures these; the others run when --param names them
# (e.g. --param method=pickle,process-spawn), to keep the default run of
# the family near two minutes per interpreter.
DEFAULT_METHODS = ["serial", "thread", "process-fork", "interp"]
EXTRA_METHODS = ["pickle", "process-forkserver", "process-spawn"]
METHODS = ["serial", "pickle", "thread", "process-fork",
           "process-forkserver", "process-spawn", "interp"]
IN_CALLER = ("serial", "pickle")
WORKLOADS = ["trivial", "sleep", "nbody", "native"]
PHASES = ["warm", "cold", "teardown"]
PROTOCOL = pickle.HIGHEST_PROTOCOL
FLOAT_TOLERANCE = 1e-12
NATIVE_MODULE = "gilbench.extensions._executor_cy"


def _futures():
    try:
        import concurrent.futures
    except ImportError as exc:
        raise Unavailable("concurrent.futures missing (on Python 2.7 it is "
                          "the futures backport) (%s)" % exc)
    return concurrent.futures


def native_in_subinterpreter():
    """None, or why the native kernel cannot be imported in an own-GIL
    subinterpreter (Cython < 3.1, or a build without module state)."""
    pool = make_interpreter_pool(1)
    try:
        from gilbench.extensions import executor as tasks
        pool.submit(tasks.task, "native", 0, None).result()
    except Exception as exc:  # noqa: BLE001 -- the reason is the point
        return "%s does not import in an own-GIL subinterpreter (%s)" % (
            NATIVE_MODULE, exc)
    finally:
        pool.shutdown(wait=True)
    return None


# --- methods ----------------------------------------------------------------

def make_executor(method, workers):
    """A fresh executor for a pool method."""
    futures = _futures()
    if method == "thread":
        return futures.ThreadPoolExecutor(max_workers=workers)
    if method == "interp":
        return make_interpreter_pool(workers)
    start = method.split("-", 1)[1]
    if sys.version_info[0] < 3:
        return futures.ProcessPoolExecutor(max_workers=workers)
    import multiprocessing
    return futures.ProcessPoolExecutor(
        max_workers=workers, mp_context=multiprocessing.get_context(start))


def check(params):
    """Unavailable unless the method and workload can run here."""
    method = params["method"]
    if method not in IN_CALLER:
        _futures()
    if method.startswith("process-") and method != "process-fork":
        start = method.split("-", 1)[1]
        if sys.version_info[0] < 3:
            raise Unavailable("Python 2.7's futures backport has no "
                              "mp_context: ProcessPoolExecutor only forks")
        import multiprocessing
        if start not in multiprocessing.get_all_start_methods():
            raise Unavailable("no %s start method on this platform" % start)
    if method == "interp":
        reason = interpreters_unavailable()
        if reason:
            raise Unavailable(reason)
    if params["workload"] == "native":
        import_extension(NATIVE_MODULE)


def exclude(params):
    method, phase = params["method"], params["phase"]
    if method in IN_CALLER and phase != "warm":
        return "%s runs in the caller: no executor to start or shut down" % (
            method,)
    if method == "pickle" and params["workers"] != 1:
        return ("pickling runs in the caller, whatever the workers: "
                "measured at workers=1")
    # Budget: each benchmark costs seconds of process starts and pool
    # set-up, so start-up, shutdown and transfer are measured once each.
    if phase != "warm" and (params["workload"] != "trivial"
                            or params["payload"] != "none"):
        return ("cold start and teardown are measured on the trivial "
                "workload without payload (a task's own time is in warm)")
    if params["payload"] != "none" and params["workload"] != "trivial":
        return ("the large payload is measured on the trivial workload, "
                "where its transfer cost is not hidden by the task's time")
    return None


def concurrency(params):
    return 1 if params["method"] in IN_CALLER else params["workers"]


# --- timing -----------------------------------------------------------------

class Batch(object):
    """One batch's tasks, their expected results, and the checks."""

    def __init__(self, params):
        from gilbench.extensions import executor as tasks
        self.tasks = tasks
        self.payload_kind = params["payload"]
        self.args = (params["workload"], params["task_ms"],
                     tasks.make_payload(self.payload_kind))
        self.count = params["tasks"]
        self.expected = tasks.WORKLOADS[params["workload"]](
            params["task_ms"])
        self.checked = 0

    def serial(self):
        return [self.tasks.task(*self.args) for _ in range(self.count)]

    def pickled(self):
        """Each task and its result pickled and unpickled, not run."""
        result = (self.expected, self.args[2])
        out = []
        for _ in range(self.count):
            fn, args = pickle.loads(pickle.dumps((self.tasks.task, self.args),
                                                 PROTOCOL))
            if fn is not self.tasks.task or args[:2] != self.args[:2]:
                raise RuntimeError("pickle round-trip changed the task")
            out.append(pickle.loads(pickle.dumps(result, PROTOCOL)))
        return out

    def on(self, pool, count=None):
        futures = [pool.submit(self.tasks.task, *self.args)
                   for _ in range(self.count if count is None else count)]
        return [future.result() for future in futures]

    def check(self, batches, count=None):
        """Check the results of each batch in ``batches`` (of ``count``
        tasks, by default the batch's).  Workloads are deterministic, so
        each distinct result is checked once: the checks follow every
        value, off the clock, over every batch of the value."""
        count = self.count if count is None else count
        if any(len(results) != count for results in batches):
            raise RuntimeError("a batch returned %r results for %d tasks"
                               % (sorted(set(map(len, batches))), count))
        pairs = [pair for results in batches for pair in results]
        for got in set(got for got, _ in pairs):
            if not self._same(got):
                raise RuntimeError("wrong task result %r (expected %r)"
                                   % (got, self.expected))
        if not self.tasks.check_payloads(self.payload_kind,
                                         [echoed for _, echoed in pairs]):
            raise RuntimeError("payload came back wrong")
        self.checked += len(pairs)

    def _same(self, got):
        if isinstance(self.expected, float):
            return abs(got - self.expected) <= FLOAT_TOLERANCE
        return got == self.expected


def tree_memory():
    """(USS, PSS or None) of this process and its descendants, summed.

    USS alone undercounts a forked pool: pages the parent shares
    copy-on-write with its children are unique to none of them.  PSS
    (Linux) splits every shared page among its sharers, so the tree's sum
    is what the tree costs.
    """
    import psutil
    me = psutil.Process()
    uss, pss = 0, 0
    for proc in [me] + me.children(recursive=True):
        try:
            info = proc.memory_full_info()
        except psutil.Error:
            continue
        uss += info.uss
        pss = None if pss is None else pss + getattr(info, "pss", 0)
        if not hasattr(info, "pss"):
            pss = None
    return uss, pss


class Phase(object):
    """``time_it(loops)`` for one phase; shuts its executor down in
    close()."""

    def __init__(self, params):
        self.params = params
        self.method = params["method"]
        self.batch = Batch(params)
        self.peak_uss = 0
        self.peak_pss = None
        self.cpu = 0.0
        self.wall = 0.0
        self.pool = None
        self.sampled = (0.0, 0.0)  # (CPU, wall) seconds of the last sample

    def sample_memory(self):
        uss, pss = tree_memory()
        self.peak_uss = max(self.peak_uss, uss)
        if pss is not None:
            self.peak_pss = max(self.peak_pss or 0, pss)

    def finish(self, total):
        """Record the run's facts; return (``total`` wall seconds, CPU
        seconds) for the driver, the CPU of the call's sampled window
        scaled to ``total`` (cold, teardown: the first loop stands for
        the others)."""
        record(tasks_checked=self.batch.checked,
               peak_uss_bytes=self.peak_uss,
               cpu_percent=100.0 * self.cpu / self.wall if self.wall else 0.0)
        if self.peak_pss is not None:
            record(peak_pss_bytes=self.peak_pss)
        cpu, wall = self.sampled
        return total, cpu * total / wall if wall else 0.0

    def timed(self, action, sample=True):
        """Run action() on the clock; returns (its result, wall).  With
        ``sample``, its CPU time over the process tree counts towards
        cpu_percent (reading the tree's CPU scans /proc: once per call of
        the time function, not per loop)."""
        clock = TreeCpuClock() if sample else None
        start = perf_counter()
        result = action()
        wall = perf_counter() - start
        if clock is not None:
            self.sampled = (clock.elapsed(), wall)
            self.cpu += self.sampled[0]
            self.wall += wall
        return result, wall

    def close(self):
        if self.pool is not None:
            pool, self.pool = self.pool, None
            pool.shutdown(wait=True)


class Warm(Phase):
    def __init__(self, params):
        Phase.__init__(self, params)
        if self.method == "serial":
            self.run = self.batch.serial
        elif self.method == "pickle":
            self.run = self.batch.pickled
        else:
            self.pool = make_executor(self.method, params["workers"])
            self.run = lambda: self.batch.on(self.pool)
        if self.pool is not None:
            # Start the workers a batch uses before the clock (pyperf's
            # warmup would, but warm must hold with --warmups 0 too): one
            # task each does it.
            starting = min(self.batch.count, params["workers"])
            self.batch.check([self.batch.on(self.pool, starting)], starting)
            self.sample_memory()

    def __call__(self, loops):
        def batches():
            return [self.run() for _ in range(loops)]
        results, wall = self.timed(batches)
        self.batch.check(results)
        if not self.peak_uss:  # in the caller: no priming batch sampled
            self.sample_memory()
        return self.finish(wall)


class Cold(Phase):
    def __call__(self, loops):
        total = 0.0
        for index in range(loops):
            def start():
                self.pool = make_executor(self.method,
                                          self.params["workers"])
                return self.batch.on(self.pool)
            results, wall = self.timed(start, sample=index == 0)
            total += wall
            self.batch.check([results])
            if index == 0:
                self.sample_memory()
            self.close()
        return self.finish(total)


class Teardown(Phase):
    def __call__(self, loops):
        total = 0.0
        for index in range(loops):
            self.pool = make_executor(self.method, self.params["workers"])
            self.batch.check([self.batch.on(self.pool)])
            if index == 0:
                self.sample_memory()
            pool, self.pool = self.pool, None
            _, wall = self.timed(lambda: pool.shutdown(wait=True),
                                 sample=index == 0)
            total += wall
        return self.finish(total)


PHASE_CLASSES = {"warm": Warm, "cold": Cold, "teardown": Teardown}


def prepare(params):
    if params["method"] == "interp" and params["workload"] == "native":
        reason = native_in_subinterpreter()
        if reason:
            raise Unavailable(reason)
    return PHASE_CLASSES[params["phase"]](params)


CASES = [
    CaseSpec(
        FAMILY, "batch", "phases", "python", prepare,
        "a batch of `tasks` tasks on an executor (or in the caller), "
        "results checked", driver=CUSTOM,
        axes=[Axis("workload", WORKLOADS, quick=["sleep", "nbody"]),
              Axis("payload", ["none", "large"], quick=["none"]),
              Axis("method", DEFAULT_METHODS, extra=EXTRA_METHODS,
                   quick=["serial", "thread", "process-fork", "interp"]),
              counts("workers", (1, 4), (1, 2), "workers"),
              Axis("phase", PHASES, quick=["warm"]),
              counts("tasks", (4,), (2,), "tasks"),
              Axis("task_ms", [20], quick=[5], unit="ms", open=True,
                   minimum=0, maximum=10000)],
        value_means="wall seconds per batch of `tasks` tasks (warm); per "
        "executor creation and first batch (cold); per shutdown(wait=True) "
        "after a batch (teardown)",
        exclude=exclude, check=check, ops_per_loop="tasks",
        concurrency=concurrency),
]

_RESULTS = ("Every result the executor returned was checked; `tasks` tasks "
            "per batch.")
TABLES = [
    # Interpreters as columns (like every other table of the family), so
    # each phase is one table for all of them, not one per interpreter.
    table("Executor phases", rows="method",
          per=["phase", "workload", "payload", "workers"],
          cell=value(),
          note="Warm: a batch on a live executor; Cold: create it and run "
          "the first batch; Teardown: shutdown(wait=True). " + _RESULTS),
    table("Warm speedup over serial", rows="method",
          per=["workload", "payload", "workers"], where={"phase": "warm"},
          cell=speedup(over="method", baseline="serial"),
          note="The same batch run in the caller / on the executor."),
    table("CPU utilisation (warm)", rows="method",
          per=["workload", "payload", "workers"], where={"phase": "warm"},
          cell=recorded("cpu_percent", "%"),
          note="CPU time of the process tree (executor processes "
          "included) over the timed batches; 100% = one busy core."),
    table("Peak memory of the process tree (warm)", rows="method",
          per=["workload", "payload", "workers"], where={"phase": "warm"},
          cell=recorded("peak_pss_bytes", "B"),
          note="PSS summed over the benchmark process and its children "
          "with the executor live after a batch (USS would miss the pages "
          "a forked pool shares with its parent; the runs record the USS "
          "sum too, as peak_uss_bytes)."),
    table("Peak USS of the process tree (warm)", rows="method",
          per=["workload", "payload", "workers"], where={"phase": "warm"},
          cell=recorded("peak_uss_bytes", "B"),
          note="USS summed over the process tree: pages shared between "
          "the parent and forked workers count in none of them."),
    table("Warm speedup over serial, nbody", rows="method", per=["workers"],
          where={"phase": "warm", "workload": "nbody", "payload": "none"},
          cell=speedup(over="method", baseline="serial"),
          note="Pure Python holding the GIL: only processes, own-GIL "
          "subinterpreters and free-threaded threads can scale."),
    table("Warm speedup over serial, native kernel", rows="method",
          per=["workers"],
          where={"phase": "warm", "workload": "native", "payload": "none"},
          cell=speedup(over="method", baseline="serial"),
          note="C inside Cython's `with nogil`: threads scale too."),
]


def _point(workload, phase):
    return {"workload": workload, "phase": phase, "payload": "none",
            "workers": 4}


_FASTEST = best(over="method")
# Which method is fastest, and which starts or stops slowest, for a pool of
# 4 is a question on any machine (oversubscribed=True); a speedup at 4 is
# not one a machine with fewer CPUs can answer.
FINDINGS = [
    finding("Fastest method for a batch of %s tasks, 4 workers, warm?"
            % workload, _FASTEST, at=_point(workload, "warm"),
            evidence="Executor phases", oversubscribed=True)
    for workload in WORKLOADS
] + [
    finding("Slowest cold start (create the executor, first batch of "
            "trivial tasks), 4 workers?", best(over="method", pick=HIGHEST),
            at=_point("trivial", "cold"), evidence="Executor phases",
            oversubscribed=True),
    finding("Slowest teardown (shutdown after a batch of trivial tasks), "
            "4 workers?", best(over="method", pick=HIGHEST),
            at=_point("trivial", "teardown"), evidence="Executor phases",
            oversubscribed=True),
    finding("Subinterpreter pool speedup over serial for nbody, 4 workers, "
            "warm?", speedup(over="method", baseline="serial"),
            at=dict(_point("nbody", "warm"), method="interp"),
            evidence="Warm speedup over serial, nbody"),
    finding("A fork process pool's efficiency at 4 workers, nbody, warm "
            "(its 1-worker time / its 4-worker time / 4)?",
            efficiency(over="workers", scaled=False),
            at=dict(_point("nbody", "warm"), method="process-fork"),
            evidence="Warm speedup over serial, nbody"),
]
