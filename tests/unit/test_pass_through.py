"""Options gilbench run and timeit do not know go on to pyperf whole: a
pyperf option is never read as an abbreviation of one of ours (pyperf's
--loops is not our --loops-from)."""
import pytest

from gilbench.runner import cli, timeitcmd


@pytest.mark.parametrize("given", [["--loops", "4"], ["--loops=4"],
                                   ["-l", "4"], ["--min-time", "0.1"]])
def test_run_hands_a_pyperf_option_to_pyperf(given):
    args, rest = cli.run_parser().parse_known_args(given)
    assert rest == given
    assert args.loops_from is None


def test_timeit_reads_pyperfs_loops_as_pyperfs():
    args, _ = timeitcmd.parser().parse_known_args(["pass", "--loops=4"])
    assert args.loops_from is None


@pytest.mark.parametrize("make", [cli.run_parser, timeitcmd.parser])
def test_our_own_options_are_still_read(make):
    args, _ = make().parse_known_args(["--loops-from", "old.json", "pass"])
    assert args.loops_from == "old.json"
