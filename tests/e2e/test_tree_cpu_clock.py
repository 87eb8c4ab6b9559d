"""The process tree's CPU clock (gilbench.measure.metrics.TreeCpuClock),
which custom cases such as the executor family read around their timed
windows: it finds every descendant, counts their CPU, and not its own."""
import statistics
import subprocess
import sys
import time

import psutil

from gilbench.measure import metrics

BUSY = "import time\nend = time.time() + %r\nwhile time.time() < end: pass\n"


def _tree(shell_children=2):
    """A child shell with ``shell_children`` sleeping children."""
    script = " & ".join(["sleep 5"] * shell_children) + " & wait"
    child = subprocess.Popen(["sh", "-c", script])
    deadline = time.time() + 5
    while (len(psutil.Process(child.pid).children()) < shell_children
           and time.time() < deadline):
        time.sleep(0.01)
    return child


def _stop(child):
    for proc in psutil.Process(child.pid).children(recursive=True):
        proc.kill()
    child.kill()
    child.wait()


def test_descendants_are_psutils_children_and_grandchildren():
    child = _tree()
    try:
        found = sorted(proc.pid for proc in metrics.descendants())
        expected = sorted(proc.pid for proc in
                          psutil.Process().children(recursive=True))
        tree = [child.pid] + [proc.pid for proc in
                              psutil.Process(child.pid).children()]
    finally:
        _stop(child)
    assert found == expected
    assert len(tree) == 3 and set(tree) <= set(found)


def test_a_busy_child_counts():
    clock = metrics.TreeCpuClock()
    subprocess.check_call([sys.executable, "-c", BUSY % 0.3])
    assert clock.elapsed() > 0.2  # reaped: getrusage's share


def test_a_live_busy_child_counts():
    child = subprocess.Popen([sys.executable, "-c", BUSY % 1.0])
    try:
        clock = metrics.TreeCpuClock()
        time.sleep(0.4)
        assert clock.elapsed() > 0.2  # still live: psutil's share
    finally:
        child.kill()
        child.wait()


def test_an_empty_window_costs_no_cpu_even_with_children_to_find():
    child = _tree(4)
    try:
        samples = [metrics.TreeCpuClock().elapsed() for _ in range(20)]
    finally:
        _stop(child)
    # Reading the children's times is the clock's work, not the window's.
    assert statistics.median(samples) < 0.0002, samples
