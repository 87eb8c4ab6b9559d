"""Running a function in a fork of this process as a started process
would run it: its exit code (minus the signal number when killed, as
subprocess.Popen says), what it wrote, SystemExit and exceptions as an
interpreter would end on them.

The runner forks benchmark programs (:func:`start_program`), and a
benchmark program forks its loop calibration and its workers
(gilbench.measure.loopcalibration, gilbench.measure.forkedworkers).

What a fork resets, re-seeds or shares on purpose: docs/architecture.rst
("What a fork inherits"); :func:`_begin` does the first two.

Worker side: Python 2.7 compatible.  POSIX only.
"""
import os
import platform
import random
import signal
import sys
import traceback

from gilbench.measure import gilguard, pyperfinternals


class ForkedProcess(object):
    """What :mod:`gilbench.runner.child` uses of subprocess.Popen, for a
    process made by os.fork: pid, poll(), wait(), returncode."""

    def __init__(self, pid):
        self.pid = pid
        self.returncode = None

    def poll(self):
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = _code(status)
        return self.returncode

    def wait(self):
        if self.returncode is None:
            self.returncode = _code(os.waitpid(self.pid, 0)[1])
        return self.returncode


def start(main):
    """Fork; the child runs ``main()`` and exits with its exit code."""
    flush()  # nothing buffered may be written twice
    _ask_platform_once()
    pid = os.fork()
    if pid:
        return ForkedProcess(pid)
    code = 1
    try:
        _begin()
        code = exit_code(main())
    except SystemExit as exc:
        code = exit_code(exc.code)
    except BaseException:
        traceback.print_exc()
    finally:
        flush()
        os._exit(code)


_parent_only = set()  # descriptors no fork of this process may hold


def program_fork_possible():
    """Whether a benchmark's pyperf program may start as a fork of the
    runner (the interpreter up, pyperf imported: no interpreter start).
    On a free-threaded build only while the runner's GIL is as a fresh
    program's would be: an import in the runner may have enabled it, and
    a fork would inherit that."""
    return hasattr(os, "fork") and gilguard.reenabled_reason() is None


def start_program(main, output, preexec):
    """Fork a benchmark program; the child runs ``preexec()`` then
    ``main()`` with stdout and stderr on ``output`` (a file) and exits
    with main's exit code."""
    def child():
        os.dup2(output.fileno(), 1)
        os.dup2(output.fileno(), 2)
        # The streams on those descriptors, whatever replaced them here.
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        preexec()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the runner's
        return main()
    return start(child)


def parent_only(fd):
    """Close ``fd`` in every fork :func:`start` makes from now on (a
    run's output lock: a fork's leftover would keep it locked)."""
    _parent_only.add(fd)


def shared_with_forks(fd):
    """Undo :func:`parent_only` (before ``fd`` is closed here)."""
    _parent_only.discard(fd)


def _begin():
    """Start the fork as a new process: without the descriptors that are
    its parent's alone, with an empty pyperf watchdog (a dead Runner
    class's id must not refuse the fork's own) and its own random
    streams, as a fresh interpreter's would be (Python 2.7 does not
    re-seed ``random`` in a fork; numpy never re-seeds its global)."""
    for fd in _parent_only:
        os.close(fd)
    _parent_only.clear()
    pyperfinternals.forget_runners()
    new_random_streams()


def new_random_streams():
    """Seed ``random`` and numpy's global generator from the OS, as a
    fresh interpreter does, in a process that forked from another."""
    random.seed()
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed()


def call(main):
    """Run ``main(fd)`` in a fork, ``fd`` the writing end of a pipe;
    return (what it wrote there, its exit code)."""
    readable, writable = os.pipe()

    def child():
        os.close(readable)
        return main(writable)
    process = start(child)
    os.close(writable)
    with os.fdopen(readable) as stream:
        said = stream.read()
    return said, process.wait()


_ARCHITECTURE = platform.architecture
_architectures = {}


def _architecture(executable=sys.executable, bits="", linkage=""):
    """platform.architecture, remembered: it runs ``file -b`` on the
    executable every time it is asked."""
    key = (executable, bits, linkage)
    if key not in _architectures:
        _architectures[key] = _ARCHITECTURE(executable, bits, linkage)
    return _architectures[key]


def _ask_platform_once():
    """pyperf's metadata of every run asks platform for the processor
    (``uname -p``) and the interpreter's bits (``file -b``), a process
    start each: asked here before forking, the forks inherit the answers
    (platform caches the first; the second is remembered here)."""
    platform.architecture = _architecture
    platform.architecture()
    platform.platform(True, False)


def flush():
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        stream.flush()


def exit_code(code):
    """sys.exit's argument (or main's return value) as an exit code."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    sys.stderr.write("%s\n" % (code,))
    return 1


def _code(status):
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return os.WEXITSTATUS(status)
