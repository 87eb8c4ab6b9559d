"""``--why``: where the measured threads wait, sampled from outside.

py-spy (``record --native --idle --threads``) reads this process's
native and Python stacks from another process, without changing the
program, while the benchmark's work runs extra values: before the timed
ones, which stay unsampled.  Each sample of a thread inside the work
(fanout's call of ``work(loops)``) is classified by the innermost frame
that tells:

* ``gil``: waiting for the GIL (``take_gil``; CPython's GIL waits in
  ``pthread_cond_timedwait``, its frames inlined away);
* ``lock``: waiting on a lock or a critical section
  (``PyThread_acquire_lock_timed``, ``pthread_mutex_lock``, ``sem_*``,
  ``_PySemaphore_Wait``, ``PyMutex``);
* ``alloc``: in the allocator or in reference counting;
* ``running``: anything else, the call itself.

The shares go into the run's metadata (``why_gil``, ``why_lock``,
``why_alloc``, ``why_running``, and ``why_samples``, their count); where
py-spy cannot sample (not installed, no permission to attach, an
interpreter it cannot read: PyPy, a free-threaded build in py-spy 0.4),
``why_unavailable`` says why instead.

Worker side: Python 2.7-compatible, standard library only.
"""
import inspect
import os
import re
import subprocess
import sys
import tempfile
import threading

from gilbench.measure import fanout
from gilbench.model import resultformat

ENVIRONMENT = "GILBENCH_PY_SPY"  # py-spy's path, where it is not on PATH
SECONDS = 1  # py-spy's --duration: whole seconds
RATE = 200  # samples per second and thread
ATTACH_TIMEOUT = 10.0
UNAVAILABLE = resultformat.WHY_UNAVAILABLE_KEY
CLASSES = resultformat.WHY_CLASSES

# Innermost first: the first frame that matches one of these, reading
# from the leaf, classifies the sample.
_FRAMES = [
    ("lock", re.compile(r"^(PyThread_acquire_lock|pthread_mutex_(timed)?lock|"
                        r"__lll_lock_wait|sem_(clock|timed)?wait|"
                        r"_PySemaphore_Wait|_?PyMutex_Lock|"
                        r"_PyCriticalSection|_PyMutex_LockTimed)\w* \(")),
    ("gil", re.compile(r"^(take_gil|pthread_cond_(timed)?wait|"
                       r"PyEval_RestoreThread|PyEval_AcquireThread)\w* \(")),
    ("alloc", re.compile(r"^(_?PyObject_(Malloc|Free|Calloc|Realloc)|"
                         r"_?PyMem_|_?mi_|malloc|free|_int_(malloc|free)|"
                         r"_Py_Dealloc|_Py_(Merge|Explicit|Brc|IncRefShared|"
                         r"DecRefShared)|_Py_brc_)\w* \(")),
]
_SAMPLE = re.compile(r"^thread \((\d+)\): ([^;]*);(.*) (\d+)$")


def locate():
    """py-spy's path, or None."""
    given = os.environ.get(ENVIRONMENT)
    if given:
        return given if os.access(given, os.X_OK) else None
    # Beside this interpreter first: where ``pip install py-spy`` put it.
    for directory in [os.path.dirname(sys.executable)] + os.environ.get(
            "PATH", "").split(os.pathsep):
        path = os.path.join(directory, "py-spy")
        if directory and os.access(path, os.X_OK):
            return path
    return None


def export():
    """Name py-spy in ENVIRONMENT for the benchmark programs, which may run
    another interpreter, without it beside them: where this process finds
    one and none is named yet."""
    found = locate()
    if found and not os.environ.get(ENVIRONMENT):
        os.environ[ENVIRONMENT] = found


def _work_line():
    """The line of fanout.run_threads where each thread calls the work."""
    lines, first = inspect.getsourcelines(fanout.run_threads)
    for offset, line in enumerate(lines):
        if "= work(loops)" in line:
            return first + offset
    raise RuntimeError("fanout.run_threads calls no work(loops)")


def classify(frames, work_line):
    """The class of one sample's frames (root first), or None where the
    thread was not inside the work."""
    # py-spy names a frame "run_threads.<locals>.body (path/fanout.py:96)"
    # (co_qualname; co_name on older Pythons).
    call = re.compile(r"(^|\.)body \((.*/)?fanout\.py:%d\)$" % work_line)
    inside = [k for k, frame in enumerate(frames) if call.search(frame)]
    if not inside or inside[-1] == len(frames) - 1:
        return None
    for frame in reversed(frames[inside[-1] + 1:]):
        for name, pattern in _FRAMES:
            if pattern.match(frame):
                return name
    return "running"


def shares(raw_lines, work_line):
    """{class: share of the work's samples} and their count, from py-spy's
    raw output (``thread (tid): name;frame;...;frame count`` lines)."""
    counts = dict((name, 0) for name in CLASSES)
    for line in raw_lines:
        found = _SAMPLE.match(line.rstrip("\n"))
        if not found:
            continue
        name = classify(found.group(3).split(";"), work_line)
        if name is not None:
            counts[name] += int(found.group(4))
    total = sum(counts.values())
    return dict((name, counts[name] / float(total) if total else 0.0)
                for name in CLASSES), total


def sample(run_values):
    """Metadata saying where the work's threads spent ``run_values()``'s
    time (called again until py-spy's window ends), or why not."""
    spy = locate()
    if spy is None:
        return {UNAVAILABLE: "n/a: py-spy not found (pip install py-spy, "
                             "or %s=PATH)" % ENVIRONMENT}
    handle, output = tempfile.mkstemp(prefix="gilbench-why-", suffix=".txt")
    os.close(handle)
    try:
        return _sampled(spy, output, run_values)
    finally:
        os.remove(output)


def _sampled(spy, output, run_values):
    process = subprocess.Popen(
        [spy, "record", "--pid", str(os.getpid()), "--rate", str(RATE),
         "--duration", str(SECONDS), "--native", "--idle", "--threads",
         "--format", "raw", "--output", output],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    said = []
    sampling = threading.Event()  # py-spy said it attached
    settled = threading.Event()  # it attached, or it ended

    def read():
        for line in iter(process.stdout.readline, b""):
            text = line.decode("utf-8", "replace").strip()
            said.append(text)
            if "Sampling process" in text:
                sampling.set()
                settled.set()
        settled.set()

    reader = threading.Thread(target=read)
    reader.daemon = True
    reader.start()
    settled.wait(ATTACH_TIMEOUT)
    while process.poll() is None and sampling.is_set():
        run_values()
    if process.poll() is None:  # never attached within the timeout
        process.kill()
    process.wait()
    reader.join(ATTACH_TIMEOUT)
    if process.returncode != 0:
        errors = [s for s in said if s and not s.startswith("py-spy>")]
        return {UNAVAILABLE: "n/a: py-spy could not sample this "
                             "interpreter: %s" % (
                                 errors[0] if errors else
                                 "exit %s" % process.returncode)}
    with open(output) as stream:
        found, total = shares(stream, _work_line())
    if not total:
        return {UNAVAILABLE: "n/a: py-spy saw no thread inside the work"}
    facts = dict(("why_" + name, round(share, 4))
                 for name, share in found.items())
    facts["why_samples"] = total
    return facts
