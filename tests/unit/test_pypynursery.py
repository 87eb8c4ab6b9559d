"""PyPy's nursery capped for forked benchmark programs
(gilbench.measure.pypynursery): when a measuring command starts itself
again, and with what."""
import pytest

from gilbench.measure import pypynursery


@pytest.mark.parametrize("text, size", [
    ("240.0MB", 240 * 2 ** 20), ("16.0MB", 16 * 2 ** 20),
    ("512.0kB", 512 * 2 ** 10), ("1.5GB", int(1.5 * 2 ** 30)),
    ("4096", 4096), ("lots", None), ("", None),
])
def test_size_bytes(text, size):
    assert pypynursery.size_bytes(text) == size


def test_a_nursery_above_the_cap_restarts_with_the_cap():
    environ = pypynursery.capped_environ({"PATH": "/bin"}, "240.0MB")
    assert environ == {"PATH": "/bin", pypynursery.VARIABLE: "16MB",
                       pypynursery.RESTARTED: "240.0MB"}


@pytest.mark.parametrize("environ, stated", [
    ({}, None),  # not PyPy
    ({}, "16.0MB"),  # within the cap
    ({}, "4.0MB"),
    ({pypynursery.VARIABLE: "512MB"}, "512.0MB"),  # the user's choice
    ({pypynursery.RESTARTED: "240.0MB"}, "240.0MB"),  # never twice
    ({}, "an unknown form"),
])
def test_no_restart(environ, stated):
    assert pypynursery.capped_environ(environ, stated) is None


def test_cpython_states_no_nursery():
    import platform
    if platform.python_implementation() == "PyPy":
        pytest.skip("the tests' own interpreter is PyPy")
    assert pypynursery.nursery() is None and pypynursery.facts() == {}
