"""Starting a benchmark's pyperf program as a fork of the runner: the
interpreter is up and pyperf imported already, so the program skips an
interpreter start and its imports.  Its workers are still started fresh
by pyperf (``python -m gilbench bench --worker``): only the program that
calibrates and collects is forked.

Not on a free-threaded build: an import in the runner may have enabled
the GIL there, and a fork would inherit that state."""
import os
import signal
import sys
import traceback

from gilbench.measure import gilguard


def possible():
    return hasattr(os, "fork") and not gilguard.free_threaded_build()


class ForkedProcess(object):
    """What :mod:`gilbench.runner.child` uses of subprocess.Popen, for a
    process made by os.fork: pid, poll(), wait(), returncode (minus the
    signal number when killed, as Popen says)."""

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


def _code(status):
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def start(main, output, preexec):
    """Fork; the child runs ``preexec()`` then ``main()`` with stdout and
    stderr on ``output`` (a file) and exits with main's exit code."""
    _flush()  # nothing buffered may be written twice
    pid = os.fork()
    if pid:
        return ForkedProcess(pid)
    code = 1
    try:
        os.dup2(output.fileno(), 1)
        os.dup2(output.fileno(), 2)
        # The streams on those descriptors, whatever replaced them here.
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        preexec()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the runner's
        code = main()
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except BaseException:
        traceback.print_exc()
    finally:
        _flush()
        os._exit(code)


def _flush():
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        stream.flush()


def _exit_code(code):
    """sys.exit's argument as the process's exit code."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    sys.stderr.write("%s\n" % (code,))
    return 1
