"""Is each known cause named as what it is? (#67)

Runs ``gilbench timeit --why`` on each module of tests/fixtures/causes,
one per cause, on each interpreter given, ``--runs`` times, and checks
the cause ``timeit --python``'s "why not?" row names at 2 threads (or the
one-line refusal, for the module that re-enables the GIL):

    module               GIL build              free-threaded build
    cause_held_gil       the GIL                scales (no cause)
    cause_shared_lock    waits on a lock        waits on a lock
    cause_shared_dict    the GIL                shared: contends on a
                                                shared object; own: scales
    cause_memory         memory-bound           memory-bound
    cause_reenables_gil  scales                 the GIL re-enabled by it
    cause_scales         scales                 scales

Usage (alone on the machine, from the repository's root, with a report
side in this interpreter and py-spy beside it or in GILBENCH_PY_SPY):

    python bench/causes_check.py --python .tox/py311/bin/python \\
        --python .tox/py313t/bin/python [--runs 3] [--time 60]

It prints each run's row and a tally; it exits 0 either way (a benchmark
reports; CI does not time it).
"""
import argparse
import os
import subprocess
import sys
import sysconfig
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, os.pardir, "tests", "fixtures", "causes")
SCALES = "scales"
# The GIL's cause, by what the CPU says: idle threads, or busy ones.
THE_GIL = ("holds the GIL", "waits for the GIL")
# module -> (--objects, {GIL build's, free-threaded build's} expected
# causes per objects curve)
EXPECTED = {
    "cause_held_gil": ("own", {"gil": {"own": THE_GIL},
                               "free": {"own": SCALES}}),
    "cause_shared_lock": ("own", {"gil": {"own": "waits on a lock"},
                                  "free": {"own": "waits on a lock"}}),
    "cause_shared_dict": ("both", {
        "gil": {"own": THE_GIL, "shared": THE_GIL},
        "free": {"own": SCALES, "shared": "contends on a shared object"}}),
    "cause_memory": ("own", {"gil": {"own": "memory-bound"},
                             "free": {"own": "memory-bound"}}),
    "cause_reenables_gil": ("own", {"gil": {"own": SCALES},
                                    "free": {"own": "re-enabled by import "
                                             "of cause_reenables_gil"}}),
    "cause_scales": ("own", {"gil": {"own": SCALES},
                             "free": {"own": SCALES}}),
}
STATEMENT = {"cause_reenables_gil": ("import cause_reenables_gil as m",
                                     "m.spin(200000)")}


def free_threaded(python):
    return subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_config_var("
         "'Py_GIL_DISABLED') or 0)"], check=True, stdout=subprocess.PIPE,
        universal_newlines=True).stdout.strip() == "1"


def build_extension(python, directory):
    """cause_reenables_gil.c compiled for ``python`` into ``directory``."""
    probe = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()"
         "['include']); print(sysconfig.get_config_var('EXT_SUFFIX'))"],
        check=True, stdout=subprocess.PIPE, universal_newlines=True)
    include, suffix = probe.stdout.split()
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-I" + include, "-o",
                    os.path.join(directory, "cause_reenables_gil" + suffix),
                    os.path.join(FIXTURES, "cause_reenables_gil.c")],
                   check=True)


def causes_named(output, objects):
    """{objects curve: the "why not?" row's words; else SCALES, or the
    verdict where it cannot tell}."""
    found, verdicts = {}, {}
    for line in output.splitlines():
        cells = [c.strip() for c in line.split("|")]
        curve = "shared" if "shared" in cells[0] else "own"
        if cells[0].startswith("why not?"):
            found[curve] = cells[1]
        elif cells[0].startswith("parallel?"):
            verdicts[curve] = cells[1]
    wanted = ("own", "shared") if objects == "both" else (objects,)
    return {curve: found.get(curve) or (
        verdicts[curve] if verdicts.get(curve, "").startswith("cannot")
        else SCALES) for curve in wanted}


def check(python, module, run_time, path):
    objects, expected = EXPECTED[module]
    expected = expected["free" if free_threaded(python) else "gil"]
    setup, statement = STATEMENT.get(
        module, ("import %s as m; d = m.data()" % module, "m.call(d)"))
    done = subprocess.run(
        [sys.executable, "-m", "gilbench", "timeit", "--why", "--python",
         python, "--objects", objects, "--threads", "1,2", "--time",
         str(run_time), "-s", setup, statement],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        universal_newlines=True, env=dict(os.environ, PYTHONPATH=path))
    if done.returncode != 0:
        said = {"own": done.stdout.strip().splitlines()[-1]}
    else:
        said = causes_named(done.stdout, objects)
    right = all(said.get(curve) in expected[curve]
                if isinstance(expected[curve], tuple)
                else expected[curve] == said.get(curve) or (
                    expected[curve] != SCALES
                    and expected[curve] in said.get(curve, ""))
                for curve in expected)
    return right, said, expected


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="append", required=True)
    parser.add_argument("--runs", type=int, default=3)
    # timeit's own default (timeitcmd.BUDGET): the user's path.
    parser.add_argument("--time", type=float, default=60.0)
    parser.add_argument("--module", action="append",
                        help="only these modules (default: every one)")
    args = parser.parse_args()
    tally = {}
    for python in args.python:
        built = tempfile.mkdtemp(prefix="gilbench-causes-")
        build_extension(python, built)
        path = os.pathsep.join([FIXTURES, built])
        for run in range(1, args.runs + 1):
            for module in args.module or sorted(EXPECTED):
                right, said, expected = check(python, module, args.time,
                                              path)
                key = (python, module)
                tally[key] = tally.get(key, 0) + int(right)
                print("%s run %d %s: %s -- said %s; expected %s" % (
                    python, run, module, "right" if right else "WRONG",
                    said, expected), flush=True)
    print("\nright, of %d runs each:" % args.runs)
    for (python, module), right in sorted(tally.items()):
        print("  %s %s: %d" % (python, module, right))
    print("(host: %s)" % sysconfig.get_platform())
    return 0


if __name__ == "__main__":
    sys.exit(main())
