"""A team of child processes, a pipe each, that start each value together."""
import multiprocessing
import os
import signal
import threading
import time
import traceback

from gilbench.measure.forking import new_random_streams
from gilbench.measure.lifelines import die_with_parent
from gilbench.signals import signal_name

POLL_SECONDS = 0.05
TERM_SECONDS = 1.0  # from SIGTERM to SIGKILL in close()


class TeamError(RuntimeError):
    """A child process of the team died, raised, or never answered."""


class NotReleased(RuntimeError):
    """A parked child waited longer than it was told for the gate."""


def fork_context():
    if hasattr(multiprocessing, "get_context"):
        return multiprocessing.get_context("fork")
    return multiprocessing  # Python 2.7: fork


def last_line():
    """The last line of the current exception's traceback."""
    lines = traceback.format_exc().strip().splitlines()
    return lines[-1] if lines else "unknown error"


# --- the child's side ------------------------------------------------------

def _child_main(main, index, conn, arrived, go, unavailable, args):
    die_with_parent()
    new_random_streams()  # siblings must not draw the same numbers
    try:
        main(Member(index, conn, arrived, go, unavailable), *args)
    except KeyboardInterrupt:  # Ctrl-C reaches every process: no traceback
        raise SystemExit(1)


class Member(object):
    """A child's end of its team: the handshake, its orders, the gate."""

    def __init__(self, index, conn, arrived, go, unavailable):
        self.index = index
        self._conn, self._arrived, self._go = conn, arrived, go
        self._unavailable = unavailable
        self._lock = threading.Lock()  # a child's threads share one pipe

    def set_up(self, make):
        """``make()`` returns (what this child keeps, what the controller
        is told): say ready with the latter, or why not.  What it keeps;
        None when set-up failed (the controller has been told)."""
        try:
            kept, told = make()
            message = ("ready", told)
        except self._unavailable as exc:
            kept, message = None, ("unavailable", str(exc))
        except BaseException:
            kept, message = None, ("error", last_line())
        self._send(message)
        return kept

    def orders(self):
        """Each value's ``loops``, until told to stop or orphaned."""
        while True:
            try:
                loops = self._conn.recv()
            except EOFError:  # the controller is gone
                return
            if loops is None:
                return
            yield loops

    def park(self, timeout=None):
        """Wait at the gate until the controller opens it for all."""
        self._arrived.release()
        if not self._go.wait(timeout):
            raise NotReleased("the gate did not open within %d s" % timeout)

    def reply(self, payload):
        self._send(("value", payload))

    def fail(self):
        """Report the exception being handled."""
        self._send(("error", last_line()))

    def _send(self, message):
        with self._lock:
            self._conn.send(message)


# --- the controller's side -------------------------------------------------

class Team(object):
    """Child i runs ``main(member, *args[i])`` in a daemonic process of
    ``context`` (fork by default) that dies with this one.

    ``role`` names the children in messages; failures raise ``error``.
    ``unavailable``: an exception class that a child's set-up raises to
    say "not here"; it is raised again here (the service family passes
    registry.Unavailable; a processes-driver worker's is a failure).
    Only a ``gated`` team parks at the gate.  ``watch``:
    teams this one depends on, checked first, so that a failure names the
    process whose death caused it.
    """

    def __init__(self, main, args, role="worker", error=TeamError,
                 unavailable=None, context=None, gated=True, watch=()):
        context = context or fork_context()
        self.role, self.error, self.unavailable = role, error, unavailable
        self.watch = list(watch)
        self.count = len(args)
        self.arrived = context.Semaphore(0) if gated else None
        self.go = context.Event() if gated else None
        self.conns, self.processes = [], []
        try:
            for index, child_args in enumerate(args):
                parent_end, child_end = context.Pipe()
                process = context.Process(
                    target=_child_main,
                    args=(main, index, child_end, self.arrived, self.go,
                          unavailable or (), tuple(child_args)))
                process.daemon = True
                process.start()
                child_end.close()
                self.conns.append(parent_end)
                self.processes.append(process)
        except BaseException:
            self.close()
            raise

    def pids(self):
        return [process.pid for process in self.processes]

    def ready(self, timeout=None, each=1):
        """What each child's set-up told, ``each`` answers a child."""
        return [self.receive(index, "ready", timeout)
                for index in range(self.count) for _ in range(each)]

    def park(self, loops, timeout=None):
        """Send every child ``loops``; return once all wait at the gate."""
        # Closed here, not after the replies (every child is past it
        # either way): the caller's clock around release() holds no more.
        self.go.clear()
        for conn in self.conns:
            conn.send(loops)
        deadline = None if timeout is None else time.time() + timeout
        for _ in range(self.count):
            while not self.arrived.acquire(True, POLL_SECONDS):
                self.check_alive()
                if deadline is not None and time.time() > deadline:
                    raise self.error("%ss did not park within %d s"
                                     % (self.role, timeout))

    def release(self, timeout=None):
        """Open the gate; every child's reply, in child order."""
        self.go.set()
        return [self.receive(index, "value", timeout)
                for index in range(self.count)]

    def receive(self, index, expected, timeout=None):
        conn = self.conns[index]
        deadline = None if timeout is None else time.time() + timeout
        while not conn.poll(POLL_SECONDS):
            self.check_alive()
            if deadline is not None and time.time() > deadline:
                raise self.error("%s %d did not answer within %d s"
                                 % (self.role, index, timeout))
        try:
            kind, payload = conn.recv()
        except EOFError:  # raised in here, the failure would read EOFError
            kind, payload = "died", None
        if kind == "died":  # say how, once it has been reaped
            self.processes[index].join(1.0)
            self.check_alive()
            raise self.error("%s process %d closed its pipe"
                             % (self.role, index))
        if kind == "unavailable":
            raise self.unavailable("%s %d: %s" % (self.role, index, payload))
        if kind == "error":
            for team in self.watch:  # the cause, when one of those died
                team.check_alive()
            raise self.error("%s process %d of %d raised %s"
                             % (self.role, index, self.count, payload))
        assert kind == expected, (kind, expected)
        return payload

    def check_alive(self):
        """Raise ``error`` naming the first dead process, watched first."""
        for team in self.watch:
            team.check_alive()
        for index, process in enumerate(self.processes):
            code = process.exitcode
            if code is not None:
                raise self.error("%s process %d of %d %s"
                                 % (self.role, index, self.count, _how(code)))

    def close(self, grace=1.0):
        """Stop every child; none may outlive the team.  Told to stop, it
        has ``grace`` seconds, then SIGTERM, then SIGKILL."""
        for conn in self.conns:
            try:
                conn.send(None)
            except (IOError, OSError, ValueError):
                pass
        self._join(grace)
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        self._join(TERM_SECONDS)
        for process in self.processes:
            if process.is_alive():
                os.kill(process.pid, signal.SIGKILL)
                process.join()
        self.processes, self.conns = [], []

    def _join(self, seconds):
        deadline = time.time() + seconds
        for process in self.processes:
            process.join(max(0.0, deadline - time.time()))


def _how(code):
    if code < 0:
        return "was killed by %s" % signal_name(-code)
    return "exited with code %d" % code
