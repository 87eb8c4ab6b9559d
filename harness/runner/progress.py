"""Progress of a run on stderr: which benchmark, k of N, and an ETA.

On a terminal one line is rewritten in place; otherwise (a log, CI) each
benchmark gets a line of its own.  The ETA is the mean time of the
benchmarks run so far times those left (n/a ones take no time and do not
count).
"""
import sys
import time


def _duration(seconds):
    seconds = int(round(seconds))
    if seconds >= 3600:
        return "%dh%02dm" % (seconds // 3600, seconds % 3600 // 60)
    if seconds >= 60:
        return "%dm%02ds" % (seconds // 60, seconds % 60)
    return "%ds" % seconds


class Progress(object):
    def __init__(self, total, stream=None, quiet=False):
        self.total = total
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.in_place = hasattr(self.stream, "isatty") and \
            self.stream.isatty()
        self.timed = []  # durations of the benchmarks that ran
        self._started = None

    def start(self, index, name, to_run):
        """The ``index``-th benchmark (0-based, in the run's order) begins;
        ``to_run`` of all the remaining ones will actually run (not n/a,
        not done before)."""
        self._started = time.time()
        if self.quiet:
            return
        eta = ""
        if self.timed and to_run:
            mean = sum(self.timed) / len(self.timed)
            eta = ", ETA %s" % _duration(mean * to_run)
        line = "[%d/%d] %s%s" % (index + 1, self.total, name, eta)
        if self.in_place:
            self.stream.write("\r\x1b[K" + line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def finish(self, ran):
        """The benchmark begun last is over; ``ran``: it was measured (or
        failed) rather than skipped."""
        if ran and self._started is not None:
            self.timed.append(time.time() - self._started)
        self.clear()

    def clear(self):
        """Before other output: take the in-place line away."""
        if self.in_place and not self.quiet:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
