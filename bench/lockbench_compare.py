"""The lock family's fairness case beside CPython's Tools/lockbench, on the
same machine: acquisitions per second and Jain's fairness index of
PyMutex and PyThread_type_lock at 1..N threads.

Usage: python bench/lockbench_compare.py [--envs py313t,py313t-gil,...]
       [--threads 1,2] [--reps 3] [--length 1] [--min-time 1]
       [--cache DIR]

lockbench.py comes from Debian unstable's ``python3.14-examples`` package,
fetched once (bench/debian_examples.py) into ``--cache`` (default
~/.cache/gilbench-examples); it is never copied into the project.  It needs
``_testinternalcapi``, which the interpreters of the given tox envs must
have (the free-threaded 3.13 built here, the relocated 3.13, 3.14, 3.15);
``-gil`` runs an env's interpreter with PYTHON_GIL=1.

For each env: lockbench's own ``benchmark_locks`` (1 s per call, its
default) and ``jains_fairness``, ``--reps`` times per lock and thread
count, with critical-section length ``--length`` (lockbench's default 1:
one dependent floating-point add); then ``gilbench run`` of the fairness
case's ``nogil_loop`` variant (each thread's loop in C with the GIL
released, as lockbench's threads) for the same locks and threads, with
``cs_ns=0`` (the counter's read-modify-write alone), with values of
``--min-time`` seconds (default 1: lockbench's window; a default run's
are 40 ms, and PyMutex's fairness depends on the window), and its cells --
acquisitions per second and fairness -- with the report's intervals
(gilbench.report.kinds).  Prints one RST table; ``!`` marks a gilbench
figure more than 20% from lockbench's mean.  docs/families/lock.rst
explains the differences.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from debian_examples import fetch

from gilbench.report import kinds
from gilbench.report.data import loader
from gilbench.report.data.lookup import Lookup

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOCKS = {"PyMutex": "pymutex", "PyThread_type_lock": "pythread"}
MARGIN = 0.20

# Runs in the target interpreter: lockbench's own measurement and index.
DRIVER = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
import lockbench
threads = [int(t) for t in sys.argv[2].split(",")]
reps, length = int(sys.argv[3]), int(sys.argv[4])
found = []
for lock in ("PyMutex", "PyThread_type_lock"):
    for n in threads:
        for _ in range(reps):
            # 3.15's benchmark_locks returns a third item, which the
            # 3.14 script (this one) does not unpack.
            per_second, iters = lockbench.benchmark_locks(
                n, lock == "PyMutex", length)[:2]
            found.append({"lock": lock, "threads": n,
                          "per_second": per_second,
                          "fairness": lockbench.jains_fairness(iters)})
print(json.dumps(found))
'''


def interpreter(env):
    """(python, environment) of a tox env; ``-gil``: with PYTHON_GIL=1."""
    base = env[:-len("-gil")] if env.endswith("-gil") else env
    python = os.path.join(HERE, ".tox", base, "bin", "python")
    environ = dict(os.environ)
    if env.endswith("-gil"):
        environ["PYTHON_GIL"] = "1"
    return python, environ


def lockbench_figures(python, environ, source, threads, reps, length):
    out = subprocess.check_output(
        [python, "-c", DRIVER, source, ",".join(map(str, threads)),
         str(reps), str(length)], env=environ)
    return json.loads(out)


def gilbench_cells(python, environ, threads, min_time, output):
    """{(kind, threads): (throughput Cell, fairness Cell)}."""
    subprocess.check_call(
        [python, "-m", "gilbench", "run", "-q", "-o", output,
         "--min-time", str(min_time),
         "--case", "lock.fairness.nogil_loop.*",
         "--param", "kind=" + ",".join(sorted(LOCKS.values())),
         "--param", "cs_ns=0",
         "--param", "threads=" + ",".join(map(str, threads))],
        env=environ, stdout=subprocess.DEVNULL)
    result = loader.load_result(output)
    lookup = Lookup(result.records)
    made = {name: kinds.make({"cell": cell, "note": ""}, result.axes)
            for name, cell in (("rate", {"kind": "throughput",
                                         "unit": "acquisitions"}),
                               ("fair", {"kind": "recorded",
                                         "key": "fairness", "unit": ""}))}
    cells = {}
    for record in result.records:
        if record.measured:
            dims = record.dims
            cells[(dims["kind"], dims["threads"])] = (
                made["rate"].cell(lookup, dims),
                made["fair"].cell(lookup, dims))
    return cells


def mean(numbers):
    return sum(numbers) / len(numbers)


def far(ours, theirs):
    return "!" if abs(ours / theirs - 1) > MARGIN else ""


def rows(env, figures, cells):
    for lock, kind in LOCKS.items():
        for count in sorted(set(f["threads"] for f in figures)):
            mine = [f for f in figures
                    if f["lock"] == lock and f["threads"] == count]
            rate = mean([f["per_second"] for f in mine])
            fair = mean([f["fairness"] for f in mine])
            ours = cells.get((kind, count))
            if ours is None:
                continue
            ours_rate, ours_fair = ours
            yield [env, lock, str(count),
                   "%.3gM [%.3g-%.3g]" % (
                       rate / 1e6, min(f["per_second"] for f in mine) / 1e6,
                       max(f["per_second"] for f in mine) / 1e6),
                   ours_rate.text.replace(" acquisitions/s", "")
                   + far(ours_rate.value, rate),
                   "%.2f" % fair,
                   ours_fair.text + far(ours_fair.value, fair)]


def rst_table(header, body):
    widths = [max(len(r[i]) for r in [header] + body)
              for i in range(len(header))]
    rule = " ".join("=" * w for w in widths)
    line = lambda r: " ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([rule, line(header), rule] + [line(r) for r in body]
                     + [rule])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", default="py313t,py313t-gil,py314,py315")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--length", type=int, default=1)
    parser.add_argument("--min-time", type=float, default=1.0)
    parser.add_argument("--cache", default=os.path.expanduser(
        "~/.cache/gilbench-examples"))
    args = parser.parse_args(argv)
    threads = [int(t) for t in args.threads.split(",")]
    source = os.path.join(fetch(args.cache), "lockbench")
    body = []
    with tempfile.TemporaryDirectory() as scratch:
        for env in args.envs.split(","):
            python, environ = interpreter(env)
            try:
                figures = lockbench_figures(python, environ, source,
                                            threads, args.reps, args.length)
                cells = gilbench_cells(python, environ, threads,
                                       args.min_time,
                                       os.path.join(scratch, env + ".json"))
            except subprocess.CalledProcessError as failed:
                print("%s failed: %s" % (env, failed), file=sys.stderr)
                continue
            body.extend(rows(env, figures, cells))
            print("measured %s" % env, file=sys.stderr)
    print(rst_table(["env", "lock", "threads", "lockbench (M/s)",
                     "gilbench (M/s)", "lockbench fairness",
                     "gilbench fairness"], body))


if __name__ == "__main__":
    main()
