"""Cases that misbehave in the ways a real extension can, for
tests/test_journal.py and bench/fault_campaign.py.  Each must cost only
its own result.

* ``fault.quick.*``: eight small, well-behaved benchmarks (threads 1, 2)
  for kill-and-resume runs;
* ``fault.orphan``: forks a process that calls setsid and sleeps (it would
  outlive the benchmark and the runner);
* ``fault.leak``: starts a non-daemon thread that never ends;
* ``fault.gil_deadlock``: blocks forever in C while holding the GIL;
* ``fault.hog``: allocates until the address-space limit stops it;
* ``fault.gate``: keeps its run alive until a test opens the gate (see
  ``_gate``), for tests of a second run against a live one.

Loaded by path; standard library and gilbench.api only.
"""
import os
import threading
import time

from gilbench.api import CaseSpec

FAMILY = "fault"
MARKER = "gilbench-fault-orphan"


def _adder(params):
    def work(loops):
        total = 0
        for i in range(loops * 50):
            total += i
    return work


def _orphan(params):
    def work(loops):
        if getattr(work, "forked", False):
            return
        work.forked = True
        if os.fork() == 0:  # the orphan: its own session, a findable name
            os.setsid()
            try:
                os.execlp("sleep", "sleep", "3600", MARKER)
            finally:
                os._exit(1)
    return work


def _leak(params):
    def work(loops):
        if not getattr(work, "started", False):
            work.started = True
            threading.Thread(target=time.sleep, args=(3600,)).start()
        for _ in range(loops):
            pass
    return work


def _gil_deadlock(params):
    import ctypes

    def work(loops):
        # PyDLL keeps the GIL held during the call, as a C extension
        # deadlocked inside a GIL-held call would.
        ctypes.PyDLL(None).pause()
    return work


def _hog(params):
    def work(loops):
        hoard = []
        while True:
            hoard.append(bytearray(64 * 1024 * 1024))
    return work


def _gate(params):
    # Says it is waiting (GATE.waiting), then waits until the test creates
    # the file GILBENCH_TEST_GATE names; at most a minute, so a failed test
    # cannot hang.
    gate = os.environ.get("GILBENCH_TEST_GATE")

    def work(loops):
        if not gate:
            return
        open(gate + ".waiting", "w").close()
        deadline = time.time() + 60
        while not os.path.exists(gate) and time.time() < deadline:
            time.sleep(0.01)
    return work


QUICK = ["q%d" % i for i in range(4)]

CASES = [CaseSpec(FAMILY, name, "v", "python", _adder, "well behaved")
         for name in QUICK] + [
    CaseSpec(FAMILY, "orphan", "v", "python", _orphan,
             "leaves a setsid'd process behind"),
    CaseSpec(FAMILY, "leak", "v", "python", _leak,
             "leaves a non-daemon thread running"),
    CaseSpec(FAMILY, "gil_deadlock", "v", "python", _gil_deadlock,
             "blocks in C holding the GIL"),
    CaseSpec(FAMILY, "hog", "v", "python", _hog, "exhausts memory"),
    CaseSpec(FAMILY, "gate", "v", "python", _gate,
             "waits until the test opens its gate"),
]
