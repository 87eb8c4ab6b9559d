"""A case that declares only interruptions slow its values (the machine's
ceiling) has its interrupted values left out by the report, and only
those: not a process the machine slowed as a whole, not a lone value, not
a faster one."""
import sys

import pyperf
import pytest
from helpers import gil, write_result

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

from gilbench.model.resultformat import (  # noqa: E402
    INTERRUPTIONS,
    OUTLIERS_KEY,
)
from gilbench.report.data import interruptions, loader  # noqa: E402
from gilbench.report.tables import pivot  # noqa: E402

STEADY = [[5.10, 5.12, 5.11, 5.13], [5.09, 5.11, 5.12, 5.10],
          [5.13, 5.10, 5.11, 5.12]]


def test_a_value_an_interruption_slowed_is_left_out():
    runs = [list(run) for run in STEADY]
    runs[1][2] = 6.9
    kept, left_out = interruptions.kept(runs)
    assert left_out == 1
    assert kept[1] == (5.09, 5.11, 5.10)
    assert kept[0] == tuple(STEADY[0]) and kept[2] == tuple(STEADY[2])


def test_a_process_the_machine_slowed_whole_keeps_its_values():
    """Every value of one process 7% slower is a phase of the machine
    (the blocks' shifts and the probe's business), not an interruption,
    though each lies beyond the fence of the benchmark's median."""
    runs = [list(run) for run in STEADY] + [[5.50, 5.44, 5.47, 5.46]]
    assert interruptions.kept(runs) == (tuple(map(tuple, runs)), 0)


def test_a_faster_value_a_lone_value_and_no_spread_are_kept():
    faster = [list(run) for run in STEADY]
    faster[0][0] = 4.0
    assert interruptions.kept(faster)[1] == 0
    lone = [list(run) for run in STEADY] + [[6.9]]
    assert interruptions.kept(lone)[1] == 0
    flat = [[5.0, 5.0], [5.0, 5.0], [5.0, 9.0]]
    assert interruptions.kept(flat) == (((5.0, 5.0), (5.0, 5.0),
                                         (5.0, 9.0)), 0)


def _file(tmp_path, declared):
    extra = {OUTLIERS_KEY: INTERRUPTIONS} if declared else {}
    slowed = [[v * 1e-6 for v in run] for run in STEADY]
    slowed[0][1] = 6.9e-6
    return write_result(tmp_path, "py311.json", "3.11.7", [
        (gil("trivial", "nogil", "cython", 1),
         [[v * 1e-6 for v in run] for run in STEADY], {"extra": extra}),
        (gil("trivial", "nogil", "cython", 2), slowed, {"extra": extra})])


@pytest.mark.parametrize("declared", [True, False])
def test_the_report_reads_the_kept_values_and_says_how_many(tmp_path,
                                                            declared):
    path = _file(tmp_path, declared)
    results = loader.load_results([str(path)])
    record = [r for r in results[0].records if r.dims["threads"] == 2][0]
    suite = pyperf.BenchmarkSuite.load(str(path))
    in_file = [b for b in suite.get_benchmarks()
               if b.get_name() == record.name][0]
    assert len(in_file.get_values()) == 12  # the file keeps every value
    tables = pivot.declared_tables(
        results, "gil", results[0].tables["gil"][0], results[0].axes["gil"])
    note = tables[0].note
    if declared:
        assert record.interruptions == 1 and len(record.values) == 11
        assert record.mean == pytest.approx(
            (sum(v for run in STEADY for v in run) - STEADY[0][1])
            * 1e-6 / 11)
        assert record.mean < in_file.mean()
        assert "Interruptions left out: 1 of 24 values" in note
    else:
        assert record.interruptions is None and len(record.values) == 12
        assert record.mean == pytest.approx(in_file.mean())
        assert "Interruptions" not in note
