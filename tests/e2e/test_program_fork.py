"""A benchmark's pyperf program forked from the runner: its exit code,
output and signals reach the runner as a started program's would."""
import os
import signal

import pytest

from gilbench.measure import forking

pytestmark = pytest.mark.skipif(not forking.program_fork_possible(),
                                reason="no fork, or a runner whose GIL an "
                                "import enabled")


def run(tmp_path, main, preexec=lambda: None):
    path = tmp_path / "output"
    with open(str(path), "w") as output:
        code = forking.start_program(main, output, preexec).wait()
    return code, path.read_text()


def test_the_exit_code_is_mains(tmp_path):
    assert run(tmp_path, lambda: 3) == (3, "")


def test_output_goes_to_the_file(tmp_path):
    def main():
        print("to stdout")
        os.write(2, b"to stderr\n")
        return 0
    code, said = run(tmp_path, main)
    assert code == 0 and "to stdout" in said and "to stderr" in said


@pytest.mark.parametrize("argument, code, said", [
    (None, 0, ""), (4, 4, ""), ("why not", 1, "why not\n")])
def test_sys_exit_is_an_exit(tmp_path, argument, code, said):
    def main():
        raise SystemExit(argument)
    assert run(tmp_path, main) == (code, said)


def test_an_exception_is_a_traceback_and_code_1(tmp_path):
    def main():
        raise RuntimeError("boom")
    code, said = run(tmp_path, main)
    assert code == 1 and said.strip().endswith("RuntimeError: boom")


def test_preexec_runs_in_the_child(tmp_path):
    def preexec():
        os.setsid()
    code, _ = run(tmp_path, lambda: 0 if os.getsid(0) == os.getpid()
                  else 5, preexec)
    assert code == 0


def test_a_signal_is_a_negative_code_and_the_runners_handler_is_gone(
        tmp_path):
    def handler(signum, frame):
        raise AssertionError("the runner's handler ran in the child")
    previous = signal.signal(signal.SIGTERM, handler)
    try:
        code, said = run(tmp_path,
                         lambda: os.kill(os.getpid(), signal.SIGTERM))
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert code == -signal.SIGTERM and said == ""


def test_poll_says_none_until_it_ends(tmp_path):
    readable, writable = os.pipe()

    def main():
        os.read(readable, 1)
        return 0
    with open(str(tmp_path / "output"), "w") as output:
        process = forking.start_program(main, output, lambda: None)
    try:
        assert process.poll() is None
    finally:
        os.write(writable, b"x")
    assert process.wait() == 0 and process.poll() == 0


def test_no_fork_once_the_runners_gil_was_enabled_by_an_import(monkeypatch):
    from gilbench.measure import gilguard
    monkeypatch.setattr(gilguard, "reenabled_reason",
                        lambda: "failed: GIL re-enabled by import of x")
    assert not forking.program_fork_possible()
