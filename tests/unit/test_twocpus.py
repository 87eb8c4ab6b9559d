"""Report side (Python >= 3.9): gilbench.report.twocpus does one piece
of work in a forked child while this process does another, and does it
here whenever the child cannot."""
import os
import signal
import sys

import pytest

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

from gilbench.report import twocpus  # noqa: E402


def test_the_second_piece_is_done_in_another_process():
    here, there = twocpus.alongside(os.getpid, os.getpid)
    assert here == os.getpid()
    assert there != os.getpid()


def test_the_child_shares_what_this_process_holds_without_pickling():
    unpicklable_input = lambda: "made from a lambda"  # noqa: E731
    here, there = twocpus.alongside(lambda: 1, lambda: (
        unpicklable_input(), os.getpid()))
    assert here == 1
    assert there[0] == "made from a lambda" and there[1] != os.getpid()


@pytest.mark.parametrize("failure", [
    lambda: os.kill(os.getpid(), signal.SIGKILL),  # killed
    lambda: (lambda: 0),  # an answer that cannot be pickled
    lambda: 1 / 0,  # raised
])
def test_what_the_child_could_not_answer_is_done_here(failure):
    calls = []

    def there():
        calls.append(os.getpid())
        if len(calls) == 1 and os.getpid() != parent:
            return failure()
        return "answered here"
    parent = os.getpid()
    assert twocpus.alongside(lambda: "first", there) == ("first",
                                                         "answered here")
    assert calls == [parent]  # the child's call is not seen here


def test_without_fork_both_pieces_are_done_here(monkeypatch):
    import multiprocessing

    def no_fork(method=None):
        raise ValueError("cannot find context for 'fork'")
    monkeypatch.setattr(multiprocessing, "get_context", no_fork)
    assert twocpus.alongside(os.getpid, os.getpid) == (os.getpid(),
                                                       os.getpid())


def test_a_failure_here_stops_the_child_and_is_raised(tmp_path):
    mark = tmp_path / "child-finished"

    def there():
        import time
        time.sleep(5)
        mark.write_text("done")

    def here():
        raise KeyError("here")
    with pytest.raises(KeyError):
        twocpus.alongside(here, there)
    assert not mark.exists()
