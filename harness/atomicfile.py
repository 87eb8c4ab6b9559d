"""Replacing a file whole: write a temporary file of this writer's own
beside it, then rename it over the target.

A reader sees the old file or the new one, never a half-written one; an
interrupted writer leaves the old file (and no temporary); two writers of
one path each replace it whole, the last one winning.  A killed writer
(SIGKILL) leaves its temporary: the path's owner, once no other writer of
it can be live, removes it (:func:`remove_leftovers`).  Worker side: the
journal, result files and the report's pages all write through here, so
the source stays importable on Python 2.7.
"""
import contextlib
import io
import os
import re
import sys
import tempfile

SUFFIX = ".partial"


@contextlib.contextmanager
def replacing(path, durable=False):
    """A text stream (UTF-8) whose contents replace ``path`` when the
    block ends without an exception; ``durable``: fsync the file and its
    directory, so the new version survives a machine crash."""
    directory = os.path.dirname(os.path.abspath(path))
    handle, partial = tempfile.mkstemp(
        dir=directory, prefix=os.path.basename(path) + ".",
        suffix=SUFFIX)
    try:
        # Python 2's json and pyperf write byte strings: a plain file.
        stream = (os.fdopen(handle, "w") if sys.version_info[0] < 3
                  else io.open(handle, "w", encoding="utf-8"))
        with stream:
            yield stream
            stream.flush()
            if durable:
                os.fsync(stream.fileno())
        os.chmod(partial, 0o666 & ~_umask())  # as open() would have made it
        os.rename(partial, path)  # atomic over an existing file on POSIX
    except BaseException:
        if os.path.exists(partial):
            os.remove(partial)
        raise
    if durable:
        fsync_directory(directory)


def remove_leftovers(path):
    """Remove the temporaries killed writers of ``path`` left beside it.
    Only for a caller that knows no writer of ``path`` is live (it holds
    the path's lock): a live writer's rename would fail without its own."""
    directory, name = os.path.split(os.path.abspath(path))
    # replacing()'s names: the target's, a dot, mkstemp's random part
    # (2.7's has capitals).
    own = re.compile(re.escape(name) + r"\.[A-Za-z0-9_]+" + re.escape(SUFFIX)
                     + r"\Z")
    try:
        names = os.listdir(directory)
    except OSError:  # a write-only directory: a leftover fails nothing
        return
    for found in names:
        if own.match(found):
            try:
                os.remove(os.path.join(directory, found))
            except OSError:  # gone already
                pass


def fsync_directory(path):
    """Make a rename in directory ``path`` durable, where the platform
    can open a directory."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask
