"""Report side (Python >= 3.9): the HTML page's figures drawn in worker
processes (gilbench.report.pages.figurepool) -- how many, in what order,
and what happens when a worker dies."""
import os
import sys
from concurrent.futures import Future

import pytest

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

from gilbench.report.pages import figurepool, plots  # noqa: E402


def test_workers_for_many_figures_and_several_cpus(monkeypatch):
    monkeypatch.setattr(figurepool, "usable_cpus", lambda: 4)
    assert figurepool.worker_count(figurepool.PARALLEL_FROM - 1) == 0
    assert figurepool.worker_count(figurepool.PARALLEL_FROM) == 4
    assert figurepool.worker_count(50) == 4
    monkeypatch.setattr(figurepool, "usable_cpus", lambda: 1)
    assert figurepool.worker_count(50) == 0
    # None: no pool, and nothing to close.
    with figurepool.Workers(50) as workers:
        assert workers.pool is None


class Recorder:
    """A pool that draws at once, here, and notes the order it was
    asked in."""

    def __init__(self):
        self.asked = []

    def submit(self, function, job):
        self.asked.append(job[1])
        done = Future()
        done.set_result(function(job))
        return done


def test_longest_first_results_in_order(monkeypatch):
    monkeypatch.setattr(plots, "figure", lambda tables, gid, ceiling: gid)
    monkeypatch.setattr(figurepool, "cost", lambda tables: len(tables))
    jobs = [([1], "a", None), ([1, 2, 3], "b", None), ([1, 2], "c", None)]
    pool = Recorder()
    assert figurepool._draw_in(pool, jobs) == ["a", "b", "c"]
    assert pool.asked == ["b", "c", "a"]


def test_cost_counts_facets_and_series(monkeypatch):
    class Facet:
        def __init__(self, series):
            self.series = [None] * series
    monkeypatch.setattr(plots, "facets",
                        lambda tables: [Facet(n) for n in tables])
    assert figurepool.cost([]) == 0
    assert figurepool.cost([10, 2]) == 2 * 6 + 12


def _quiet_warm(fits, turn=None):
    """No matplotlib to import in these workers."""


def test_workers_draw_in_order_in_other_processes(monkeypatch):
    here = os.getpid()
    monkeypatch.setattr(figurepool, "usable_cpus", lambda: 2)
    monkeypatch.setattr(figurepool, "warm", _quiet_warm)
    monkeypatch.setattr(plots, "figure",
                        lambda tables, gid, ceiling: (gid, os.getpid()))
    monkeypatch.setattr(figurepool, "cost", lambda tables: 0)
    jobs = [([], "d%d" % k, None) for k in range(figurepool.PARALLEL_FROM)]
    with figurepool.Workers(len(jobs)) as workers:
        assert workers.pool is not None
        drawn = figurepool.draw(jobs, workers)
    assert [gid for gid, _ in drawn] == [job[1] for job in jobs]
    assert here not in {pid for _, pid in drawn}
    assert workers.pool is None  # shut down
    # Without workers started ahead, as many jobs get a pool of their own;
    # few are drawn here.
    assert {pid for _, pid in figurepool.draw(jobs)} - {here}
    assert {pid for _, pid in figurepool.draw(jobs[:2])} == {here}


def test_a_dead_worker_leaves_its_figures_to_this_process(monkeypatch):
    here = os.getpid()

    def figure(tables, gid, ceiling):
        if os.getpid() != here:
            os._exit(3)  # killed, out of memory...
        return gid

    monkeypatch.setattr(figurepool, "usable_cpus", lambda: 2)
    monkeypatch.setattr(figurepool, "warm", _quiet_warm)
    monkeypatch.setattr(plots, "figure", figure)
    jobs = [([], "d%d" % k, None) for k in range(figurepool.PARALLEL_FROM)]
    with figurepool.Workers(len(jobs)) as workers:
        assert figurepool.draw(jobs, workers) == [job[1] for job in jobs]


def test_a_figure_that_fails_is_an_error_not_a_fallback(monkeypatch):
    def figure(tables, gid, ceiling):
        raise ValueError("bad table %s" % gid)

    monkeypatch.setattr(figurepool, "usable_cpus", lambda: 2)
    monkeypatch.setattr(figurepool, "warm", _quiet_warm)
    monkeypatch.setattr(plots, "figure", figure)
    jobs = [([], "d%d" % k, None) for k in range(figurepool.PARALLEL_FROM)]
    with figurepool.Workers(len(jobs)) as workers:
        with pytest.raises(ValueError, match="bad table"):
            figurepool.draw(jobs, workers)


