"""Report side (Python >= 3.9): ``report``/``compare`` output is replaced
whole, even when two of them write one ``-o`` at the same moment."""
import multiprocessing
import os
import sys

import pytest

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

from gilbench.report.pages.output import write_atomically  # noqa: E402


def _write(args):
    path, text, start = args
    start.wait()
    write_atomically(path, text)


def test_two_writers_at_once_leave_one_whole_file(tmp_path):
    path = str(tmp_path / "report.rst")
    texts = ["a" * 2_000_000, "b" * 1_000_000]  # long: the writes overlap
    context = multiprocessing.get_context("fork")
    for _ in range(20):
        start = context.Event()
        workers = [context.Process(target=_write, args=((path, t, start),))
                   for t in texts]
        for worker in workers:
            worker.start()
        start.set()
        for worker in workers:
            worker.join(30)
            assert worker.exitcode == 0
        with open(path) as written:
            assert written.read() in texts
        assert os.listdir(str(tmp_path)) == ["report.rst"]


def test_the_output_keeps_the_usual_permissions(tmp_path):
    path = tmp_path / "report.md"
    write_atomically(str(path), "x")
    mask = os.umask(0)
    os.umask(mask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask
