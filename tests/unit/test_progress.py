import io

import pytest
from helpers import MINIMAL_PYPERF, run_harness

from gilbench.runner.progress import Progress


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_log_mode_one_line_per_benchmark_with_eta():
    stream = io.StringIO()
    shown = Progress(3, stream=stream)
    for index, name in enumerate(["a/t1", "a/t2", "b/t1"]):
        shown.start(index, name, 3 - index)
        shown.finish(ran=True)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "[1/3] a/t1"
    assert lines[1].startswith("[2/3] a/t2, ETA ")
    assert lines[2].startswith("[3/3] b/t1, ETA ")


def test_terminal_mode_rewrites_one_line():
    stream = FakeTerminal()
    shown = Progress(2, stream=stream)
    shown.start(0, "a/t1", 2)
    shown.finish(ran=True)
    assert "\n" not in stream.getvalue()
    assert stream.getvalue().startswith("\r\x1b[K[1/2] a/t1")
    assert stream.getvalue().endswith("\r\x1b[K")


def test_quiet_prints_nothing():
    stream = FakeTerminal()
    shown = Progress(2, stream=stream, quiet=True)
    shown.start(0, "a/t1", 2)
    shown.finish(ran=True)
    assert stream.getvalue() == ""


@pytest.mark.e2e
@pytest.mark.e2e
def test_run_reports_progress_on_stderr_and_quiet_silences_it(tmp_path):
    args = ["run", "--case", "gil.trivial.gil.python", "--threads", "1,2",
            "-o", tmp_path / "out.json"] + MINIMAL_PYPERF
    result = run_harness(*args)
    assert result.code == 0, result
    shown = [text for text in result.stderr_lines if text.startswith("[")]
    # The first block's order is random: either benchmark may come first.
    first, second = sorted(["gil.trivial.gil.python/t1",
                            "gil.trivial.gil.python/t2"],
                           key=lambda name: name not in shown[0])
    assert shown[0] == "[1/2] " + first, result
    assert shown[1].startswith("[2/2] %s, ETA " % second), result
    quiet = run_harness(*(args + ["--quiet"]))
    assert quiet.code == 0, quiet
    assert quiet.stderr == "", quiet
    assert "Mean" not in quiet.stdout and "2 of 2 benchmarks" in quiet.stdout
