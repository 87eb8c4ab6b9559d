"""``python -m harness run``: every selected benchmark in its own pyperf
program, then one result file.

Each benchmark gets a child process (``python -m harness bench``), so a
case that raises, crashes or hangs costs only its own result: it is
recorded as "failed: ..." or "hung: ..." and the others are still written.
"""
from __future__ import print_function

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from harness import bench as bench_program
from harness import registry, results
from harness.registry import Unavailable
from harness.threadspec import parse_threads

DEFAULT_TIMEOUT = 600.0
PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def availability(benchmarks):
    """{base_name: "n/a: ..." or "failed: ..."} for specs whose prepare()
    refuses or raises here (a prepare() that hangs would hang the run)."""
    missing = {}
    for spec in registry.unique_specs(benchmarks):
        try:
            spec.prepare()
        except Unavailable as exc:
            missing[spec.base_name] = "n/a: %s" % (exc,)
        except Exception as exc:  # a broken case costs only its own result
            missing[spec.base_name] = "failed: prepare() raised %s: %s" % (
                type(exc).__name__, exc)
    return missing


def _child_command(bench, args, pyperf_options, output):
    cmd = [sys.executable, "-m", "harness", "bench", "--bench", bench.name,
           "--bench-threads", str(bench.threads), "--output", output]
    for module in args.module or ():
        cmd.extend(["--module", module])
    # pyperf's stability warnings repeat for every short benchmark; the
    # report flags noisy cells instead.  -v/--verbose brings them back.
    if not any(o in ("-v", "--verbose") for o in pyperf_options):
        cmd.append("--quiet")
    return cmd + list(pyperf_options)


def _child_env():
    env = dict(os.environ)
    path = env.get("PYTHONPATH")
    env["PYTHONPATH"] = PROJECT_ROOT + (os.pathsep + path if path else "")
    return env


def _kill_group(process):
    """The child leads its own session (so Ctrl-C does not reach it):
    kill it and its pyperf workers."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:  # already gone
        pass
    process.wait()


def _wait(process, timeout):
    """Exit code, or None when the child outlived ``timeout`` seconds."""
    deadline = time.time() + timeout
    try:
        while process.poll() is None:
            if time.time() > deadline:
                _kill_group(process)
                return None
            time.sleep(0.05)
    except BaseException:  # Ctrl-C: leave no orphaned benchmark behind
        _kill_group(process)
        raise
    return process.returncode


def _signal_name(number):
    try:
        return signal.Signals(number).name
    except (AttributeError, ValueError):  # Python 2.7, or not a signal
        return "signal %d" % number


_WORKER_KILLED = re.compile(r"failed with exit code -(\d+)")


def _failure_reason(code, stderr_path):
    """"failed: ..." naming the signal that killed the child or its worker,
    else the exit code and the worker's exception."""
    last = _telling_line(stderr_path)
    worker_killed = _WORKER_KILLED.search(last)
    if code < 0:
        return "failed: killed by %s" % _signal_name(-code)
    if worker_killed:
        return "failed: worker killed by %s" % _signal_name(
            int(worker_killed.group(1)))
    return "failed: exit code %d%s" % (code, " (%s)" % last if last else "")


_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit)\b")


def _telling_line(path):
    """The first exception line (the worker's), else the last line."""
    with open(path) as stream:
        lines = [line.strip() for line in stream if line.strip()]
    exceptions = [line for line in lines if _EXCEPTION_LINE.match(line)]
    # The worker's traceback comes before the pyperf master's own.
    return (exceptions[:1] or lines[-1:] or [""])[0][:200]


def run_one(bench, args, pyperf_options, workdir, index):
    """Run one benchmark's pyperf program; (result file, failure reason)."""
    output = os.path.join(workdir, "%04d.json" % index)
    stderr_path = os.path.join(workdir, "%04d.stderr" % index)
    with open(stderr_path, "w") as stderr:
        process = subprocess.Popen(
            _child_command(bench, args, pyperf_options, output),
            stderr=stderr, env=_child_env(), preexec_fn=os.setsid)
        code = _wait(process, args.timeout)
    with open(stderr_path) as stream:
        sys.stderr.write(stream.read())
    if code is None:
        return None, "hung: killed after %g s" % args.timeout
    if code != 0 or not os.path.exists(output):
        return None, _failure_reason(code, stderr_path)
    return output, None


def run(args, pyperf_options):
    benchmarks = registry.select(
        registry.load(args.module, parse_threads(args.threads)), args.case)
    bench_program.check_pyperf_options(pyperf_options)
    output = args.output or results.default_output()
    results.check_writable(output)

    missing_specs = availability(benchmarks)
    missing, bench_files = {}, []
    workdir = tempfile.mkdtemp(prefix="gilbench-")
    try:
        for index, bench in enumerate(benchmarks):
            if bench.spec.base_name in missing_specs:
                missing[bench.name] = missing_specs[bench.spec.base_name]
                print("%s: %s" % (bench.name, missing[bench.name]))
                continue
            path, reason = run_one(bench, args, pyperf_options, workdir, index)
            if reason:
                missing[bench.name] = reason
                print("%s: %s" % (bench.name, reason))
            else:
                bench_files.append(path)
        written = results.merge(bench_files, missing, output)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return _summarise(written, missing, len(benchmarks), output)


def _summarise(written, missing, total, output):
    failed = sorted(n for n, r in missing.items() if not r.startswith("n/a"))
    if not written:
        print("gilbench: no benchmark produced a value; %s left untouched"
              % output, file=sys.stderr)
        return 1
    print("%d of %d benchmarks written to %s; %d n/a, %d failed"
          % (written, total, output, len(missing) - len(failed), len(failed)))
    for name in failed:
        print("  %s: %s" % (name, missing[name]), file=sys.stderr)
    return 1 if failed else 0
