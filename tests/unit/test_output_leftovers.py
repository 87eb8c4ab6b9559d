"""What a killed writer leaves beside an output (its atomicfile temporary)
is removed by the output's next owner, never a live writer's.

CI's concurrency round once failed on ``x.json.<random>.partial``: a run
SIGKILLed while writing its result file leaves that temporary, and the run
that finished the output after it did not remove it."""
import json
import os

import pytest

from gilbench import atomicfile
from gilbench.errors import UsageError
from gilbench.runner import journal


def killed_writers_leftovers(output):
    """What a run SIGKILLed while writing ``output`` leaves: its lock file
    (unlocked: the lock died with it) and, under a name atomicfile really
    makes, its temporary, half written and never renamed."""
    before = set(os.listdir(os.path.dirname(output)))
    with atomicfile.replacing(output) as stream:  # to learn the name
        stream.write(u"{}")
        partial, = set(os.listdir(os.path.dirname(output))) - before
    partial = os.path.join(os.path.dirname(output), partial)
    with open(partial, "w") as half:
        half.write('{"benchmarks": [')
    with open(output + ".lock", "w") as lock:
        json.dump({"pid": 2 ** 22 + 1, "started": 0.0}, lock)  # no such pid
    return partial


def test_the_next_owner_removes_a_killed_writers_temporary(tmp_path):
    output = str(tmp_path / "x.json")
    partial = killed_writers_leftovers(output)
    with journal.OutputLock(output):
        assert not os.path.exists(partial)
        with atomicfile.replacing(output) as stream:
            stream.write(u"{}")
    assert os.listdir(str(tmp_path)) == ["x.json"]


def test_a_refused_run_leaves_the_live_writers_temporary(tmp_path):
    output = str(tmp_path / "x.json")
    with journal.OutputLock(output):
        with atomicfile.replacing(output) as stream:
            stream.write(u"{}")
            partial, = [name for name in os.listdir(str(tmp_path))
                        if name.endswith(".partial")]
            with pytest.raises(UsageError, match="in use by a live run"):
                with journal.OutputLock(output):
                    pass  # pragma: no cover
            assert os.path.exists(str(tmp_path / partial))
    assert os.listdir(str(tmp_path)) == ["x.json"]


def test_only_the_outputs_own_temporaries_are_leftovers(tmp_path):
    output = str(tmp_path / "x.json")
    others = ["x.json.journal", "x.json.notes.txt", "y.json.abcd1234.partial",
              "x.json.more.json.abcd1234.partial", "x.jsonabcd1234.partial"]
    for name in others:
        (tmp_path / name).write_text("kept")
    killed_writers_leftovers(output)
    (tmp_path / "x.json.HMLS7H.partial").write_text("2.7's mkstemp name")
    with journal.OutputLock(output):
        pass
    assert sorted(os.listdir(str(tmp_path))) == sorted(others + ["x.json"])
