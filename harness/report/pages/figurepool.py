"""Draws the HTML page's figures in worker processes.

matplotlib is single-threaded and a figure takes tens of milliseconds (a
facet's axes, ticks and lines are hundreds of Python objects), so a page
of many figures draws them in forked workers, one per usable CPU.  Each
worker's first figure would also pay for importing matplotlib (and scipy,
for the scalability-law fits) and loading its fonts, about a second of
CPU: ``Workers`` does that once, in this process (which needs scipy for
its own intervals anyway), and then forks them, so they share it.  A fork
shares, on purpose, what this process holds (the loaded results,
matplotlib's modules, its font cache and rcParams; no thread runs when it
forks), and hands back only Plots.  A ``Drawing`` hands them each
figure as soon as its tables are made (html.Figures), and they draw while
the report makes the rest and computes its findings.  Figures handed out
together go longest first (their facets and series tell), so that no
worker is left alone with a big one at the end; and should a worker die,
what it left undrawn is drawn here.
"""
from __future__ import annotations

import gc
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


def warm(fits):
    """What each worker's first figure would otherwise do: import
    matplotlib's SVG backend (and scipy when there may be ``fits``) and
    measure a text in the figures' font; once a process."""
    done = _WARMED.get("fits")
    if done is not None and done >= fits:
        return
    from matplotlib import rc_context
    from matplotlib.figure import Figure
    with rc_context({"svg.fonttype": "none", "font.family": "sans-serif",
                     "font.size": 8}):
        fig = Figure(figsize=(1, 1))
        fig.subplots().set_title("0")
        fig.savefig(io.StringIO(), format="svg")
    if fits:
        from scipy import optimize, stats  # noqa: F401
    _WARMED["fits"] = fits


# What warm did in this process: {"fits": whether with scipy}.
_WARMED = {}


# The workers' niceness above this process's: they draw on what CPU the
# tables and findings leave, and the page waits on those, not on the
# figures, which are drawn before they are made.
NICER = 10


def _start():
    # What the fork inherited (the loaded results, this process's tables)
    # stays put until the worker exits: frozen, the collections that
    # matplotlib's cycles call for walk only what the worker makes (and
    # leave the inherited pages unwritten, so still shared).
    gc.freeze()
    gc.enable()
    try:
        os.nice(NICER)
    except OSError:  # not permitted here: drawn at this process's priority
        pass


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
    """Worker processes started ahead of the figures, forked once this
    process is warm (``warm``): a context manager; ``pool`` is None where
    drawing here is better."""

    def __init__(self, figures, fits=False):
        self.pool = None
        count = worker_count(figures)
        if not count:
            return
        warm(fits)
        # matplotlib makes a cycle of every figure: its workers collect
        # them, whether or not this process does (report.collector).
        self.pool = ProcessPoolExecutor(
            count, mp_context=multiprocessing.get_context("fork"),
            initializer=_start)
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
    drawing = Drawing(workers)
    drawing.add(jobs)
    return drawing.result()


class Drawing:
    """Figures being drawn: the jobs given to ``add`` are handed to
    ``workers``' pool at once, when it has one, so that they are drawn
    while this process goes on (the tables, the findings); else drawn
    when asked for, as ``draw`` says.  ``result()`` waits for their
    Plots, in the order they were added."""

    def __init__(self, workers=None):
        self.pool = workers.pool if workers is not None else None
        self.jobs = []
        self.pending = []  # (job index, future or None: draw it here)

    def add(self, jobs):
        """Hand out ``jobs``, longest first; their indices among the
        jobs added."""
        first = len(self.jobs)
        self.jobs += jobs
        if self.pool is not None:
            self.pending += _submit(self.pool, self.jobs, range(first,
                                                                len(self.jobs)))
        return range(first, len(self.jobs))

    def result(self):
        if self.pool is not None:
            return _collect(self.jobs, self.pending)
        if worker_count(len(self.jobs)):
            with Workers(len(self.jobs)) as own:
                if own.pool is not None:
                    return _draw_in(own.pool, self.jobs)
        return [_draw(job) for job in self.jobs]


def _submit(pool, jobs, which=None):
    """(job index, future) pairs of ``which`` jobs (all by default),
    longest first; None for the future where the pool broke before
    taking them all (``_collect`` draws those here)."""
    which = range(len(jobs)) if which is None else which
    order = sorted(which, key=lambda k: -cost(jobs[k][0]))
    pending = []
    try:
        for k in order:
            pending.append((k, pool.submit(_draw, jobs[k])))
    except BrokenProcessPool:
        pending += [(k, None) for k in order[len(pending):]]
    return pending


def _collect(jobs, pending):
    drawn = {}
    try:
        for k, future in pending:
            if future is None:
                raise BrokenProcessPool("not submitted")
            drawn[k] = future.result()
    except BrokenProcessPool:
        # A worker died (killed, out of memory): the rest are drawn here.
        for k, _ in pending:
            if k not in drawn:
                drawn[k] = _draw(jobs[k])
    return [drawn[k] for k in range(len(jobs))]


def _draw_in(pool, jobs):
    return _collect(jobs, _submit(pool, jobs))
