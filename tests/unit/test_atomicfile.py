"""gilbench.atomicfile: a file is replaced whole or not at all."""
import os

import pytest

from gilbench import atomicfile


def test_a_finished_write_replaces_the_file_with_open_s_mode(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old")
    with atomicfile.replacing(str(target), durable=True) as stream:
        stream.write(u"new \u00e9")
    assert target.read_text(encoding="utf-8") == u"new \u00e9"
    mask = os.umask(0)
    os.umask(mask)
    assert os.stat(str(target)).st_mode & 0o777 == 0o666 & ~mask
    assert os.listdir(str(tmp_path)) == ["out.json"]


def test_an_interrupted_write_leaves_the_old_file_and_no_temporary(
        tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old")
    with pytest.raises(KeyboardInterrupt):
        with atomicfile.replacing(str(target)) as stream:
            stream.write(u"half")
            raise KeyboardInterrupt
    assert target.read_text() == "old"
    assert os.listdir(str(tmp_path)) == ["out.json"]


def test_a_missing_directory_is_an_error_before_anything_is_written(
        tmp_path):
    with pytest.raises(OSError):
        with atomicfile.replacing(str(tmp_path / "nope" / "out.json")):
            pass
