import pytest

from harness.errors import UsageError
from harness.threadspec import DEFAULT_THREADS, MAX_THREADS, parse_threads


@pytest.mark.parametrize("spec, expected", [
    ("1-5", [1, 2, 3, 4, 5]),
    ("1,2,4", [1, 2, 4]),
    ("1,4-6", [1, 4, 5, 6]),
    ("4-6,1", [1, 4, 5, 6]),
    ("3", [3]),
    ("2-2", [2]),
    (" 1 , 3 ", [1, 3]),
    ("1,%d" % MAX_THREADS, [1, MAX_THREADS]),
])
def test_valid_specs(spec, expected):
    assert parse_threads(spec) == expected


@pytest.mark.parametrize("spec", ["1,1,2", "2,1-3,3", "1-3,2-4"])
def test_duplicates_are_merged_and_sorted(spec):
    counts = parse_threads(spec)
    assert counts == sorted(set(counts))
    assert len(counts) == len(set(counts))
    assert counts[0] == 1


def test_default_is_the_seed_range():
    assert parse_threads(DEFAULT_THREADS) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("spec", [
    "0", "a", "3-1", "", "1,,2", "2000", str(MAX_THREADS + 1), "-1", "1-",
    "-", "1-a", "1.5", ",", "1,", "0-3",
])
def test_bad_specs_raise_usage_error(spec):
    with pytest.raises(UsageError) as info:
        parse_threads(spec)
    # The message names the spec so the user can see what was refused.
    assert repr(spec) in str(info.value)
