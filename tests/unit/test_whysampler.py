"""whysampler classifies py-spy's raw samples of the work's threads: a
wait for the GIL, on a lock, in the allocator, or running the call; a
sample outside the work (the start gate, the controller) counts for
nothing."""
import pytest

from gilbench.measure import whysampler

LINE = 96
BODY = "run_threads.<locals>.body (harness/measure/fanout.py:%d)" % LINE
ROOT = ("thread (7): Thread-3 (body);0x7f (libc.so.6);thread_run "
        "(libpython3.11.so.1.0);Thread.run (threading.py:982);")


def sample(*frames, count=1, root=ROOT):
    return "%s%s %d\n" % (root, ";".join(frames), count)


@pytest.mark.parametrize("frames, expected", [
    ((BODY, "work (w.py:6)", "pthread_cond_timedwait (libc.so.6)",
      "0x7f (libc.so.6)"), "gil"),
    ((BODY, "call (m.py:7)", "lock_PyThread_acquire_lock (libpython3.11.so)",
      "PyThread_acquire_lock_timed (libpython3.11.so)", "0x7f (libc.so.6)"),
     "lock"),
    # The GIL taken back after the lock: the innermost frame tells.
    ((BODY, "call (m.py:7)", "lock_PyThread_acquire_lock (libpython3.11.so)",
      "pthread_cond_timedwait (libc.so.6)"), "gil"),
    ((BODY, "call (m.py:9)", "_PyMutex_LockTimed (libpython3.13t.so)",
      "_PySemaphore_Wait (libpython3.13t.so)"), "lock"),
    ((BODY, "call (m.py:9)", "_PyObject_Malloc (libpython3.13t.so)",
      "_mi_malloc_generic (libpython3.13t.so)"), "alloc"),
    ((BODY, "call (m.py:8)", "zlib_crc32 (zlibmodule.c.h:820)",
      "crc32_z (libz.so.1.2.13)"), "running"),
    ((BODY, "call (m.py:8)"), "running"),
    # Parked at the start gate, not in the work.
    ((BODY.replace(":96", ":92"), "StartGate.arrive_and_wait (fanout.py:37)",
      "PyThread_acquire_lock_timed (libpython3.11.so)"), None),
    ((BODY,), None),
])
def test_a_sample_is_classified_by_its_innermost_telling_frame(frames,
                                                               expected):
    assert whysampler.classify(list(frames), LINE) == expected


def test_python_27_frames_name_the_function_alone():
    frames = ["body (/x/gilbench/measure/fanout.py:96)", "call (m.py:7)",
              "pthread_cond_timedwait (libc.so.6)"]
    assert whysampler.classify(frames, LINE) == "gil"


def test_shares_count_each_sample_and_leave_out_the_rest():
    lines = [
        sample(BODY, "work (w.py:6)", "pthread_cond_timedwait (libc.so.6)",
               count=30),
        sample(BODY, "work (w.py:6)", "crc32_z (libz.so.1)", count=70),
        sample("<module> (x.py:1)", "Thread.join (threading.py:1119)",
               "PyThread_acquire_lock_timed (libpython3.11.so)", count=500,
               root="thread (5): MainThread;"),
        "py-spy> a line that is no sample\n",
    ]
    found, total = whysampler.shares(lines, LINE)
    assert total == 100
    assert found == {"gil": 0.3, "lock": 0.0, "alloc": 0.0, "running": 0.7}


def test_the_work_line_is_where_fanout_calls_the_work():
    import inspect

    from gilbench.measure import fanout
    lines, first = inspect.getsourcelines(fanout.run_threads)
    assert "work(loops)" in lines[whysampler._work_line() - first]


def test_without_py_spy_the_sample_says_why(monkeypatch, tmp_path):
    monkeypatch.setenv(whysampler.ENVIRONMENT, str(tmp_path / "py-spy"))
    said = whysampler.sample(lambda: None)
    assert said == {whysampler.UNAVAILABLE: "n/a: py-spy not found (pip "
                    "install py-spy, or GILBENCH_PY_SPY=PATH)"}
