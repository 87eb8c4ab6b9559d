"""A tiny case family for tests/test_registry.py: pure-Python prepare
functions, one unavailable spec (its check() refuses) and a TABLES
declaration."""
from gilbench.api import CaseSpec, Unavailable, ratio, table

FAMILY = "fake"
UNAVAILABLE_REASON = "no widget here"
CUSTOM_VALUE_MEANS = "seconds per widget"


def _adder(params):
    def work(loops):
        total = 0
        for i in range(loops):
            total += i
        return total
    return work


def _sleeper(params):
    def work(loops):
        return None
    return work


def _no_widget(params):
    raise Unavailable(UNAVAILABLE_REASON)


CASES = [
    CaseSpec(FAMILY, "alpha", "on", "python", _adder, "alpha, switched on"),
    CaseSpec(FAMILY, "alpha", "off", "python", _sleeper, "alpha, off"),
    CaseSpec(FAMILY, "beta", "on", "widget", _no_widget, "needs a widget",
             check=_no_widget),
    CaseSpec(FAMILY, "beta", "off", "python", _adder, "beta, custom",
             value_means=CUSTOM_VALUE_MEANS),
]

TABLES = [
    table("on/off", rows="threads", per=["case", "backend"],
          cell=ratio(over="variant", numerator="on", denominator="off",
                     fallback={"backend": "python"}),
          note="widgets fall back"),
]

BASE_NAMES = [
    "fake.alpha.on.python",
    "fake.alpha.off.python",
    "fake.beta.on.widget",
    "fake.beta.off.python",
]
