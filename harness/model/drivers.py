"""The three ways a case is driven, and what a value means under each.

* ``threads``: ``work(loops)`` in N threads of one process
  (:mod:`gilbench.measure.fanout`);
* ``processes``: ``work(loops)`` in N worker processes
  (:mod:`gilbench.measure.procs`);
* ``custom``: the case's own ``time_it(loops) -> seconds`` (executor phases,
  a server with its clients), timed as it says.

Under threads or processes, when what prepare() returned has an
``after_value(wall, returns)`` method, it is called after every value,
outside the clock, with the value's wall seconds and what each worker's
``work(loops)`` returned (worker order): a case checks or counts what its
workers produced there and ``record()``s it, without driving them itself.

:func:`gilbench.measure.timers.make_timer` turns what a spec's prepare()
returned into the timer the pyperf program calls.
"""
from gilbench.model import axes

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
