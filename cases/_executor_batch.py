"""The executor family's mechanics (cases/executor.py declares it): the
methods and the executors they make, which combinations run where, a
batch of tasks and its checks, the tree's memory, and the three phases'
timers.  What each means: docs/families/executor.rst.
"""
import pickle
import sys
import threading

from gilbench.api import (
    TreeCpuClock,
    Unavailable,
    import_extension,
    interpreter_pool_name,
    interpreters_unavailable,
    make_interpreter_pool,
    perf_counter,
    record,
)

# The default run measures these; the others run when --param names them
# (e.g. --param method=pickle,process-forkserver), to keep the default run
# of the family near two minutes per interpreter.
DEFAULT_METHODS = ["serial", "thread", "process-fork", "process-spawn",
                   "interp", "interp-stdlib"]
EXTRA_METHODS = ["pickle", "process-forkserver"]
METHODS = ["serial", "pickle", "thread", "process-fork",
           "process-forkserver", "process-spawn", "interp", "interp-stdlib"]
# The subinterpreter pools, each a kind of make_interpreter_pool: gilbench's
# own (3.12 on) and concurrent.futures.InterpreterPoolExecutor (3.14 on).
INTERPRETER_POOLS = {"interp": "gilbench", "interp-stdlib": "stdlib"}
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


def native_in_subinterpreter(kind):
    """None, or why the native kernel cannot be imported in an own-GIL
    subinterpreter of a ``kind`` pool (Cython < 3.1, or a build without
    module state)."""
    pool = make_interpreter_pool(1, kind=kind)
    try:
        from . import _executor_tasks as tasks
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
    if method in INTERPRETER_POOLS:
        return make_interpreter_pool(workers, kind=INTERPRETER_POOLS[method])
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
        _check_on_demand_workers(_futures().ProcessPoolExecutor)
    if method in INTERPRETER_POOLS:
        reason = interpreters_unavailable(INTERPRETER_POOLS[method])
        if reason:
            raise Unavailable(reason)
    if params["workload"] == "native":
        import_extension(NATIVE_MODULE)


def _check_on_demand_workers(pool_class):
    """Unavailable where the stdlib's pool cannot start workers on demand
    (as it does for spawn and forkserver): PyPy 3.9's, as Debian ships
    it, has submit() call a method it renamed."""
    called = getattr(pool_class.submit, "__code__", None)
    if (called is not None and "_adjust_process_count" in called.co_names
            and not hasattr(pool_class, "_adjust_process_count")):
        raise Unavailable("this interpreter's concurrent.futures."
                          "ProcessPoolExecutor.submit() calls "
                          "_adjust_process_count, which it lacks: its "
                          "spawn and forkserver pools cannot start workers")


def exclude(params):
    method, phase = params["method"], params["phase"]
    if method in IN_CALLER and phase != "warm":
        return "%s runs in the caller: no executor to start or shut down" % (
            method,)
    if method == "pickle" and params["workers"] != 1:
        return ("pickling runs in the caller, whatever the workers: "
                "measured at workers=1")
    # Spawn is in the default run for its start (the stdlib subinterpreter
    # pool's cold start is read against it); warm, its workers are fresh
    # processes as forkserver's are, and cost only time here.
    if method == "process-spawn" and phase == "warm":
        return ("process-spawn is measured at its start and shutdown; "
                "warm, its workers are fresh processes as "
                "process-forkserver's are (--param "
                "method=process-forkserver)")
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
        from . import _executor_tasks as tasks
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
        self.pool_name = None  # an interpreter pool's class, recorded
        self.sampled = (0.0, 0.0)  # (CPU, wall) seconds of the last sample

    def new_pool(self):
        """A fresh executor for the method, kept for close(); an
        interpreter pool's class is remembered for the run's metadata."""
        self.pool = make_executor(self.method, self.params["workers"])
        if self.method in INTERPRETER_POOLS:
            self.pool_name = interpreter_pool_name(self.pool)
        return self.pool

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
        if self.pool_name is not None:
            record(interpreter_pool=self.pool_name)
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
            self.new_pool()
            self.run = lambda: self.batch.on(self.pool)
        if self.pool is not None:
            # Start the workers a batch uses before the clock (pyperf's
            # warmup would, but warm must hold with --warmups 0 too): one
            # task each does it.
            starting = min(self.batch.count, params["workers"])
            if self.method == "thread":
                _all_threads_started(self.pool, starting)
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


def _all_threads_started(pool, count):
    """A thread pool reuses an idle thread instead of starting another (3.8
    on): ``count`` tasks that wait for one another need ``count`` threads
    at once.  2.7's futures backport starts one per task anyway."""
    barrier = getattr(threading, "Barrier", None)
    if barrier is None:
        return
    waiting = barrier(count)
    for future in [pool.submit(waiting.wait, 60) for _ in range(count)]:
        future.result()


class Cold(Phase):
    def __call__(self, loops):
        total = 0.0
        for index in range(loops):
            def start():
                return self.batch.on(self.new_pool())
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
            self.batch.check([self.batch.on(self.new_pool())])
            if index == 0:
                self.sample_memory()
            pool, self.pool = self.pool, None
            _, wall = self.timed(lambda: pool.shutdown(wait=True),
                                 sample=index == 0)
            total += wall
        return self.finish(total)


PHASE_CLASSES = {"warm": Warm, "cold": Cold, "teardown": Teardown}


def prepare(params):
    kind = INTERPRETER_POOLS.get(params["method"])
    if kind is not None and params["workload"] == "native":
        reason = native_in_subinterpreter(kind)
        if reason:
            raise Unavailable(reason)
    return PHASE_CLASSES[params["phase"]](params)
