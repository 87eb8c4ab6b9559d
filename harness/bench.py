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
JIT_WARMUPS = 3  # PyPy's JIT compiles the call loop during the warmups


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
    warmups = JIT_WARMUPS if pyperf.python_has_jit() else DEFAULT_WARMUPS
    runner = HarnessRunner(
        processes=DEFAULT_PROCESSES, values=DEFAULT_VALUES,
        warmups=warmups, min_time=DEFAULT_MIN_TIME,
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


def check_pyperf_options(options):
    """Raise UsageError unless pyperf accepts ``options``."""
    runner = make_runner()

    def refuse(message):
        raise UsageError("bad pyperf option: %s" % message)

    runner.argparser.error = refuse
    for reserved in ("--output", "-o", "--append", "--worker", "--pipe",
                     "--bench", "--bench-threads", "--module"):
        if any(o == reserved or o.startswith(reserved + "=")
               for o in options):
            raise UsageError("option %s is the harness's own; see "
                             "python -m harness run --help" % reserved)
    runner.argparser.parse_args(
        list(options) + ["--bench", "x", "--bench-threads", "1"])
