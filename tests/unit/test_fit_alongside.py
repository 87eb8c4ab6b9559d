"""Report side (Python >= 3.9): the result files' variance fits, half of
them made in a forked child (gilbench.report.data.loader._fit_all), give
every benchmark the Spread the fit made here gives it."""
import sys

import pytest

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

from gilbench.report.data import loader  # noqa: E402
from gilbench.report.numbers import variance  # noqa: E402
from tests.helpers import WIDE_INTERPRETERS, write_matrix  # noqa: E402


def _spreads(directory):
    variance._FITTED.clear()
    results = loader.load_results([str(directory)])
    return {(r.name, r.dims["interpreter"]): variance.spread_of(r)
            for result in results for r in result.records if r.measured}


def test_the_fits_made_alongside_are_the_fits_made_here(tmp_path,
                                                        monkeypatch):
    write_matrix(tmp_path, catalogue=WIDE_INTERPRETERS)
    monkeypatch.setattr(loader, "PARALLEL_FIT_FROM", 10 ** 9)
    here = _spreads(tmp_path)
    forked = []
    real = loader.twocpus.alongside

    def alongside(first, second):
        forked.append(True)
        return real(first, second)

    monkeypatch.setattr(loader, "PARALLEL_FIT_FROM", 0)
    monkeypatch.setattr(loader.twocpus, "alongside", alongside)
    both = _spreads(tmp_path)
    assert forked
    assert len(here) > 50
    assert both == here


@pytest.mark.parametrize("parallel_from", [0, 10 ** 9])
def test_the_callers_work_is_done_once_here_while_the_files_fit(
        tmp_path, monkeypatch, parallel_from):
    """load_results's ``meanwhile`` (the figures' warm-up) runs once, in
    this process, whether the fits fork or not, and the fits it shares
    the time with are the fits made without it."""
    import os
    write_matrix(tmp_path, catalogue=WIDE_INTERPRETERS)
    monkeypatch.setattr(loader, "PARALLEL_FIT_FROM", 10 ** 9)
    alone = _spreads(tmp_path)
    monkeypatch.setattr(loader, "PARALLEL_FIT_FROM", parallel_from)
    called = []
    variance._FITTED.clear()
    results = loader.load_results([str(tmp_path)],
                                  meanwhile=lambda: called.append(
                                      os.getpid()))
    assert called == [os.getpid()]
    assert {(r.name, r.dims["interpreter"]): variance.spread_of(r)
            for result in results for r in result.records
            if r.measured} == alone
