"""gilbench.measure.fanout.run_threads: N real threads, started together,
timed from the first start to the last end."""
import threading
import time

import pytest

from gilbench.measure import fanout


@pytest.mark.parametrize("nthreads", [1, 2, 4, 8])
def test_n_threads_run_concurrently(nthreads):
    barrier = threading.Barrier(nthreads, timeout=10)
    idents, lock = [], threading.Lock()

    def work(loops):
        with lock:
            idents.append(threading.get_ident())
        # Passes only once all nthreads are inside work() at the same time;
        # otherwise BrokenBarrierError, which run_threads re-raises.
        barrier.wait()

    result = fanout.run_threads(work, nthreads, 1)
    assert len(idents) == nthreads
    assert len(set(idents)) == nthreads
    assert threading.get_ident() not in idents
    assert result.wall > 0


def test_fewer_threads_than_the_barrier_needs_fails():
    """Sanity check of the test above: with too few threads the barrier
    breaks and the error comes back through run_threads."""
    barrier = threading.Barrier(3, timeout=0.3)
    with pytest.raises(threading.BrokenBarrierError):
        fanout.run_threads(lambda loops: barrier.wait(), 2, 1)


def test_loops_are_passed_to_every_thread():
    seen, lock = [], threading.Lock()

    def work(loops):
        with lock:
            seen.append(loops)

    fanout.run_threads(work, 3, 12345)
    assert seen == [12345] * 3


def test_exception_in_one_thread_is_reraised_after_all_finish():
    calls, finished, lock = [], [], threading.Lock()

    def work(loops):
        with lock:
            calls.append(None)
            first = len(calls) == 1
        if first:
            raise ValueError("boom in one thread")
        time.sleep(0.05)
        with lock:
            finished.append(None)

    with pytest.raises(ValueError, match="boom in one thread"):
        fanout.run_threads(work, 4, 1)
    assert len(calls) == 4
    assert len(finished) == 3  # the others ran to the end first


def test_no_thread_left_behind_after_run():
    before = threading.active_count()
    fanout.run_threads(lambda loops: time.sleep(0.01), 5, 1)
    assert threading.active_count() == before


def test_wall_is_first_start_to_last_end_not_the_sum():
    result = fanout.run_threads(lambda loops: time.sleep(0.2), 3, 1)
    assert 0.2 <= result.wall < 0.4, result.wall


def test_wall_excludes_thread_start_up(monkeypatch):
    """Threads are parked before the clock starts: with a thread start-up
    made slow (0.1 s per thread), a work function that returns at once
    still gives a wall far below the 0.4 s spent starting threads."""
    original = threading.Thread

    class SlowStart(original):
        def start(self):
            original.start(self)
            time.sleep(0.1)

    monkeypatch.setattr(fanout.threading, "Thread", SlowStart)
    started = time.perf_counter()
    result = fanout.run_threads(lambda loops: None, 4, 1)
    assert time.perf_counter() - started >= 0.4  # the slow start happened
    assert 0 <= result.wall < 0.1, result.wall


def test_wall_covers_the_slowest_thread():
    delays = iter([0.0, 0.0, 0.25])
    lock = threading.Lock()

    def work(loops):
        with lock:
            delay = next(delays)
        time.sleep(delay)

    result = fanout.run_threads(work, 3, 1)
    assert 0.25 <= result.wall < 0.45, result.wall


def _spin(seconds):
    def work(loops):
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass
    return work


def test_cpu_utilisation_of_sleeping_threads_is_low():
    result = fanout.run_threads(lambda loops: time.sleep(0.3), 2, 1)
    assert 0.0 <= result.cpu_utilisation < 0.3, result.cpu_utilisation


def test_cpu_utilisation_of_one_busy_thread_is_about_one_core():
    result = fanout.run_threads(_spin(0.3), 1, 1)
    assert 0.25 < result.cpu_utilisation < 1.3, result.cpu_utilisation


def test_cpu_utilisation_resolves_short_timed_regions():
    """BUG: harness/metrics.py process_cpu_seconds uses psutil's
    cpu_times(), which on Linux counts clock ticks (10 ms), so the CPU
    utilisation of a timed region of a few ms is 0.0 or ~2.0 instead of
    ~1.0 for one busy thread (and pyperf's 50 ms values are off by up to
    +-20%).  time.process_time() (or resource.getrusage on 2.7) has ns/us
    resolution."""
    samples = [fanout.run_threads(_spin(0.005), 1, 1).cpu_utilisation
               for _ in range(10)]
    assert all(0.0 < u < 1.5 for u in samples), samples


def test_each_thread_knows_its_worker_index():
    from gilbench.measure.workerindex import worker_index
    seen, lock = [], threading.Lock()

    def work(loops):
        with lock:
            seen.append(worker_index())

    fanout.run_threads(work, 4, 1)
    assert sorted(seen) == [0, 1, 2, 3]
    assert worker_index() is None  # the controller is no worker


def test_arrivals_wake_the_controller_not_the_parked_threads():
    """A thread parked at the gate is woken only by its opening: an
    arrival that woke the others left one still waking when the gate
    opened, and it started late."""
    gate = fanout.StartGate(3)
    woken = []
    for name in ("notify", "notify_all"):
        def counted(*args, _original=getattr(gate._opened, name)):
            woken.append(args)
            return _original(*args)
        setattr(gate._opened, name, counted)
    threads = [threading.Thread(target=gate.arrive_and_wait)
               for _ in range(3)]
    for thread in threads:
        thread.start()
    gate.wait_for_all()
    assert woken == []
    gate.open()
    for thread in threads:
        thread.join(10)
    assert woken and not any(thread.is_alive() for thread in threads)


def test_each_thread_probes_alone_before_the_clock_starts():
    inside, most, lock = [0], [0], threading.Lock()
    started = []

    def probe():
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.01)
        with lock:
            inside[0] -= 1
        return float(threading.get_ident())

    def work(loops):
        started.append(time.time())
        time.sleep(0.01)

    before = time.time()
    result = fanout.run_threads(work, 4, 1, probe=probe)
    # Four probes of 10 ms, one at a time, all before the gate opened:
    # none of their 40 ms is in the timed wall.
    assert most[0] == 1
    assert sorted(result.probes) == sorted(set(result.probes))
    assert len(result.probes) == 4
    assert min(started) - before >= 0.035
    assert result.wall < 0.035
