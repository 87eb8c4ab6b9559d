"""The three ways a case is driven, and what a value means under each.

* ``threads``: ``work(loops)`` in N threads of one process
  (:mod:`gilbench.fanout`);
* ``processes``: ``work(loops)`` in N worker processes (:mod:`gilbench.procs`);
* ``custom``: the case's own ``time_it(loops) -> seconds`` (executor phases,
  a server with its clients), timed as it says.

Under threads or processes, when what prepare() returned has an
``after_value(wall, returns)`` method, it is called after every value,
outside the clock, with the value's wall seconds and what each worker's
``work(loops)`` returned (worker order): a case checks or counts what its
workers produced there and ``record()``s it, without driving them itself.

:func:`make_timer` turns what a spec's prepare() returned into the
``timer(loops) -> (seconds, cpu_utilisation)`` the pyperf program calls.
"""
from gilbench import axes

THREADS = "threads"
PROCESSES = "processes"
CUSTOM = "custom"
DRIVERS = (THREADS, PROCESSES, CUSTOM)

_VALUE_MEANS = {
    THREADS: "wall seconds per loop; in one loop each of the `threads` "
             "threads makes one call, all started together, timed until "
             "the last one finishes",
    PROCESSES: "wall seconds per loop; in one loop each of the `processes` "
               "worker processes makes one call, all released together, "
               "timed until the last one finishes",
    CUSTOM: None,  # the case must say
}
_COUNT_AXES = {THREADS: "threads", PROCESSES: "processes", CUSTOM: None}
_DEFAULT_AXES = {THREADS: axes.threads, PROCESSES: axes.processes}


def value_means(driver):
    return _VALUE_MEANS.get(driver)


def count_axis(driver):
    """The axis whose value is the driver's concurrency, if any."""
    return _COUNT_AXES.get(driver)


def with_default_axes(driver, declared):
    """A threads or processes case gets the default count axis unless it
    declares its own (e.g. threads 1-4 instead of 1-5)."""
    name = count_axis(driver)
    if name and not any(axis.name == name for axis in declared):
        return declared + [_DEFAULT_AXES[driver]()]
    return declared


class Timer(object):
    """``timer(loops) -> (wall seconds, cpu utilisation)``; ``close()``
    ends what the driver (and the case) set up."""

    def __init__(self, measure, closers):
        self._measure = measure
        self._closers = closers

    def __call__(self, loops):
        return self._measure(loops)

    def close(self):
        for close in self._closers:
            close()


def make_timer(bench, prepared, pin, respawn):
    """Bind what ``bench.spec.prepare()`` returned to its driver.

    ``pin``: a :class:`gilbench.pinning.Pinning` or None; ``respawn``: a
    picklable callable that makes the work again, for workers that must
    be spawned (:class:`gilbench.registry.Respawn`).
    """
    from gilbench import fanout, metrics, procs
    driver = bench.spec.driver
    closers = [prepared.close] if hasattr(prepared, "close") else []
    after_value = getattr(prepared, "after_value", None)
    if driver == THREADS:
        count = bench.params["threads"]

        def measure(loops):
            result = fanout.run_threads(prepared, count, loops, pin)
            if after_value is not None:
                after_value(result.wall, result.returns)
            return result.wall, result.cpu_utilisation
        return Timer(measure, closers)
    if driver == PROCESSES:
        team = procs.ProcessTeam(prepared, bench.params["processes"], pin,
                                 respawn,
                                 keep_returns=after_value is not None)

        def measure_team(loops):
            wall, utilisation, returns = team.run(loops)
            if after_value is not None:
                after_value(wall, returns)
            return wall, utilisation
        return Timer(measure_team, [team.close] + closers)

    def measure_custom(loops):
        clock = metrics.TreeCpuClock()
        result = prepared(loops)
        if isinstance(result, tuple):  # the case timed its own CPU too
            wall, cpu_seconds = result
            return wall, cpu_seconds / wall if wall > 0 else 0.0
        return result, clock.utilisation(result)
    return Timer(measure_custom, closers)
