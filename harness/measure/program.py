"""The pyperf program: registers one benchmark and lets pyperf run it.

``gilbench run`` runs this once per benchmark, in a process of its own (a
fork of the runner where it can be: gilbench.measure.forking), so a
crash or a hang costs only that benchmark.  It calibrates the loop count
in a fork of itself (gilbench.measure.loopcalibration), then pyperf runs
it as its workers with ``--worker``: forks of it
(gilbench.measure.forkedworkers) or, with ``--fresh-workers``, fresh
interpreters, to which ``add_cmdline_args`` forwards the harness options.

Set-up (the case's prepare(), threads, processes, pinning) happens in the
calibration fork and in each pyperf worker on its first call, before any
value is timed.  A set-up that says the benchmark cannot run here
(Unavailable, the GIL re-enabled by an import) writes the reason to
``--status`` and exits with :data:`EXIT_REFUSED`; ``run`` records that
reason instead of a failure.
"""
from __future__ import print_function

import atexit
import json
import os
import sys

import pyperf

from gilbench.errors import UsageError
from gilbench.measure import (
    duet,
    foreign,
    forkedworkers,
    gilguard,
    layout,
    lifelines,
    loopcalibration,
    metrics,
    pinning,
    probe,
    pyperfinternals,
    record,
    timers,
    whysampler,
)
from gilbench.model import design, drivers, machine, registry, resultformat

EXIT_REFUSED = 3
PROGRAM_ARGS = ["-m", "gilbench", "bench"]  # after the interpreter


class HarnessRunner(pyperfinternals.Runner):
    """A Runner that points gilbench.measure.record at the run being measured.

    pyperf offers no public way for a time function to add per-run metadata;
    the task's metadata dict is copied into the Run after the last value, so
    record() writes there.  Every pyperf internal this takes is in
    gilbench.measure.pyperfinternals.
    """

    time_function = None
    worker_start = forkedworkers.FRESH
    set_up_facts = {}  # what a set-up before this worker's task recorded
    first_runs = ()  # the calibration fork's, when it measured on

    partner = None  # the benchmark a duet measures beside (duet)

    def run_worker(self, task):
        record.set_sink(task.metadata)
        facts = dict(self.set_up_facts, worker_start=self.worker_start,
                     **layout.facts())
        record.record_facts(**facts)
        if self.partner is not None:
            record.record_facts(**{resultformat.PARTNER_KEY:
                                   self.partner.name})
            self.time_function.record_facts(**facts)
        if self.args.why and self.time_function is not None:
            # Before the timed values, which stay unsampled.
            self.time_function.sample_why(self.args.loops)
        pyperfinternals.Runner.run_worker(self, task)
        if self.partner is not None:
            function = self.time_function
            function.write(self.args.partner_output,
                           len(function.walls) - self.args.values,
                           dict(self.partner.metadata(), unit="second",
                                name=self.partner.name), task.name)
        # The run is in the master's pipe now.  Exit at once: a thread or
        # process the case leaked must not keep this worker (and so the
        # benchmark) alive until the timeout.
        if self.time_function is not None:
            self.time_function.close()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)

    def manage(self):
        return forkedworkers.manage(self, forked_worker, self.first_runs)


def forked_worker(cmd):
    """Be the worker that ``cmd`` (pyperf's command line) would start."""
    class ForkedWorker(HarnessRunner):
        """Says in each run's metadata that its worker was a fork."""
        worker_start = forkedworkers.FORK
    return main(cmd[1 + len(PROGRAM_ARGS):], ForkedWorker)


def add_harness_options(cmd, args):
    """Append the harness's own options of ``args`` to ``cmd``: how run
    starts this program, and how pyperf starts its workers."""
    cmd.extend(["--bench-case", args.bench_case,
                "--bench-params", args.bench_params,
                "--status", args.status])
    for module in args.module or ():
        cmd.extend(["--module", module])
    if args.pin_threads:
        cmd.append("--pin-threads")
    if args.fresh_workers:
        cmd.append("--fresh-workers")
    if getattr(args, "scaled_calibration", False):
        cmd.append("--scaled-calibration")
    if getattr(args, "why", False):
        cmd.append("--why")
    if getattr(args, "partner_case", None):
        cmd.extend(["--partner-case", args.partner_case,
                    "--partner-params", args.partner_params,
                    "--partner-loops", str(args.partner_loops),
                    "--partner-output", args.partner_output])


