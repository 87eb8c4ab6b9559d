"""What a tox env or file name claims about its interpreter, and the one
line a run says when the interpreter is not that (a ``py313t`` env that
tox resolved to 3.11)."""
import sys

import pytest

from gilbench.model import envnames


@pytest.mark.parametrize("name, pypy, version, free", [
    ("py313t", False, (3, 13), True),
    ("py313t-gil", False, (3, 13), True),
    ("py27", False, (2, 7), False),
    ("pypy311", True, (3, 11), False),
    ("pypy3", True, (3,), False),
    ("py3", False, (3,), False),
    ("results_py314", False, (3, 14), False),
])
def test_a_name_claims_an_interpreter(name, pypy, version, free):
    claim = envnames.named(name)
    assert (claim.pypy, claim.version, claim.free_threaded) == (
        pypy, version, free)


@pytest.mark.parametrize("name", ["report", "mine", "python", "spy313"])
def test_other_names_claim_nothing(name):
    assert envnames.named(name) is None


def test_what_differs_is_said_and_a_match_says_nothing():
    claim = envnames.named("py313t")
    assert envnames.mismatch(claim, False, (3, 11), False) == (
        "version 3.11, not a free-threaded build")
    assert envnames.mismatch(claim, False, (3, 13), True) == ""
    # py names any implementation; pypy only PyPy.
    assert envnames.mismatch(envnames.named("py39"), True, (3, 9), False) == ""
    assert envnames.mismatch(envnames.named("pypy3"), False, (3, 9),
                             False) == "not PyPy"


def test_a_run_names_its_env_and_file_once(monkeypatch):
    monkeypatch.setattr(envnames, "this_interpreter",
                        lambda: (False, (3, 11), False))
    monkeypatch.setenv("TOX_ENV_NAME", "py313t")
    said = envnames.misnamed("results/py313t.json")
    assert said == (
        "tox env py313t and output file py313t.json named Python 3.13t, but "
        "this is CPython 3.11 (%s: version 3.11, not a free-threaded build)"
        % sys.executable)
    monkeypatch.setenv("TOX_ENV_NAME", "py311")
    assert envnames.misnamed("results/py311.json") == ""
    monkeypatch.delenv("TOX_ENV_NAME")
    assert envnames.misnamed("mine.json") == ""


def test_every_known_env_names_the_build_its_basepython_is():
    for interpreter in envnames.KNOWN:
        claim = envnames.named(interpreter.name)
        assert interpreter.basepython.endswith(
            ".".join(str(p) for p in claim.version)
            + ("t" if claim.free_threaded else "")), interpreter.name
        assert interpreter.gil_on == interpreter.name.endswith("-gil")
