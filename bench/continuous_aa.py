"""How often the pull request check passes two identical commits, and
fails a head whose released function holds the GIL: ``gilbench
continuous`` then ``gilbench compare --sides revision=base,head
--fail-changed-answers`` on the fastsum fixture (its package at the
repository root, committed twice), as the workflow ``gilbench init
--ci`` writes runs them.

Usage: python bench/continuous_aa.py [--repeat 5] [--python PATH] [--keep]

``--python``: the interpreter that measures (gilbench and the fixture's
build requirements installed; default this one); compare runs on this
one (Python >= 3.9, the report side), which also judges the rounds
(GILBENCH_JUDGE_PYTHON).  Prints each run's exit code and the changed
answers, then how many A/A pairs passed and how many regressions failed.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

from gilbench.report.commands.compare import EXIT_CANNOT_TELL

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FASTSUM = os.path.join(ROOT, "tests", "fixtures", "fastsum_project")


def git(root, *args):
    return subprocess.run(["git", "-C", root, "-c", "user.email=b@example.org",
                           "-c", "user.name=bench"] + list(args), check=True,
                          stdout=subprocess.PIPE,
                          universal_newlines=True).stdout.strip()


def project(directory, python):
    root = os.path.join(directory, "fastsum")
    shutil.copytree(FASTSUM, root)
    subprocess.run([python, "-m", "gilbench", "init", "--held",
                    "fastsum._core:spin_held", "--released",
                    "fastsum._core:spin_released", "--argument", "20000"],
                   cwd=root, check=True, stdout=subprocess.DEVNULL)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    core = os.path.join(root, "fastsum", "_core.pyx")
    with open(core) as stream:
        text = stream.read()
    with open(core, "w") as stream:
        stream.write(text.replace(
            "    cdef unsigned long result\n    with nogil:\n"
            "        result = fastsum_spin(12345, n)\n    return result",
            "    return fastsum_spin(12345, n)"))
    git(root, "commit", "-q", "-am", "spin_released holds the GIL")
    return root


def check(root, python, base, head, output):
    started = time.time()
    env = dict(os.environ, GILBENCH_JUDGE_PYTHON=sys.executable)
    subprocess.run([python, "-m", "gilbench", "continuous", base, head,
                    "--module", "bench/gilbench_cases.py", "-o", output, "-q"],
                   cwd=root, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    done = subprocess.run([sys.executable, "-m", "gilbench", "compare", output,
                           "--sides", "revision=base,head",
                           "--fail-changed-answers", "-o", output + ".md"],
                          cwd=root, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, universal_newlines=True)
    return done.returncode, done.stderr.strip(), time.time() - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--keep", action="store_true",
                        help="keep the project and every run's file, and "
                        "print where")
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="gilbench-continuous-aa-")
    root = project(directory, args.python)
    passed = failed = untold = 0
    for k in range(args.repeat):
        for name, base, head in (("A/A", "HEAD~1", "HEAD~1"),
                                 ("regression", "HEAD~1", "HEAD")):
            code, said, seconds = check(root, args.python, base, head,
                                        os.path.join(directory, "%s%d.json"
                                                     % (name[0], k)))
            passed += name == "A/A" and code == 0
            failed += name == "regression" and code == 1
            untold += code == EXIT_CANNOT_TELL  # a busy machine
            print("%s %d: exit %d in %.0f s%s" % (
                name, k + 1, code, seconds, "\n  " + said if said else ""))
    print("A/A passed %d of %d; regressions failed %d of %d; %d of %d "
          "could not tell (busy machine)" % (passed, args.repeat, failed,
                                             args.repeat, untold,
                                             2 * args.repeat))
    if args.keep:
        print("kept in %s" % directory)
    else:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
