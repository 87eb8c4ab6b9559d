"""``record_per_value``: a number per value, kept as its mean over the
run's measured values -- not the loop calibration's values (windows of 1,
2, 4... loops) nor the warmups that come before them.  The lock family's
fairness recorded the mean over every value of its process, and the
calibration fork's runs read Jain's index 0.64-0.78 beside its workers'
0.95-1.00 (the main job, 2026-11-29)."""
import pytest

from gilbench.errors import UsageError
from gilbench.measure import record


@pytest.fixture
def sink():
    found = {}
    record.set_sink(found)
    record._per_value.clear()
    yield found
    record.set_sink(None)
    record._per_value.clear()


def test_the_run_keeps_the_mean_of_its_measured_values(sink):
    for calibration in (0.5, 0.55, 0.7):  # loops 1, 2, 4
        record.record_per_value(fairness=calibration)
        record.settle(2)
    record.record_per_value(fairness=0.9)  # the warmup
    record.settle(2)
    for measured in (1.0, 0.98):
        record.record_per_value(fairness=measured)
        record.settle(2)
    assert sink["fairness"] == pytest.approx(0.99)


def test_a_value_reads_as_itself_until_the_run_settles(sink):
    record.record_per_value(fairness=0.75)
    assert sink["fairness"] == 0.75


@pytest.mark.parametrize("given", [{"fairness": True}, {"fairness": "0.9"},
                                   {"loops": 3}])
def test_per_value_numbers_are_checked(sink, given):
    with pytest.raises(UsageError):
        record.record_per_value(**given)
