"""The pyperf program: registers one benchmark and lets pyperf run it.

``python -m harness run`` starts this once per benchmark (so a crash or a
hang costs only that benchmark); pyperf then re-runs it as its workers with
``--worker``, and ``add_cmdline_args`` forwards the harness options to them.
"""
from __future__ import print_function

import pyperf

from harness import fanout, metrics, registry
from harness.errors import UsageError

# pyperf's defaults (20 processes, 0.1 s values) take minutes per benchmark;
# these keep a whole family within the per-interpreter budget.  Any sizing
# option on the command line (-p, -n, -w, --min-time, --fast, --rigorous)
# overrides them.
DEFAULT_PROCESSES = 3
DEFAULT_VALUES = 3
DEFAULT_MIN_TIME = 0.05
DEFAULT_WARMUPS = 1
# PyPy's process start and JIT loop calibration cost more (its whole suite
# took 176 s with 3 processes): fewer processes.  One warmup of >= 50 ms is
# far past the JIT's tracing threshold for these call loops.
JIT_PROCESSES = 2


class HarnessRunner(pyperf.Runner):
    """A Runner that exposes the worker task being measured.

    pyperf offers no public way for a time function to add per-run metadata;
    the task's metadata dict is copied into the Run after the last value, so
    time functions write there (CPU utilisation, affinity in force).
    """

    current_task = None

    def _worker(self, task):
        self.current_task = task
        return pyperf.Runner._worker(self, task)


def _forward_harness_options(cmd, args):
    cmd.extend(["--bench", args.bench, "--bench-threads",
                str(args.bench_threads)])
    for module in args.module or ():
        cmd.extend(["--module", module])


def make_runner():
    runner = HarnessRunner(
        processes=(JIT_PROCESSES if pyperf.python_has_jit()
                   else DEFAULT_PROCESSES),
        values=DEFAULT_VALUES,
        warmups=DEFAULT_WARMUPS,
        min_time=DEFAULT_MIN_TIME,
        program_args=("-m", "harness", "bench"),
        add_cmdline_args=_forward_harness_options)
    parser = runner.argparser
    parser.add_argument("--bench", required=True,
                        help="exact benchmark name")
    parser.add_argument("--bench-threads", type=int, required=True,
                        help="its thread count")
    parser.add_argument("--module", action="append",
                        help="case module (dotted name or .py path)")
    return runner


class TimeFunction(object):
    """``f(loops) -> seconds`` for pyperf; set-up happens on first use."""

    def __init__(self, runner, bench):
        self.runner = runner
        self.bench = bench
        self.work = None
        self.utilisations = []

    def __call__(self, loops):
        if self.work is None:
            self.work = self.bench.spec.prepare()
            self._record(metrics.process_facts())
        result = fanout.run_threads(self.work, self.bench.threads, loops)
        # The last `values` calls of a worker are its measured values.
        self.utilisations.append(result.cpu_utilisation)
        recent = self.utilisations[-self.runner.args.values:]
        self._record({"cpu_utilisation": sum(recent) / len(recent)})
        return result.wall

    def _record(self, metadata):
        task = self.runner.current_task
        if task is not None:
            task.metadata.update(metadata)


def main(argv):
    runner = make_runner()
    args = runner.parse_args(argv)
    benchmarks = registry.load(args.module, [args.bench_threads])
    bench = registry.find(benchmarks, args.bench)
    runner.bench_time_func(bench.name, TimeFunction(runner, bench),
                           metadata=bench.metadata())
    return 0


# pyperf options that the harness sets itself for each benchmark program.
_RESERVED = ("output", "append", "worker", "worker_task", "pipe",
             "calibrate_loops", "recalibrate_loops", "calibrate_warmups",
             "recalibrate_warmups", "compare_to")


def check_pyperf_options(options):
    """Raise UsageError unless pyperf accepts ``options`` and they leave
    the harness's own options alone (abbreviations included)."""
    runner = make_runner()

    def refuse(message):
        raise UsageError("bad pyperf option: %s" % message)

    runner.argparser.error = refuse
    defaults = runner.argparser.parse_args(["--bench=", "--bench-threads=1"])
    given = runner.argparser.parse_args(
        ["--bench=", "--bench-threads=1"] + list(options))
    changed = [name for name in _RESERVED + ("bench", "bench_threads",
                                             "module")
               if getattr(given, name, None) != getattr(defaults, name, None)]
    if changed:
        raise UsageError("option --%s is set by the harness itself; see "
                         "python -m harness run --help"
                         % changed[0].replace("_", "-"))
