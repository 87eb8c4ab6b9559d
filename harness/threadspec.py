"""Parses thread-count specs such as ``1-5``, ``1,2,4`` or ``1,4-8``."""
from harness.errors import UsageError

DEFAULT_THREADS = "1-5"  # the seed write-up's range
MAX_THREADS = 1024


def _positive(text, spec):
    try:
        value = int(text)
    except ValueError:
        raise UsageError("bad thread spec %r: %r is not a whole number"
                         % (spec, text))
    if not 1 <= value <= MAX_THREADS:
        raise UsageError("bad thread spec %r: counts must be within 1..%d"
                         % (spec, MAX_THREADS))
    return value


def parse_threads(spec):
    """Sorted, de-duplicated thread counts named by ``spec``."""
    counts = set()
    for part in spec.split(","):
        part = part.strip()
        if not part:
            raise UsageError("bad thread spec %r: empty item" % (spec,))
        if "-" in part:
            low, _, high = part.partition("-")
            low, high = _positive(low, spec), _positive(high, spec)
            if low > high:
                raise UsageError("bad thread spec %r: range %s is backwards"
                                 % (spec, part))
            counts.update(range(low, high + 1))
        else:
            counts.add(_positive(part, spec))
    return sorted(counts)
