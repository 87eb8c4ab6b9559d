"""--time: how long run and timeit measure, one scale folding --quick,
--fast, --rigorous, --design and --budget (which still work, each with a
one-line notice)."""
import argparse

import pytest

from gilbench.errors import UsageError
from gilbench.runner import cli, howlong, timeitcmd


@pytest.mark.parametrize("make", [cli.run_parser, timeitcmd.parser])
@pytest.mark.parametrize("told, quick, design, budget, pyperf", [
    ("quick", True, "adaptive", None, []),
    ("adaptive", False, "adaptive", None, []),
    ("45", False, "adaptive", 45.0, []),
    ("rigorous", False, "adaptive", None, ["--rigorous"]),
    ("fixed", False, "fixed", None, []),
])
def test_each_word_sets_what_its_old_spelling_did(make, told, quick, design,
                                                  budget, pyperf):
    argv = ["--time", told] + (["stmt"] if make is timeitcmd.parser else [])
    args, rest = make().parse_known_args(argv)
    options = howlong.fold(args, [])
    assert (args.quick, args.design, args.budget, options) == (
        quick, design, budget, pyperf)


@pytest.mark.parametrize("told", ["soon", "0", "-5", "nan"])
def test_anything_else_is_one_line(told):
    with pytest.raises(UsageError) as raised:
        howlong.fold(argparse.Namespace(time=told), [])
    assert "one of quick, adaptive, rigorous, fixed" in str(raised.value)


def test_each_old_spelling_says_its_word_once():
    said = howlong.notices(["--quick", "--design", "fixed", "--budget=30",
                            "--rigorous", "--quick", "-p", "4"])
    assert said == [
        "gilbench: --quick still works; how long to measure is one option "
        "now: --time quick",
        "gilbench: --design still works; how long to measure is one option "
        "now: --time fixed",
        "gilbench: --budget still works; how long to measure is one option "
        "now: --time SECONDS",
        "gilbench: --rigorous still works; how long to measure is one "
        "option now: --time rigorous"]
    assert howlong.notices(["--time", "quick", "--threads", "1,2"]) == []


def test_processes_means_the_drivers_counts_to_run_as_to_timeit():
    """--processes is the processes driver's counts (as --threads the
    threads driver's); pyperf's worker processes are -p, which passes
    through."""
    args, rest = cli.run_parser().parse_known_args(
        ["--processes", "1,2", "--threads", "1-3", "-p", "4"])
    assert cli.parse_params(args) == {"threads": "1-3", "processes": "1,2"}
    assert rest == ["-p", "4"]
    timeit_args, _ = timeitcmd.parser().parse_known_args(
        ["--processes", "1,2", "stmt"])
    assert timeit_args.processes == "1,2"


def test_extends_more_workers_are_minus_p_and_its_old_spelling_works():
    from gilbench.runner import extend
    for argv in (["r.json", "x", "-p", "3"], ["r.json", "x", "--processes",
                                              "3"]):
        assert extend.parser().parse_args(argv).processes == 3