def make_runner(runner_class=HarnessRunner):
    pyperfinternals.remember_hooks()
    runner = runner_class(
        processes=design.DEFAULT_PROCESSES,
        values=design.DEFAULT_VALUES,
        warmups=design.DEFAULT_WARMUPS,
        min_time=design.DEFAULT_MIN_TIME,
        program_args=tuple(PROGRAM_ARGS),
        add_cmdline_args=add_harness_options)
    parser = runner.argparser
    parser.add_argument("--bench-case", required=True,
                        help="the case's family.case.variant.backend")
    parser.add_argument("--bench-params", required=True,
                        help="its axis values, as a JSON object")
    parser.add_argument("--status", required=True,
                        help="file where a refusal's reason is written")
    parser.add_argument("--module", action="append",
                        help="case module (dotted name or .py path)")
    parser.add_argument("--pin-threads", action="store_true",
                        help="pin thread or process i to usable CPU i")
    parser.add_argument("--fresh-workers", action="store_true",
                        help="start pyperf's workers as fresh interpreters "
                        "instead of forks of this program")
    parser.add_argument("--scaled-calibration", action="store_true",
                        help="calibrate the loops to the minimum time "
                        "instead of doubling past it")
    parser.add_argument("--why", action="store_true",
                        help="sample where the threads wait during extra "
                        "values before the timed ones (whysampler)")
    parser.add_argument("--partner-case",
                        help="a benchmark measured beside this one in each "
                        "worker, value by value (gilbench.measure.duet)")
    parser.add_argument("--partner-params", help="its axis values, as JSON")
    parser.add_argument("--partner-loops", type=int,
                        help="its loops per value")
    parser.add_argument("--partner-output",
                        help="the pyperf file its run is written to")
    return runner


class TimeFunction(object):
    """``f(loops) -> seconds`` for pyperf; set-up happens on first use."""

    def __init__(self, runner, bench):
        self.runner = runner
        self.bench = bench
        self.timer = None
        self.utilisations = []
        self.foreign = []  # what other processes took of the CPUs, per call
        self.probes = []  # the machine's state around each call
        self.cpus = None

    def __call__(self, loops):
        try:
            if self.timer is None:
                self._set_up()
            # Where the work's own threads probe, theirs: this thread may
            # be on another CPU than they are.
            here = self.timer.probes is None
            before = probe.probe_ns() if here else None
            others = foreign.ForeignClock(self.cpus)
            wall, utilisation = self.timer(loops)
            window = others.window()
            self.probes.append(probe.typical(
                [before, probe.probe_ns()] if here else self.timer.probes))
        except registry.Unavailable as exc:  # e.g. a thread could not pin
            refuse(self.runner.args.status, "n/a: %s" % (exc,))
        reason = gilguard.reenabled_reason()  # an import inside work()
        if reason:
            refuse(self.runner.args.status, reason)
        self._record(utilisation, window)
        return wall

    def _record(self, utilisation, window):
        """The run's CPU figures: means over its measured values, which
        are a worker's last ``values`` calls."""
        count = self.runner.args.values
        record.settle(count)  # the case's record_per_value numbers
        self.utilisations.append(utilisation)
        recent = self.utilisations[-count:]
        record.record_facts(cpu_utilisation=sum(recent) / len(recent))
        record.record_facts(**{resultformat.PROBE_KEY: probe.typical(
            self.probes[-count:])})
        if window is not None:
            self.foreign.append(window)
            recent = self.foreign[-count:]
            # The sums too: a benchmark's runs, each too short for the
            # ticks to tell, tell together (gilbench.runner.rounds).
            record.record_facts(
                foreign_seconds=sum(w[0] for w in recent),
                foreign_capacity=sum(w[1] for w in recent))
            share = foreign.share(recent)
            if share is not None:
                record.record_facts(foreign_cpu=share)

    def close(self):
        if self.timer is not None:
            self.timer.close()
            self.timer = None

    def sample_why(self, loops):
        """Record where the work's threads wait (whysampler), from values
        of ``loops`` outside the timed ones; run asks it of the threads
        driver's benchmarks only (run._sampled)."""
        if self.timer is None:
            self._set_up()
        record.record_facts(**whysampler.sample(lambda: self.timer(loops)))

    def _set_up(self):
        args, bench = self.runner.args, self.bench
        self.cpus = machine.affinity()  # before any thread is pinned
        pin = pinning.Pinning(self.cpus) if args.pin_threads else None
        pinning.set_current(pin)
        prepared = bench.spec.prepare(dict(bench.params))
        self.timer = timers.make_timer(
            bench, prepared, pin, registry.Respawn(
                args.module, bench.spec.base_name,
                list(bench.params.items())))
        atexit.register(self.close)
        reason = gilguard.reenabled_reason()
        if reason:
            refuse(args.status, reason)
        facts = metrics.process_facts()
        count = drivers.count_axis(bench.spec.driver)
        if pin is not None and count:
            facts["pinned_cpus"] = pin.describe(bench.params[count])
            facts["pinned_cores"] = pin.cores(bench.params[count])
        record.record_facts(**facts)


