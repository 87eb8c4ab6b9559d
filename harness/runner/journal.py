"""The run journal: every finished benchmark is kept the moment it ends.

``run -o results/x.json`` works in the directory ``results/x.json.journal``:

``header.json``
    what the run is: interpreter, selection, settings and the ordered
    benchmark names; ``--resume`` refuses a journal whose header differs;
``NNNN.PID.pyperf.json``, ``NNNN.PID.stderr``, ``NNNN.PID.status``
    benchmark NNNN's work files (its pyperf program writes them), named
    after the runner process (PID) that started it: the process tree of a
    runner killed with SIGKILL dies asynchronously, and a dying pyperf
    program of the killed run must not write into the resumed run's files
    (pyperf refuses an output file that exists);
``NNNN.entry.json``
    the commit of benchmark NNNN: its name and either its failure reason or
    its pyperf file, and its state in the design's rounds (looks, decision
    looks, seconds).  It is written to a temporary name, fsync'd and
    renamed (then the directory fsync'd), after the pyperf file was
    fsync'd: a crash leaves the whole entry or none.  A round commits the
    benchmark again, with one pyperf file of all its runs;
``progress.json``
    how far the run got: the seconds it had spent and the rounds it had
    finished (what ``--resume`` goes on from), and at the end why each
    benchmark's measurement stopped.

Work files without an entry belong to a benchmark that did not finish;
resume deletes them and runs it again.  When the run completes, the output
file is written (atomically) from the entries and the journal removed.

A kill at any moment leaves the whole journal or none at its path: it is
made in ``x.json.journal.new`` and renamed into place once its header is
written, and renamed to ``x.json.journal.removing`` before it is deleted
(never a journal without a header, which --resume would refuse, nor entries
whose pyperf files are gone).  The next run deletes such leftovers.

A run owns its output: it holds an exclusive ``flock`` on ``x.json.lock``
(naming its pid and start time) from before it touches anything until its
result is written and its journal removed.  A second run on that output is
refused, whatever its flags; a killed run's lock dies with it.  Taking the
lock removes what a writer of the output killed mid-write left beside it
(``x.json.<random>.partial``): with the lock held none can be live.
"""
import errno
import fcntl
import json
import os
import re
import shutil
import time

from gilbench import atomicfile
from gilbench.errors import UsageError
from gilbench.measure import forking

JOURNAL_FORMAT = 1
_ENTRY = re.compile(r"^(\d{4,})\.entry\.json$")


def journal_dir(output):
    return output + ".journal"


def write_durably(path, data):
    """Write ``data`` (str) to ``path`` atomically and durably."""
    with atomicfile.replacing(path, durable=True) as stream:
        stream.write(data)


def _fsync_file(path):
    with open(path, "rb") as stream:
        os.fsync(stream.fileno())


