"""Does ``--why`` cost the timed values anything? (#67)

``--why`` samples extra values before the timed ones, in a benchmark's
first program only.  This runs the same ``gilbench timeit`` with and
without it, ``--pairs`` times, taking turns (which goes first alternates),
and compares each pair with ``gilbench compare`` (Welch's t-test on the
process means): the sampled runs' times should read as not significantly
different from the unsampled ones.

Usage (alone on the machine, from the repository's root, with a report
side and py-spy here):

    python bench/why_cost.py [--pairs 3] [--time 20] [--python PY]

It prints each pair's comparison of the 2-thread benchmark and a tally;
it exits 0 either way.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, os.pardir, "tests", "fixtures", "causes")
STATEMENT = ["-s", "import cause_held_gil as m; d = m.data()", "m.call(d)"]
BENCHMARK = "timeit.stmt.threads.python[objects=own]/t2"


def timeit(output, run_time, python, why):
    command = [sys.executable, "-m", "gilbench", "timeit", "--objects",
               "own", "--threads", "1,2", "--time", str(run_time), "-o",
               output] + (["--why"] if why else [])
    if python:
        command[4:4] = ["--python", python]
    subprocess.run(command + STATEMENT, check=True, stdout=subprocess.PIPE,
                   env=dict(os.environ, PYTHONPATH=FIXTURES))
    # With --python, the result file is named after the interpreter.
    return output if os.path.exists(output) else output.replace(
        ".json", "-1.json")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--time", type=float, default=20.0)
    parser.add_argument("--python", help="measure this interpreter")
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="gilbench-why-cost-")
    differ = 0
    for pair in range(args.pairs):
        paths = {}
        for why in ((True, False) if pair % 2 else (False, True)):
            name = os.path.join(directory, "%d-%s.json" % (
                pair, "why" if why else "plain"))
            paths[why] = timeit(name, args.time, args.python, why)
        compared = subprocess.run(
            [sys.executable, "-m", "gilbench", "compare", paths[False],
             paths[True]], stdout=subprocess.PIPE, universal_newlines=True)
        # The last of the benchmark's lines: its change and significance.
        lines = [" ".join(line.split()) for line in
                 compared.stdout.splitlines() if BENCHMARK in line]
        said = lines[-1] if lines else "(not compared)"
        differ += "yes (" in said
        print("pair %d (without -> with --why): %s" % (pair + 1, said),
              flush=True)
    print("\n%d of %d pairs read a significant difference at 2 threads"
          % (differ, args.pairs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