def refuse(status_path, reason):
    """Tell ``run`` why this benchmark has no values, and stop."""
    with open(status_path, "w") as stream:
        json.dump({"reason": reason}, stream)
    sys.stderr.write("gilbench: %s\n" % reason)
    sys.stderr.flush()
    os._exit(EXIT_REFUSED)  # not SystemExit: pyperf must not catch it


def load_benchmark(args, case=None, params=None):
    """The benchmark ``args`` name (or ``case`` with ``params``)."""
    spec, declared = registry.find_spec(args.module,
                                        case or args.bench_case)
    params = registry.decode_params(spec, params or args.bench_params)
    return registry.Benchmark(spec, params, declared)


def main(argv, runner_class=HarnessRunner):
    lifelines.die_with_parent()  # a worker dies with its master
    gilguard.install()
    runner = make_runner(runner_class)
    args = runner.parse_args(argv)
    bench = load_benchmark(args)
    partner = None
    if args.partner_case:
        if not (args.loops and args.partner_loops and args.partner_output):
            raise UsageError("a partner needs --loops, --partner-loops and "
                             "--partner-output")
        partner = load_benchmark(args, args.partner_case,
                                 args.partner_params)
    for each in (bench, partner):
        if each is not None and each.spec.before_fork is not None \
                and not args.worker:
            try:
                each.spec.before_fork(dict(each.params))
            except registry.Unavailable as exc:
                refuse(args.status, "n/a: %s" % (exc,))
    runner.time_function = TimeFunction(runner, bench)
    if partner is not None:
        runner.partner = partner
        runner.time_function = duet.Duet(
            runner.time_function, TimeFunction(runner, partner),
            args.partner_loops)
    calibration = None
    if loopcalibration.wanted(args):
        metadata = dict(bench.metadata(), name=bench.name)
        metadata.setdefault("unit", "second")
        calibration, runner.first_runs = loopcalibration.calibrate(
            runner.time_function, args.min_time, metadata,
            scaled=args.scaled_calibration,
            then=(lambda loops, facts, writable: _first_worker(
                runner, bench, loops, facts, writable))
            if _calibration_measures(args) else None)
        args.loops = calibration.get_metadata()["loops"]
    result = runner.bench_time_func(bench.name, runner.time_function,
                                    metadata=bench.metadata())
    if calibration is not None and result is not None and args.output:
        # The calibration run first, where pyperf puts its own.
        merged = pyperf.Benchmark([calibration])
        merged.add_runs(result)
        merged.dump(args.output, replace=True)
    return 0


def _calibration_measures(args):
    """Whether the calibration fork goes on as the first worker: a scaled
    calibration (the adaptive first look), whose workers are forks that
    keep the program's layout, as this fork is."""
    return (args.scaled_calibration and forkedworkers.wanted(args)
            and not layout.wanted())


def _first_worker(runner, bench, loops, facts, writable):
    """In the calibration fork, its set-up done: measure as pyperf's
    first worker would at ``loops``, the set-up's ``facts`` in its run,
    and write that run to ``writable`` as a worker writes to its pipe."""
    args = runner.args
    args.worker, args.worker_task, args.pipe = True, 0, writable
    args.loops, args.output, args.append = loops, None, None
    runner.worker_start = resultformat.CALIBRATION_FORK
    runner.set_up_facts = facts
    return runner.bench_time_func(bench.name, runner.time_function,
                                  metadata=bench.metadata())


# pyperf options that the harness sets itself for each benchmark program.
_RESERVED = ("output", "append", "worker", "worker_task", "pipe",
             "calibrate_loops", "recalibrate_loops", "calibrate_warmups",
             "recalibrate_warmups", "compare_to")
_OWN = ("bench_case", "bench_params", "status", "module", "pin_threads",
        "fresh_workers", "scaled_calibration", "why", "partner_case",
        "partner_params", "partner_loops", "partner_output")


def check_pyperf_options(options):
    """Raise UsageError unless pyperf accepts ``options`` and they leave
    the harness's own options alone (abbreviations included)."""
    runner = make_runner()
    # Nothing of a Runner made only for its parser may stay in pyperf's
    # watchdog, which the benchmark programs forked from here inherit.
    pyperfinternals.forget_runner(HarnessRunner)

    def refuse_option(message):
        raise UsageError("bad pyperf option: %s" % message)

    runner.argparser.error = refuse_option
    required = ["--bench-case=", "--bench-params=", "--status="]
    defaults = runner.argparser.parse_args(required)
    given = runner.argparser.parse_args(required + list(options))
    changed = [name for name in _RESERVED + _OWN
               if getattr(given, name, None) != getattr(defaults, name, None)]
    if changed:
        raise UsageError("option --%s is set by the harness itself; see "
                         "gilbench run --help"
                         % changed[0].replace("_", "-"))
