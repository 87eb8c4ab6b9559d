"""``gilbench run``: every selected benchmark in its own pyperf
program, kept in a journal as it finishes, then one result file.

Each benchmark gets a child process (:mod:`gilbench.runner.child`), so a
case that raises, crashes or hangs costs only its own result: it is recorded as
"failed: ..." or "hung: ..." and the others are still written.  Each
finished benchmark is committed to the journal (:mod:`gilbench.runner.journal`)
at once, so a run killed at any moment loses nothing that had finished;
``--resume`` runs the rest.
"""
from __future__ import print_function

import os
import signal
import sys
import time

from gilbench.measure import gilguard, lifelines, program
from gilbench.model import design as designs
from gilbench.model import drivers, envnames, registry, timeitspec
from gilbench.model.registry import Unavailable
from gilbench.model.resultformat import ROUND_KEY
from gilbench.runner import (
    blocks,
    child,
    earlier_result,
    journal,
    judging,
    laterblocks,
    plan,
    progress,
    remeasure,
    results,
    rounds,
    stores,
    timing,
)

# Environment settings that change what the benchmarks measure (the
# statement gilbench timeit hands over, the processes driver's start
# method): a resumed run must see the same.  Test markers may differ.
MEASURED_SETTINGS = (timeitspec.ENVIRONMENT, "GILBENCH_START_METHOD",
                     "GILBENCH_WORKER_LAYOUT")


class Terminated(Exception):
    """SIGTERM, turned into an exception so the run can stop cleanly."""


def _on_sigterm(signum, frame):
    raise Terminated()


def availability(benchmarks):
    """{name: "n/a: ..." or "failed: ..."} for benchmarks that will not be
    started: excluded combinations and those whose spec's check() refuses
    (or raises) here.  prepare() itself runs only in the benchmark's
    child, so a set-up that hangs costs only its own result."""
    missing = {}
    for bench in benchmarks:
        reason = bench.excluded or _check(bench)
        if reason:
            missing[bench.name] = reason
    return missing


def _check(bench):
    if bench.spec.check is None:
        return None
    try:
        bench.spec.check(dict(bench.params))
    except Unavailable as exc:
        return "n/a: %s" % (exc,)
    except Exception as exc:  # a broken case costs only its own result
        return "failed: check() raised %s: %s" % (type(exc).__name__, exc)
    return None


def _header(args, pyperf_options, benchmarks, design):
    """What a resumed run must share with the interrupted one."""
    header = dict(design.describe(), **{
        "interpreter": [sys.executable, sys.version,
                        gilguard.free_threaded_build()],
        "modules": args.module or [], "cases": args.case or [],
        "params": args.params, "quick": args.quick,
        "pin_threads": args.pin_threads, "timeout": args.timeout,
        "fresh_workers": args.fresh_workers,
        "memory_limit": args.memory_limit,
        "pyperf_options": list(pyperf_options),
        "benchmarks": [bench.name for bench in benchmarks],
    })
    settings = dict((name, os.environ[name]) for name in MEASURED_SETTINGS
                    if name in os.environ)
    if settings:
        header["settings"] = settings
    return header


def run(args, pyperf_options):
    started = time.time()
    selection = registry.Selection(quick=args.quick, params=args.params)
    benchmarks = registry.load(args.module, selection, args.case)
    program.check_pyperf_options(pyperf_options)
    design, others = designs.from_args(args, pyperf_options)
    if getattr(args, "dry_run", False):
        for line in plan.lines(plan.make(benchmarks, availability(benchmarks),
                                         design)):
            print(line)
        return 0
    args.calibrated = {}
    if args.loops_from:
        args.calibrated, why = earlier_result.loops_from(args.loops_from)
        if why:
            print(why, file=sys.stderr)
    output = args.output or results.default_output()
    results.check_writable(output)
    misnamed = envnames.misnamed(output)
    if misnamed:  # recorded in the file too (results.merge)
        print("gilbench: warning: " + misnamed, file=sys.stderr)
    book = journal.Journal(output, _header(args, pyperf_options, benchmarks,
                                           design))
    with journal.OutputLock(output):
        return _run_owned(benchmarks, design, args, others, book, started)


class _Clock(object):
    """The run's seconds, counting those an interrupted run had spent
    (its journal's progress): what the budget is spent against."""

    def __init__(self, book, started):
        self.book = book
        self.started = started
        self.before = 0.0

    def resume(self):
        self.before = self.book.progress().get("elapsed", 0.0)

    def spent(self):
        return self.before + time.time() - self.started

    def note(self):
        self.book.save_progress(durable=False, elapsed=self.spent())


