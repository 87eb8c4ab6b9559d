"""Draws the HTML page's figures in worker processes.

matplotlib is single-threaded and a figure takes tens of milliseconds (a
facet's axes, ticks and lines are hundreds of Python objects), so a page
of many figures draws them in forked workers, one per usable CPU.  A
worker's first figure would also pay for importing matplotlib (and scipy,
for the scalability-law fits) and loading its fonts, about a second:
``Workers`` forks them as soon as the results are loaded and warms them
while the report computes its tables, on a CPU that would otherwise
wait.  Figures are handed out longest first (their facets and series
tell), so that no worker is left alone with a big one at the end; and
should a worker die, what it left undrawn is drawn here.
"""
from __future__ import annotations

import io
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from gilbench.report.pages import plots

# Below this many figures, starting worker processes costs more than it
# saves.
PARALLEL_FROM = 8


def usable_cpus():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def worker_count(figures):
    """How many worker processes draw ``figures`` figures: one per usable
    CPU, none (draw them here) for few figures or on one CPU."""
    workers = min(usable_cpus(), figures)
    return workers if figures >= PARALLEL_FROM and workers >= 2 else 0


def warm(fits, turn=None):
    """What a worker's first figure would do once for all: import
    matplotlib's SVG backend (and scipy when there may be ``fits``) and
    measure a text in the figures' font.  ``turn``: a lock the workers
    take in turn, so that they warm one at a time, on the one CPU the
    report's tables leave (together they would slow those)."""
    if turn is not None:
        with turn:
            return warm(fits)
    from matplotlib import rc_context
    from matplotlib.figure import Figure
    with rc_context({"svg.fonttype": "none", "font.family": "sans-serif",
                     "font.size": 8}):
        fig = Figure(figsize=(1, 1))
        fig.subplots().set_title("0")
        fig.savefig(io.StringIO(), format="svg")
    if fits:
        from scipy import optimize, stats  # noqa: F401


def _ready():
    return os.getpid()


def _draw(job):
    tables, gid, ceiling = job
    return plots.figure(tables, gid, ceiling)


def cost(tables):
    """A figure's drawing time, roughly, in series: a facet (its axes and
    ticks) costs about six."""
    found = plots.facets(tables)
    return 6 * len(found) + sum(len(facet.series) for facet in found)


class Workers:
    """Worker processes started (and warmed) ahead of the figures: a
    context manager; ``pool`` is None where drawing here is better."""

    def __init__(self, figures, fits=False):
        self.pool = None
        count = worker_count(figures)
        if not count:
            return
        context = multiprocessing.get_context("fork")
        self.pool = ProcessPoolExecutor(
            count, mp_context=context, initializer=warm,
            initargs=(fits, context.Lock()))
        try:
            # A task each starts them now, not when the figures are asked
            # for.
            for _ in range(count):
                self.pool.submit(_ready)
        except (OSError, BrokenProcessPool):  # no fork: drawn here
            self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None


def draw(jobs, workers=None):
    """plots.figure(tables, gid, ceiling) for each job (a tuple of those):
    the Plots (or None) in order, drawn by ``workers`` (a Workers) when
    it has a pool, else by a pool of this call's own when there are many
    jobs, else here."""
    if workers is not None and workers.pool is not None:
        return _draw_in(workers.pool, jobs)
    if worker_count(len(jobs)):
        with Workers(len(jobs)) as own:
            if own.pool is not None:
                return _draw_in(own.pool, jobs)
    return [_draw(job) for job in jobs]


def _draw_in(pool, jobs):
    order = sorted(range(len(jobs)), key=lambda k: -cost(jobs[k][0]))
    drawn = {}
    try:
        pending = [(k, pool.submit(_draw, jobs[k])) for k in order]
        for k, future in pending:
            drawn[k] = future.result()
    except BrokenProcessPool:
        # A worker died (killed, out of memory): the rest are drawn here.
        for k in order:
            if k not in drawn:
                drawn[k] = _draw(jobs[k])
    return [drawn[k] for k in range(len(jobs))]
