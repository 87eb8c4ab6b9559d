"""One benchmark's pyperf program (``python -m gilbench bench``), run as a
child of ``run``: its command line, its limits, waiting for it, and why it
produced no value.

The child leads its own session (Ctrl-C at the terminal reaches only the
runner, which then stops it), dies with the runner (PR_SET_PDEATHSIG), and
runs under an address-space limit (RLIMIT_AS), so a case that exhausts
memory fails alone with MemoryError instead of taking the machine down.
"""
from __future__ import print_function

import argparse
import json
import os
import re
import resource
import select
import signal
import subprocess
import sys
import time

from gilbench.measure import forking, lifelines, program, pypynursery
from gilbench.model import registry, revisions
from gilbench.signals import signal_name


class Partner(object):
    """A benchmark measured beside the program's own in each of its
    workers (gilbench.measure.duet), at ``loops``, its run written to
    ``output``."""

    def __init__(self, bench, loops, output):
        self.bench = bench
        self.loops = loops
        self.output = output


def command(bench, sizing, args, pyperf_options, output, status,
            why=False, partner=None):
    """The benchmark program's arguments (after ``python -m gilbench
    bench``): ``sizing`` (a gilbench.model.design.Sizing) and pyperf's
    other options; ``why``: it samples where its threads wait;
    ``partner``: a Partner, or None."""
    cmd = ["--output", output]
    modules = [bench.spec.module_name]
    told = {}
    if partner is not None:
        if partner.bench.spec.module_name not in modules:
            modules.append(partner.bench.spec.module_name)
        told = dict(partner_case=partner.bench.spec.base_name,
                    partner_params=registry.encode_params(
                        partner.bench.params),
                    partner_loops=partner.loops,
                    partner_output=partner.output)
    program.add_harness_options(cmd, argparse.Namespace(
        bench_case=bench.spec.base_name,
        bench_params=registry.encode_params(bench.params), status=status,
        module=modules, pin_threads=args.pin_threads,
        fresh_workers=args.fresh_workers,
        scaled_calibration=sizing.scaled and sizing.loops is None, why=why,
        **told))
    # pyperf gives its workers a filtered environment; GILBENCH_* settings
    # (e.g. GILBENCH_START_METHOD, timeit's statement) and PyPy's nursery
    # must reach them, beside what the user's --inherit-environ names.
    pyperf_options, theirs = _without_inherit_environ(pyperf_options)
    ours = sorted(name for name in os.environ if name.startswith("GILBENCH_")
                  or name == pypynursery.VARIABLE)
    inherited = theirs + [name for name in ours if name not in theirs]
    if inherited:
        cmd.append("--inherit-environ=" + ",".join(inherited))
    # pyperf's stability warnings repeat for every short benchmark; the
    # report flags noisy cells instead.  -v/--verbose brings them back.
    if not any(o in ("-v", "--verbose") for o in pyperf_options):
        cmd.append("--quiet")
    return cmd + sizing.options + list(pyperf_options)


def _without_inherit_environ(options):
    """(options less --inherit-environ, the variables it named)."""
    rest, names = [], []
    taking = False
    for option in options:
        if taking:
            names += option.split(",")
            taking = False
        elif option == "--inherit-environ":
            taking = True
        elif option.startswith("--inherit-environ="):
            names += option.split("=", 1)[1].split(",")
        else:
            rest.append(option)
    return rest, [name for name in names if name]


def _preexec(memory_limit_mb):
    def preexec():
        os.setsid()
        lifelines.die_with_parent()
        if memory_limit_mb:
            limit = memory_limit_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return preexec


def kill_group(process):
    """Kill the child and its pyperf workers (its process group)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:  # already gone
        pass
    process.wait()


def _wait(process, timeout):
    """Exit code, or None when the child outlived ``timeout`` seconds."""
    deadline = time.time() + timeout
    nap = _Nap(process.pid)
    try:
        while process.poll() is None:
            remaining = deadline - time.time()
            if remaining <= 0:
                kill_group(process)
                return None
            nap.until_exit(remaining)
    except BaseException:  # Ctrl-C, SIGTERM: leave no benchmark behind
        kill_group(process)
        raise
    finally:
        nap.close()
    kill_group(process)  # what the case left in the group dies with it
    return process.returncode


def call(cmd, timeout, memory_limit_mb, output_path, in_process=None,
         env=None):
    """Run ``cmd`` as a benchmark program is run (its own session, dying
    with us, under the memory limit), its stdout and stderr to
    ``output_path``; its exit code, or None when it was killed at
    ``timeout`` seconds.  ``in_process``, a function doing what ``cmd``
    would, runs in a fork of this process instead where it can
    (gilbench.measure.forking.start_program); ``env``: ``cmd``'s
    environment (default: this process's)."""
    with open(output_path, "w") as output:
        if in_process is not None and forking.program_fork_possible():
            process = forking.start_program(in_process, output,
                                            _preexec(memory_limit_mb))
        else:
            process = subprocess.Popen(
                cmd, stdout=output, stderr=subprocess.STDOUT,
                preexec_fn=_preexec(memory_limit_mb), env=env)
        code = _wait(process, timeout)
    lifelines.reap_orphans()  # e.g. a process the case forked and left
    return code


class _Nap(object):
    """Sleep until a process ends or a time is up.  On its pidfd where
    there is one (Linux >= 5.3, Python >= 3.9) the runner wakes as the
    benchmark ends; else it naps, short first (an end is noticed within a
    few ms), then no busier than 20 polls/s."""

    def __init__(self, pid):
        try:
            self.fd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self.fd = None
        self.pause = 0.001

    def until_exit(self, seconds):
        if self.fd is not None:
            select.select([self.fd], [], [], seconds)
        else:
            time.sleep(min(self.pause, seconds))
            self.pause = min(self.pause * 2, 0.05)

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


_WORKER_KILLED = re.compile(r"failed with exit code -(\d+)")
_WRAPPER = re.compile(r"failed with exit code -?\d+$")
_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit)\b")


