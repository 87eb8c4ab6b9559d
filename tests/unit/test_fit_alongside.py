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