def test_warming_a_worker_draws_a_figure():
    pytest.importorskip("matplotlib")
    figurepool.warm(False)  # imports and measures: no error


def test_a_process_warms_once_and_again_only_for_fits(monkeypatch):
    """The report warms while its results load (render.ahead); the
    workers' start then finds it done, unless it now wants scipy too."""
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure
    drawn = []
    real = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda *a, **k: (
        drawn.append(True), real(*a, **k)))
    monkeypatch.setattr(figurepool, "_WARMED", {})
    figurepool.warm(False)
    figurepool.warm(False)
    assert len(drawn) == 1
    figurepool.warm(True)
    figurepool.warm(True)
    figurepool.warm(False)
    assert len(drawn) == 2


def test_which_declarations_draw_scalability_fits():
    from gilbench.model.tables import ratio, speedup, table
    scaled = speedup(over="threads", baseline=1, scaled=True)
    assert plots.speedup_over_counts(table("t", rows="threads",
                                           cell=scaled))
    assert not plots.speedup_over_counts(table("t", rows="case",
                                               cell=scaled))
    assert not plots.speedup_over_counts(table(
        "t", rows="threads", cell=speedup(over="threads", baseline=1)))
    assert not plots.speedup_over_counts(table(
        "t", rows="threads", cell=ratio(over="variant", numerator="nogil",
                                        denominator="gil")))


def test_no_fork_no_workers_all_drawn_here(monkeypatch):
    here = os.getpid()

    def no_fork(*args, **kwargs):
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(figurepool, "usable_cpus", lambda: 2)
    monkeypatch.setattr(figurepool.ProcessPoolExecutor, "submit", no_fork)
    monkeypatch.setattr(plots, "figure",
                        lambda tables, gid, ceiling: (gid, os.getpid()))
    jobs = [([], "d%d" % k, None) for k in range(figurepool.PARALLEL_FROM)]
    with figurepool.Workers(len(jobs)) as workers:
        assert workers.pool is None
        assert figurepool.draw(jobs, workers) == [(job[1], here)
                                                  for job in jobs]
    assert figurepool.draw(jobs) == [(job[1], here) for job in jobs]


def test_workers_collect_cycles_while_the_report_does_not(monkeypatch):
    """A report pauses the cyclic collector (report.collector); matplotlib
    makes a cycle of every figure, so its workers keep theirs on."""
    import gc

    from gilbench.report import collector
    monkeypatch.setattr(figurepool, "usable_cpus", lambda: 2)
    was = gc.isenabled()
    with collector.paused():
        assert not gc.isenabled()
        with figurepool.Workers(figurepool.PARALLEL_FROM) as workers:
            assert workers.pool is not None
            assert workers.pool.submit(gc.isenabled).result() is True
        assert not gc.isenabled()
    assert gc.isenabled() is was


def test_workers_yield_the_cpu_to_the_tables(monkeypatch):
    """The page waits on the tables, made here, not on the figures: the
    workers draw at a lower priority (figurepool.NICER)."""
    monkeypatch.setattr(figurepool, "usable_cpus", lambda: 2)
    with figurepool.Workers(figurepool.PARALLEL_FROM) as workers:
        theirs = workers.pool.submit(os.nice, 0).result()
    assert theirs == min(os.nice(0) + figurepool.NICER, 19)


def _collector_state(job):
    import gc
    return gc.isenabled(), gc.get_freeze_count()


def test_a_worker_collects_what_it_makes_and_freezes_what_it_inherited(
        monkeypatch):
    """matplotlib's cycles are collected in the workers; the results the
    fork inherited are frozen, so those collections do not walk them."""
    import gc
    monkeypatch.setattr(figurepool, "usable_cpus", lambda: 2)
    monkeypatch.setattr(figurepool, "warm", _quiet_warm)
    monkeypatch.setattr(figurepool, "_draw", _collector_state)
    inherited = [[k] for k in range(1000)]  # tracked containers
    was = gc.isenabled()
    gc.disable()  # as the report runs (report.collector)
    try:
        with figurepool.Workers(figurepool.PARALLEL_FROM) as workers:
            states = figurepool.draw(
                [([], "d%d" % k, None)
                 for k in range(figurepool.PARALLEL_FROM)], workers)
    finally:
        if was:
            gc.enable()
    assert inherited
    assert all(enabled and frozen >= len(inherited)
               for enabled, frozen in states)
