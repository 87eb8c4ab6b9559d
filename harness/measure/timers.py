"""How each driver times one value: what a spec's prepare() returned,
bound to its driver as ``timer(loops) -> (wall seconds, cpu
utilisation)``, the function the pyperf program calls."""
from gilbench.measure import fanout, metrics, probe, procs
from gilbench.model.drivers import PROCESSES, THREADS


class Timer(object):
    """``timer(loops) -> (wall seconds, cpu utilisation)``; ``close()``
    ends what the driver (and the case) set up.  ``probes``: the machine
    probes its last call timed in the threads that did the work, where
    the driver's threads probe (the threads driver); else None."""

    def __init__(self, measure, closers, probing=False):
        self._measure = measure
        self._closers = closers
        self.probes = [] if probing else None

    def __call__(self, loops):
        return self._measure(loops)

    def close(self):
        for close in self._closers:
            close()


def make_timer(bench, prepared, pin, respawn):
    """Bind what ``bench.spec.prepare()`` returned to its driver.

    ``pin``: a :class:`gilbench.measure.pinning.Pinning` or None; ``respawn``:
    a picklable callable that makes the work again, for workers that must be
    spawned (:class:`gilbench.model.registry.Respawn`).
    """
    driver = bench.spec.driver
    closers = [prepared.close] if hasattr(prepared, "close") else []
    after_value = getattr(prepared, "after_value", None)
    if driver == THREADS:
        count = bench.params["threads"]

        def measure(loops):
            result = fanout.run_threads(prepared, count, loops, pin,
                                        probe.probe_ns)
            timer.probes = result.probes
            if after_value is not None:
                after_value(result.wall, result.returns)
            return result.wall, result.cpu_utilisation
        timer = Timer(measure, closers, probing=True)
        return timer
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

    times_own_cpu = []  # whether the case returned its CPU seconds

    def measure_custom(loops):
        clock = None if times_own_cpu else metrics.TreeCpuClock()
        result = prepared(loops)
        if isinstance(result, tuple):  # the case timed its own CPU too
            times_own_cpu.append(True)
            wall, cpu_seconds = result
            return wall, cpu_seconds / wall if wall > 0 else 0.0
        return result, clock.utilisation(result)
    return Timer(measure_custom, closers)
