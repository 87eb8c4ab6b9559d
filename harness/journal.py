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
    its pyperf file.  It is written to a temporary name, fsync'd and
    renamed (then the directory fsync'd), after the pyperf file was
    fsync'd: a crash leaves the whole entry or none.

Work files without an entry belong to a benchmark that did not finish;
resume deletes them and runs it again.  When the run completes, the output
file is written (atomically) from the entries and the journal removed.

A kill at any moment leaves the whole journal or none at its path: it is
made in ``x.json.journal.new`` and renamed into place once its header is
written, and renamed to ``x.json.journal.removing`` before it is deleted
(never a journal without a header, which --resume would refuse, nor entries
whose pyperf files are gone).  The next run deletes such leftovers.
"""
import json
import os
import re
import shutil

from gilbench.errors import UsageError

JOURNAL_FORMAT = 1
_ENTRY = re.compile(r"^(\d{4,})\.entry\.json$")


def journal_dir(output):
    return output + ".journal"


def _fsync_dir(path):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # some platforms cannot open a directory
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_durably(path, data):
    """Write ``data`` (str) to ``path`` atomically and durably."""
    partial = path + ".tmp"
    with open(partial, "w") as stream:
        stream.write(data)
        stream.flush()
        os.fsync(stream.fileno())
    os.rename(partial, path)
    _fsync_dir(os.path.dirname(os.path.abspath(path)))


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
            _fsync_dir(os.path.dirname(os.path.abspath(self.path)))
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

    def commit(self, index, name, reason):
        """Record benchmark ``index`` as done: measured (its pyperf file is
        in place) when ``reason`` is None, else missing for ``reason``."""
        entry = {"name": name, "reason": reason, "pyperf": None}
        if reason is None:
            pyperf_file = self.work_file(index, "pyperf.json")
            _fsync_file(pyperf_file)
            entry["pyperf"] = os.path.basename(pyperf_file)
        write_durably(self._entry_file(index),
                      json.dumps(entry, sort_keys=True))
        return entry

    def pyperf_path(self, entry):
        return os.path.join(self.path, entry["pyperf"])

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


def _short(value):
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."