class Journal(object):
    """The journal directory of one output file."""

    def __init__(self, output, header):
        self.output = output
        self.path = journal_dir(output)
        self.header = dict(header, journal_format=JOURNAL_FORMAT)

    def work_file(self, index, suffix):
        """This runner's work file of benchmark ``index``."""
        return os.path.join(self.path, "%04d.%d.%s"
                            % (index, os.getpid(), suffix))

    def _entry_file(self, index):
        return os.path.join(self.path, "%04d.entry.json" % index)

    def start(self, resume):
        """Create (or, resuming, check) the journal; return the committed
        entries as {index: entry}."""
        exists = os.path.isdir(self.path)
        if resume and not exists:
            raise UsageError("--resume: no journal of an interrupted run at "
                             "%r" % self.path)
        if not resume and exists:
            raise UsageError(
                "an interrupted run's journal is at %r: add --resume to "
                "finish that run, or --restart to discard it" % self.path)
        if not resume:
            self._create()
            return {}
        self._check_header()
        return self.entries()

    def _create(self):
        """Make the journal with its header in ``x.json.journal.new``, then
        rename it into place: a run killed while starting leaves no journal
        without a header (which --resume would refuse)."""
        fresh = self.path + ".new"
        try:
            shutil.rmtree(fresh, ignore_errors=True)  # a killed start's
            os.mkdir(fresh)
            write_durably(os.path.join(fresh, "header.json"),
                          json.dumps(self.header, sort_keys=True))
            os.rename(fresh, self.path)
            atomicfile.fsync_directory(
                os.path.dirname(os.path.abspath(self.path)))
        except (IOError, OSError) as exc:  # full or read-only disk
            shutil.rmtree(fresh, ignore_errors=True)
            raise UsageError("cannot start the run journal %r: %s"
                             % (self.path, exc.strerror or exc))

    def _check_header(self):
        try:
            with open(os.path.join(self.path, "header.json")) as stream:
                found = json.load(stream)
        except (IOError, OSError, ValueError):
            raise UsageError("--resume: %r is not a gilbench run journal "
                             "(no readable header.json)" % self.path)
        if not isinstance(found, dict) or "journal_format" not in found:
            raise UsageError("--resume: %r is not a gilbench run journal"
                             % self.path)
        for key in sorted(set(found) | set(self.header)):
            if found.get(key) != self.header.get(key):
                raise UsageError(
                    "--resume: the interrupted run had another %s (%s, now "
                    "%s); resume with the same interpreter, selection and "
                    "settings, or --restart" % (
                        key.replace("_", " "), _short(found.get(key)),
                        _short(self.header.get(key))))

    def entries(self):
        """The committed entries, {index: entry}.  An entry whose pyperf
        file is gone (a journal damaged by hand) counts as unfinished, so
        resume measures that benchmark again instead of failing the run."""
        found = {}
        for name in sorted(os.listdir(self.path)):
            match = _ENTRY.match(name)
            if not match:
                continue
            with open(os.path.join(self.path, name)) as stream:
                entry = json.load(stream)  # written atomically: whole
            if entry["pyperf"] and not os.path.exists(
                    self.pyperf_path(entry)):
                os.remove(os.path.join(self.path, name))
                continue
            found[int(match.group(1))] = entry
        return found

    def forget_unfinished(self, index):
        """Remove what unfinished attempts at ``index`` left (any runner's
        work files, a half-written entry)."""
        prefix = "%04d." % index
        entry = os.path.basename(self._entry_file(index))
        for name in os.listdir(self.path):
            if name.startswith(prefix) and name != entry:
                try:
                    os.remove(os.path.join(self.path, name))
                except OSError:  # a dying writer's file, already gone
                    pass

    def commit(self, index, name, reason, attempt="", state=None,
               pyperf=None):
        """Record benchmark ``index`` as done: measured (its pyperf file,
        of ``attempt``, is in place; or ``pyperf``, the name of one
        committed before) when ``reason`` is None, else missing for
        ``reason``; ``state``: its looks and seconds in the design's
        rounds.  Committing again replaces the entry whole."""
        entry = {"name": name, "reason": reason, "pyperf": None}
        if state:
            entry["state"] = state
        try:
            if reason is None:
                pyperf_file = (os.path.join(self.path, pyperf) if pyperf
                               else self.work_file(index,
                                                   attempt + "pyperf.json"))
                _fsync_file(pyperf_file)
                entry["pyperf"] = os.path.basename(pyperf_file)
            write_durably(self._entry_file(index),
                          json.dumps(entry, sort_keys=True))
        except (IOError, OSError) as exc:  # e.g. the disk is full
            raise UsageError("cannot write the run journal %r: %s; what "
                             "finished before is kept (--resume)"
                             % (self.path, exc.strerror or exc))
        return entry

    def pyperf_path(self, entry):
        return os.path.join(self.path, entry["pyperf"])

    def _progress_file(self):
        return os.path.join(self.path, "progress.json")

    def progress(self):
        """What save_progress kept ({} before the first)."""
        try:
            with open(self._progress_file()) as stream:
                return json.load(stream)
        except (IOError, OSError, ValueError):
            return {}

    def save_progress(self, durable=True, **told):
        """Keep ``told`` (seconds spent, rounds finished, stops) with what
        was kept before; not ``durable``: the seconds spent, which a crash
        may leave a benchmark behind."""
        kept = self.progress()
        kept.update(told)
        with atomicfile.replacing(self._progress_file(),
                                  durable=durable) as stream:
            stream.write(json.dumps(kept, sort_keys=True))

    def remove(self):
        """Delete the journal, atomically as seen from its path (see the
        module's doc), and what an earlier, killed removal left."""
        removing = self.path + ".removing"
        shutil.rmtree(removing, ignore_errors=True)
        try:
            os.rename(self.path, removing)
        except OSError:  # there is no journal
            return
        shutil.rmtree(removing, ignore_errors=True)


