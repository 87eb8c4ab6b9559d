"""Starting a benchmark's pyperf program as a fork of the runner: the
interpreter is up and pyperf imported already, so the program skips an
interpreter start and its imports.

On a free-threaded build only while the runner's GIL is as a fresh
program's would be: an import in the runner may have enabled it, and a
fork would inherit that."""
import os
import signal
import sys

from gilbench.measure import forking, gilguard


def possible():
    return hasattr(os, "fork") and gilguard.reenabled_reason() is None


def start(main, output, preexec):
    """Fork; the child runs ``preexec()`` then ``main()`` with stdout and
    stderr on ``output`` (a file) and exits with main's exit code."""
    def child():
        os.dup2(output.fileno(), 1)
        os.dup2(output.fileno(), 2)
        # The streams on those descriptors, whatever replaced them here.
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        preexec()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the runner's
        return main()
    return forking.start(child)
