"""The master's loop calibration doubles the count as pyperf does, but a
call stalled past ``--min-time`` (the process preempted on a busy
machine) is timed once more instead of fixing a count whose every value
would fall short."""
import pytest

from gilbench.measure import loopcalibration


class FakeWork:
    """A millisecond a loop, plus ``stalls[loops]`` seconds on the first
    call at that count."""

    def __init__(self, stalls=None):
        self.stalls = dict(stalls or {})
        self.calls = []

    def __call__(self, loops):
        self.calls.append(loops)
        return loops * 0.001 + self.stalls.pop(loops, 0.0)


def test_a_quiet_doubling_stops_at_the_first_call_reaching_min_time():
    work = FakeWork()
    loops, warmups = loopcalibration._double(work, 0.05)
    assert loops == 64
    assert work.calls == [2 ** i for i in range(7)]
    assert [count for count, _ in warmups] == work.calls


def test_a_stalled_call_is_timed_again_and_the_doubling_goes_on():
    work = FakeWork(stalls={16: 0.2})  # 0.216 s where 0.016 was due
    loops, warmups = loopcalibration._double(work, 0.05)
    assert loops == 64
    assert work.calls == [1, 2, 4, 8, 16, 16, 32, 64]
    assert warmups[4] == (16, pytest.approx(0.216 / 16))


def test_a_slow_call_that_holds_on_a_second_timing_is_taken():
    # A jump at the last step that a second call confirms (work that grows
    # faster than its loops, say) ends the doubling there.
    work = FakeWork()
    work_at = {1: 0.001, 2: 0.002, 4: 0.1}
    loops, _ = loopcalibration._double(lambda n: work(n) and work_at[n],
                                       0.05)
    assert loops == 4 and work.calls == [1, 2, 4, 4]


def test_a_first_call_past_min_time_is_taken_at_once():
    work = FakeWork(stalls={1: 0.2})
    assert loopcalibration._double(work, 0.05)[0] == 1
    assert work.calls == [1]


def test_scaled_calibration_lands_a_call_just_past_min_time():
    # Doubling lands 0.064 s for a minimum of 0.05; scaling lands about
    # MARGIN times it, for less calibration time.
    work = FakeWork()
    loops, warmups = loopcalibration._scale(work, 0.05)
    assert 0.05 <= loops * 0.001 <= 0.05 * loopcalibration.MARGIN + 0.001
    assert sum(work.calls) * 0.001 < 0.064 * 2
    assert [count for count, _ in warmups] == work.calls


def test_a_scaled_call_stalled_low_is_scaled_again():
    # The call scaled from was stalled: the scaled count falls short of
    # the minimum, and a second scale from that call's time reaches it.
    work = FakeWork(stalls={24: 0.004})  # 0.028 s where 0.024 was due
    loops, _ = loopcalibration._scale(work, 0.05)
    assert loops * 0.001 >= 0.05
    # 1 ms, then 12 of the 12.5 ms aimed at, then doubling past it.
    assert work.calls[:3] == [1, 12, 24]
    assert len(work.calls) == 5 and work.calls[3] * 0.001 < 0.05


def test_a_fast_call_climbs_by_up_to_climb_a_call():
    # A microsecond a loop: doubling would take 15 calls to reach the
    # 12.5 ms scaled from; the climb takes at most CLIMB times a call,
    # and no call before the last of the climb reaches it.
    calls = []

    def fast(loops):
        calls.append(loops)
        return loops * 1e-6
    loops, warmups = loopcalibration._scale(fast, 0.05)
    assert 0.05 <= loops * 1e-6 <= 0.05 * loopcalibration.MARGIN + 1e-6
    assert calls[:3] == [1, loopcalibration.CLIMB, loopcalibration.CLIMB ** 2]
    assert all(b <= loopcalibration.CLIMB * a
               for a, b in zip(calls, calls[1:-1]))
    aimed = 0.05 * loopcalibration.SCALE_FROM
    climbed = [n for n in calls if n * 1e-6 < aimed]
    assert len(calls) - len(climbed) <= 2
    assert len(calls) <= 8
