"""Case module for tests/test_busy_machine.py: a case whose first set-up
leaves a CPU hog behind, outside its own process tree (a double fork: the
runner, a subreaper, adopts it and ends it after the benchmark), so its
first measurement is taken on a busy machine and its second is not.

GILBENCH_TEST_HOG_MARKER names the file that says the hog was started.
"""
import os
import subprocess
import sys

from gilbench.api import CaseSpec

HOG = "import time\nend = time.time() + 60\nwhile time.time() < end: pass\n"
LEAVE = ("import subprocess, sys\n"
         "subprocess.Popen([sys.executable, '-c', %r])\n" % HOG)


def _prepare(params):
    marker = os.environ["GILBENCH_TEST_HOG_MARKER"]
    if not os.path.exists(marker):
        open(marker, "w").close()
        subprocess.check_call([sys.executable, "-c", LEAVE])

    def work(loops):
        total = 0
        for i in range(loops * 100):
            total += i
    return work


CASES = [CaseSpec("busy", "first", "v", "python", _prepare,
                  "its first measurement has a CPU hog beside it")]