def _run_owned(benchmarks, design, args, pyperf_options, book, started):
    """The run proper, once it owns its output and journal."""
    output = book.output
    if args.restart:
        book.remove()
    done = book.start(args.resume)
    clock = _Clock(book, started)
    if args.resume:
        clock.resume()
    lifelines.become_subreaper()
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    run_token = blocks.token()
    # One judge for the first look's pairs and the rounds (its imports
    # cost more than a judgement).
    python = judging.judge_python() if design.adaptive else None
    judge = judging.Judge(python) if python else None
    try:
        _run_all(benchmarks, design, args, pyperf_options, book, done, clock,
                 run_token)
        if not book.progress().get("remeasured"):
            remeasure.remeasure(benchmarks, design, args, pyperf_options,
                                book, done, blocks.named(run_token, "again"))
            book.save_progress(remeasured=True)
        laterblocks.measure(benchmarks, design, args, pyperf_options, book,
                            done, clock, run_token, judge)
        outcome = _rounds(benchmarks, design, args, pyperf_options, book,
                          done, clock, run_token, judge)
    except (KeyboardInterrupt, Terminated) as exc:
        code = 143 if isinstance(exc, Terminated) else 130
        return _interrupted(benchmarks, book, output, code)
    finally:
        signal.signal(signal.SIGTERM, previous)
        if judge is not None:
            judge.close()
    written, missing = results.merge_journal(benchmarks, book, done, output)
    book.remove()
    code = _summarise(written, missing, len(benchmarks), output)
    if written:
        for line in outcome or ():
            print("gilbench: " + line)
        print(timing.summary(output, time.time() - started))
    return code


def _rounds(benchmarks, design, args, pyperf_options, book, done, clock,
            run_token, judge):
    """The design's rounds after the first measurements; what they did,
    as lines for the summary (None for the fixed design)."""
    store = stores.JournalStore(benchmarks, args, pyperf_options, book, done,
                                run_token)
    if not design.adaptive:
        store.finish(dict((index, designs.RECIPE)
                          for index in store.measured()))
        return None
    skipped = availability(benchmarks)
    runnable = [bench for bench in benchmarks if bench.name not in skipped]
    planned = design.budget(runnable)
    budget = design.calibrated_budget(runnable, dict(
        (benchmarks[index].name,
         ([run for run in runs if ROUND_KEY not in run.get_metadata()],
          stores.first_seconds(store.state(index))))
        for index, runs in store.measured().items()))
    say = None if args.quiet else (
        lambda line: print("gilbench: " + line, file=sys.stderr))
    outcome = rounds.spend(
        store, design,
        time.time() + budget - clock.spent() - designs.end_reserve(budget),
        judge, say)
    said = outcome.lines(budget, clock.spent())
    if budget < planned:
        said.append("the budget is half the fixed recipe as the first "
                    "looks priced it: %.0f s, not the plan's %.0f s"
                    % (budget, planned))
    return said


def _run_all(benchmarks, design, args, pyperf_options, book, done, clock,
             run_token):
    """Run the first block of what ``done`` (the journal's entries,
    updated in place) lacks, in the registry's order, partners side by
    side (gilbench.runner.blocks)."""
    skipped = availability(benchmarks)
    to_run = len([i for i, b in enumerate(benchmarks)
                  if i not in done and b.name not in skipped])
    shown = progress.Progress(len(benchmarks), quiet=args.quiet)
    block = blocks.named(run_token, "1")
    for index, bench in enumerate(benchmarks):
        if index in done:
            continue
        book.forget_unfinished(index)
        shown.start(index, bench.name, to_run)
        reason = skipped.get(bench.name)
        state = None
        if not reason:
            sizing = design.first(bench, args.calibrated.get(bench.name))
            began = time.time()
            reason = child.run_one(bench, sizing.first_block(), args,
                                   pyperf_options, book, index,
                                   echo=not args.quiet,
                                   why=_sampled(bench, args))
            if reason is None:
                blocks.tag(book.work_file(index, "pyperf.json"), block)
            state = {"seconds": time.time() - began}
            to_run -= 1
        shown.finish(ran=bench.name not in skipped)
        done[index] = book.commit(index, bench.name, reason, state=state)
        clock.note()
        if reason and not args.quiet:
            print("%s: %s" % (bench.name, reason))


def _sampled(bench, args):
    """Whether --why samples ``bench``'s first program: a benchmark of
    several threads that is not a ceiling's."""
    return (getattr(args, "why", False)
            and bench.spec.driver == drivers.THREADS
            and bench.spec.concurrency(bench.params) > 1
            and not bench.declared.is_reference(bench.spec))


def _interrupted(benchmarks, book, output, code):
    """Keep the journal, write what finished, say how to go on."""
    # The journal, not the loop's record of it: a signal between an
    # entry's rename and the loop's noting it must not drop that entry.
    done = book.entries()
    written, _ = results.merge_journal(benchmarks, book, done, output)
    finished = len(done)
    print("gilbench: interrupted after %d of %d benchmarks%s; the same "
          "command with --resume runs the rest" % (
              finished, len(benchmarks),
              " (%d with values written to %s)" % (written, output)
              if written else ""), file=sys.stderr)
    return code


def _summarise(written, missing, total, output):
    failed = [entry for entry in missing
              if not entry["reason"].startswith("n/a")]
    if not written:
        print("gilbench: no benchmark produced a value; %s left untouched"
              % output, file=sys.stderr)
        return 1
    print("%d of %d benchmarks written to %s; %d n/a, %d failed"
          % (written, total, output, len(missing) - len(failed), len(failed)))
    for entry in sorted(failed, key=lambda e: e["name"]):
        print("  %s: %s" % (entry["name"], entry["reason"]), file=sys.stderr)
    return 1 if failed else 0