class OutputLock(object):
    """The exclusive claim of one run on ``output``, its journal and their
    leftovers (``with OutputLock(output): ...``)."""

    def __init__(self, output):
        # Beside the output: the journal is renamed (.new, .removing).
        self.output = output
        self.path = output + ".lock"
        self.fd = None

    def __enter__(self):
        while self.fd is None:
            fd = _open_lock_file(self.path)
            if not _try_lock(fd):
                os.close(fd)
                _refuse_if_owned(self.path)
            elif _still_at(fd, self.path):
                self.fd = fd
                forking.parent_only(fd)
            else:  # a finishing run unlinked it after we opened it
                os.close(fd)
        try:
            _write_owner(self.fd)
        except (IOError, OSError) as exc:  # e.g. a full disk
            self.__exit__()
            raise UsageError("cannot lock %r: %s"
                             % (self.path, exc.strerror or exc))
        # A run or extend SIGKILLed while writing the output left its
        # temporary: every writer of the output holds this lock, so none
        # is live now (a run refused as in use never gets here).
        atomicfile.remove_leftovers(self.output)
        return self

    def __exit__(self, *exc_info):
        # Unlinked before it is unlocked: a run that opened it meanwhile
        # and locks it after us sees it is gone (_still_at) and tries again.
        try:
            os.remove(self.path)
        except OSError:
            pass
        forking.shared_with_forks(self.fd)
        os.close(self.fd)
        self.fd = None


def _open_lock_file(path):
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except (IOError, OSError) as exc:
        raise UsageError("cannot lock %r: %s" % (path, exc.strerror or exc))
    # Benchmark programs must not inherit it (Python 2 passes fds down,
    # and a fork keeps them all): an orphan they leave would keep the
    # output locked.
    flags = fcntl.fcntl(fd, fcntl.F_GETFD)
    fcntl.fcntl(fd, fcntl.F_SETFD, flags | fcntl.FD_CLOEXEC)
    return fd


def _try_lock(fd):
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (IOError, OSError) as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


def _still_at(fd, path):
    try:
        here = os.stat(path)
    except OSError:
        return False
    held = os.fstat(fd)
    return (here.st_dev, here.st_ino) == (held.st_dev, held.st_ino)


def _write_owner(fd):
    os.ftruncate(fd, 0)
    os.write(fd, json.dumps({"pid": os.getpid(),
                             "started": time.time()}).encode("ascii"))


def _refuse_if_owned(path, attempts=20):
    """Refuse in one line naming the live run that locked ``path``, unless
    it has just ended (``path`` is gone: try again).  The owner writes its
    name just after locking (over a killed run's): it can take a moment."""
    owner = None
    for _ in range(attempts):
        if not os.path.exists(path):
            return
        owner = _read_owner(path)
        if owner and _alive(owner["pid"]):
            break
        time.sleep(0.05)
    named = ("pid %d, started %s" % (owner["pid"], time.strftime(
        "%Y-%m-%d %H:%M:%S", time.localtime(owner["started"])))
        if owner else "pid unknown")
    raise UsageError("%r is in use by a live run (%s); nothing was "
                     "touched: wait for that run to end, or stop it"
                     % (path[:-len(".lock")], named))


def _read_owner(path):
    try:
        with open(path) as stream:
            owner = json.load(stream)
        return {"pid": int(owner["pid"]), "started": float(owner["started"])}
    except (IOError, OSError, ValueError, KeyError, TypeError):
        return None


def _alive(pid):
    try:
        os.kill(pid, 0)
    except OSError as exc:
        return exc.errno == errno.EPERM
    return True


def _short(value):
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."
