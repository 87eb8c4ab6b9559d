"""``python -m harness run``: every selected benchmark in its own pyperf
program, then one result file.

Each benchmark gets a child process (``python -m harness bench``), so a
case that raises, crashes or hangs costs only its own result: it is
recorded as "failed: ..." or "hung: ..." and the others are still written.
"""
from __future__ import print_function

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from harness import bench as bench_program
from harness import registry, results, timing
from harness.registry import Unavailable
from harness.signals import signal_name

DEFAULT_TIMEOUT = 600.0
PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# ``--quick`` sizing, unless pyperf sizing options are given: one process
# fewer, two values of >= 20 ms.  The quick profile is for a first look and
# CI, not for publishing.
QUICK_PYPERF = ["-p", "2", "-n", "2", "-w", "1", "--min-time", "0.02"]
_SIZING = ("-p", "--processes", "-n", "--values", "-w", "--warmups",
           "--min-time", "-l", "--loops", "--fast", "--rigorous")


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


def sizing_options(args, pyperf_options):
    """The quick profile's pyperf sizing, unless the user sized the run."""
    sized = any(option.split("=")[0] in _SIZING for option in pyperf_options)
    return [] if sized or not args.quick else list(QUICK_PYPERF)


def _child_command(bench, args, pyperf_options, output, status):
    cmd = [sys.executable, "-m", "harness", "bench",
           "--bench-case", bench.spec.base_name,
           "--bench-params", registry.encode_params(bench.params),
           "--status", status, "--output", output]
    for module in args.module or ():
        cmd.extend(["--module", module])
    if args.pin_threads:
        cmd.append("--pin-threads")
    # pyperf gives its workers a filtered environment; GILBENCH_* settings
    # (e.g. GILBENCH_START_METHOD) must reach them.
    ours = sorted(name for name in os.environ if name.startswith("GILBENCH_"))
    if ours and not any(o.startswith("--inherit-environ")
                        for o in pyperf_options):
        cmd.append("--inherit-environ=" + ",".join(ours))
    # pyperf's stability warnings repeat for every short benchmark; the
    # report flags noisy cells instead.  -v/--verbose brings them back.
    if not any(o in ("-v", "--verbose") for o in pyperf_options):
        cmd.append("--quiet")
    return cmd + sizing_options(args, pyperf_options) + list(pyperf_options)


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


_WORKER_KILLED = re.compile(r"failed with exit code -(\d+)")


def _failure_reason(code, stderr_path):
    """"failed: ..." naming the signal that killed the child or its worker,
    else the exit code and the worker's exception."""
    last = _telling_line(stderr_path)
    worker_killed = _WORKER_KILLED.search(last)
    if code < 0:
        return "failed: killed by %s" % signal_name(-code)
    if worker_killed:
        return "failed: worker killed by %s" % signal_name(
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


def _status_reason(path):
    """The reason a benchmark program refused to measure, if it did."""
    try:
        with open(path) as stream:
            return json.load(stream)["reason"]
    except (IOError, OSError, ValueError, KeyError, TypeError):
        return None


def run_one(bench, args, pyperf_options, workdir, index):
    """Run one benchmark's pyperf program; (result file, failure reason)."""
    output = os.path.join(workdir, "%04d.json" % index)
    stderr_path = os.path.join(workdir, "%04d.stderr" % index)
    status = os.path.join(workdir, "%04d.status" % index)
    with open(stderr_path, "w") as stderr:
        process = subprocess.Popen(
            _child_command(bench, args, pyperf_options, output, status),
            stderr=stderr, env=_child_env(), preexec_fn=os.setsid)
        code = _wait(process, args.timeout)
    refused = _status_reason(status)
    if refused:
        return None, refused
    with open(stderr_path) as stream:
        sys.stderr.write(stream.read())
    if code is None:
        return None, "hung: killed after %g s" % args.timeout
    if code != 0 or not os.path.exists(output):
        return None, _failure_reason(code, stderr_path)
    return output, None


def run(args, pyperf_options):
    started = time.time()
    selection = registry.Selection(quick=args.quick, params=args.params)
    benchmarks = registry.load(args.module, selection, args.case)
    bench_program.check_pyperf_options(pyperf_options)
    output = args.output or results.default_output()
    results.check_writable(output)

    skipped = availability(benchmarks)
    missing, bench_files = [], []
    workdir = tempfile.mkdtemp(prefix="gilbench-")
    try:
        for index, bench in enumerate(benchmarks):
            reason = skipped.get(bench.name)
            path = None
            if not reason:
                path, reason = run_one(bench, args, pyperf_options, workdir,
                                       index)
            if reason:
                missing.append(results.missing_entry(bench, reason))
                print("%s: %s" % (bench.name, reason))
            else:
                bench_files.append(path)
        written = results.merge(bench_files, missing, output)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    code = _summarise(written, missing, len(benchmarks), output)
    if written:
        print(timing.summary(output, time.time() - started))
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