def failure_reason(code, stderr_path):
    """"failed: ..." naming the signal that killed the child or its worker,
    else the exit code and what the worker itself said."""
    with open(stderr_path) as stream:
        lines = [line.strip() for line in stream if line.strip()]
    if code < 0:
        return "failed: killed by %s" % signal_name(-code)
    for line in lines:
        worker_killed = _WORKER_KILLED.search(line)
        if worker_killed:
            return "failed: worker killed by %s" % signal_name(
                int(worker_killed.group(1)))
    said = worker_error(lines)
    return "failed: exit code %d%s" % (code, " (%s)" % said if said else "")


def worker_error(lines):
    """The worker's own words: pyperf's "ERROR: ..." line with its detail,
    else the first exception line that is not pyperf's "... failed with
    exit code N" wrapper, else the last line."""
    for index, line in enumerate(lines):
        if line.startswith("ERROR: "):
            detail = lines[index + 1] if index + 1 < len(lines) else ""
            if detail.startswith("Traceback") or _EXCEPTION_LINE.match(
                    detail):
                detail = ""
            return (line[len("ERROR: "):] + (": " + detail if detail
                                             else ""))[:200]
    exceptions = [line for line in lines if _EXCEPTION_LINE.match(line)]
    own = [line for line in exceptions if not _WRAPPER.search(line)]
    # The worker's traceback comes before the pyperf master's own.
    return (own[:1] or exceptions[:1] or lines[-1:] or [""])[0][:200]


def _status_reason(path):
    """The reason a benchmark program refused to measure, if it did."""
    try:
        with open(path) as stream:
            return json.load(stream)["reason"]
    except (IOError, OSError, ValueError, KeyError, TypeError):
        return None


def run_one(bench, sizing, args, pyperf_options, journal, index, echo=True,
            attempt="", why=False, partner=None, timeout=None):
    """Run benchmark ``index``'s pyperf program, sized by ``sizing``, into
    the journal's work files (their names start with ``attempt``: a
    later measurement keeps the earlier's); return its failure reason, or
    None when it has values.  ``why``: the program samples where its
    threads wait (--why), as a benchmark's first program does;
    ``partner``: a Partner its workers measure beside it; ``timeout``:
    seconds before it is killed (default: ``--timeout``)."""
    output = journal.work_file(index, attempt + "pyperf.json")
    stderr_path = journal.work_file(index, attempt + "stderr")
    status = journal.work_file(index, attempt + "status")
    # stdout too: pyperf's workers say what went wrong ("ERROR: ...") there.
    argv = command(bench, sizing, args, pyperf_options, output, status, why,
                   partner)
    revision = revisions.path_of(bench.params)
    # A revision's program starts afresh: the runner imported another.
    timeout = args.timeout if timeout is None else timeout
    code = call([sys.executable] + program.PROGRAM_ARGS + argv, timeout,
                args.memory_limit, stderr_path,
                in_process=(lambda: program.main(argv)) if revision is None
                else None,
                env=None if revision is None else dict(
                    os.environ, **{revisions.PATH_ENVIRONMENT: revision}))
    refused = _status_reason(status)
    if refused:
        return refused
    with open(stderr_path) as stream:
        said = stream.read()
    if code == 0 and echo:
        sys.stdout.write(said)  # the benchmark's "Mean +- std dev" line
    elif code != 0:
        sys.stderr.write(said)
    if code is None:
        return "hung: killed after %g s" % timeout
    if code != 0 or not os.path.exists(output):
        return failure_reason(code, stderr_path)
    if partner is not None and not os.path.exists(partner.output):
        return "failed: no run of its partner %s" % partner.bench.name
    return None
