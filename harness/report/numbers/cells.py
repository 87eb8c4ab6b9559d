"""Wording of numbers and flags in table cells."""
from __future__ import annotations

import math

from gilbench.model.resultformat import BUSY_SHARE
from gilbench.report.data.records import Cell

NOISY_RSD = 0.05  # relative std dev above which a value is flagged
NOISY_MARK = "~"
OVERSUBSCRIBED_MARK = "^"
BUSY_MARK = "!"
SPLIT_MARK = "#"
NOT_SIGNIFICANT_MARK = "?"
SAME_MARK = "="
# An interval whose high bound is more than this many times its low one (an
# order of magnitude) tells nothing: the cell says "too noisy to tell".
TOO_NOISY = 10.0
LEGEND = ("[low-high]: 95%% confidence interval (the worker processes' "
          "spread and their blocks' shifts); \"too noisy to tell\": an "
          "interval whose ends are more than %gx apart; %s: the same "
          "within the question's margin (10%% unless it says less: the "
          "interval's central 90%% lies inside it both ways; a best-of's "
          "winners are "
          "tied); %s: undecided (the interval reaches 1 and beyond the "
          "margin, the runner-up is within reach, or too few values to "
          "tell); %s: relative std dev above "
          "%d%% (noisy); %s: more threads or processes than usable CPUs "
          "(oversubscribed); %s: measured while other processes took over "
          "%d%% of its CPUs, and again so when measured a second time "
          "(busy machine); %s: its worker processes disagree beyond their "
          "values' scatter (a memory layout or machine state of each "
          "process's own: two modes, or noise only more processes can "
          "tell)."
          % (TOO_NOISY, SAME_MARK, NOT_SIGNIFICANT_MARK, NOISY_MARK,
             NOISY_RSD * 100,
             OVERSUBSCRIBED_MARK, BUSY_MARK, BUSY_SHARE * 100, SPLIT_MARK))
NOT_RUN = "n/a: not run"


def too_noisy(interval):
    if interval is None:
        return False
    low, high = interval
    if not (math.isfinite(low) and math.isfinite(high)):
        return False  # a crossover's "never" or "always" bound
    if low <= 0:
        return high > 0  # a positive quantity that may as well be none
    return high / low > TOO_NOISY


_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns"))
_SI = ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def format_seconds(seconds):
    """Three significant digits with the largest unit that keeps >= 1.

    Rounds first, so 9.996 ms is "10.0ms" and 999.6 us is "1.00ms".
    """
    if abs(seconds) >= 999.5:
        return "%.0fs" % seconds
    seconds = float("%.3g" % seconds)
    for scale, unit in _UNITS:
        if abs(seconds) >= scale or scale == 1e-9:
            value = float("%.3g" % (seconds / scale))
            digits = 0 if value >= 100 else 1 if value >= 10 else 2
            return "%.*f%s" % (digits, value, unit)


def significant(number, digits=3):
    """``digits`` significant digits, never an exponent: 830, 12.3,
    0.0123, 1230 (a thousand and more keeps its integer digits)."""
    number = float("%.*g" % (digits, number))
    if number == 0 or not math.isfinite(number):
        return "%g" % number
    decimals = digits - 1 - math.floor(math.log10(abs(number)))
    return "%.*f" % (max(decimals, 0), number)


def spaced(*parts):
    """The non-empty parts, one space apart."""
    return " ".join(part for part in parts if part)


def within(same):
    """``the same within 4%``: a Cell's ``same`` in words (the percent
    rounded up, never 0)."""
    return "the same within %d%%" % max(1, math.ceil(same * 100 - 1e-9))


def percent_change(ratio, interval):
    """``+8.0% [+5.1%..+11.2%]``: a ratio of after to before as a change,
    with its interval where there is one."""
    span = ("[%+.1f%%..%+.1f%%]" % tuple((x - 1) * 100 for x in interval)
            if interval else "")
    return spaced("%+.1f%%" % ((ratio - 1) * 100), span)


def factor(number):
    """A ratio or speedup: two decimals (``2.77``), three significant
    digits below 0.1 (``0.0119``), none from 100 (``158``)."""
    if abs(number) < 0.1:
        return significant(number)
    return "%.0f" % number if abs(number) >= 100 else "%.2f" % number


def multiple(number):
    """A ratio or speedup as a multiple: ``2.77x``."""
    return factor(number) + "x"


def compact(number):
    """A number in a compact matrix's cell, in at most seven characters
    from 0 to 100000, so that no answer column is wider than ``13.70x``'s
    (#65: the page's glance): three significant digits, two below a
    hundredth (``0.0058``, ``0.00058``), and ``<0.0001`` below that."""
    if 0 < number < 0.0001:
        return "<0.0001"
    return significant(number, 2 if abs(number) < 0.01 else 3)


def compact_multiple(number):
    """A ratio or speedup in a compact matrix's cell: ``2.77x``,
    ``0.0058x``, and ``<0.001x`` below a thousandth."""
    if 0 < number < 0.001:
        return "<0.001x"
    if abs(number) < 0.01:
        return compact(number) + "x"
    return multiple(number)


def si(number):
    """Three significant digits with a k/M/G suffix: 1.23M, 999, 1.00k."""
    number = float("%.3g" % number)
    for scale, suffix in _SI:
        if abs(number) >= scale:
            return significant(number / scale) + suffix
    return significant(number)


def format_quantity(number, unit):
    """A pyperf value in its unit ("second", "byte" or "integer")."""
    if unit == "second":
        return format_seconds(number)
    if unit == "byte":
        return si(number) + "B"
    return significant(number)


def flags(*records, significant=None, same=None):
    """The marks of a cell computed from ``records``; ``significant`` is
    False for a comparison its interval cannot tell from 1, ``same`` how
    close to 1 one inside its margin is."""
    if same is not None:
        marks = SAME_MARK
    else:
        marks = NOT_SIGNIFICANT_MARK if significant is False else ""
    if any(r.rsd > NOISY_RSD for r in records):
        marks += NOISY_MARK
    if any(r.oversubscribed for r in records):
        marks += OVERSUBSCRIBED_MARK
    if any(r.busy for r in records):
        marks += BUSY_MARK
    if any(r.split for r in records):
        marks += SPLIT_MARK
    return marks


def missing(reason):
    return Cell(reason, missing=True)


NA_PREFIX = "n/a:"


def not_applicable(found):
    """The distinct reasons, in first-seen order, of Cells ``found`` that
    are all "n/a: <reason>"; [] when any has a value, failed or hung."""
    reasons = []
    for cell in found:
        if not (cell.missing and cell.text.startswith(NA_PREFIX)):
            return []
        if cell.text not in reasons:
            reasons.append(cell.text)
    return reasons


PROBLEMS = ("failed", "hung")


def problem(reasons):
    """The first failure or hang among the reasons a cell's members have
    no value, else None: a cell that reads a failed benchmark says so,
    never another member's n/a nor a number computed without it."""
    for reason in reasons:
        if reason and reason.startswith(PROBLEMS):
            return reason
    return None


def first_reason(reasons):
    """What a cell missing several members says: a failure or hang
    first, else the first reason given."""
    given = [reason for reason in reasons if reason]
    return problem(given) or (given[0] if given else None)


def raw(record):
    """``1.00us +- 60.0ns``, flagged."""
    text = "%s +- %s" % (format_quantity(record.mean, record.unit),
                         format_quantity(record.stdev, record.unit))
    return Cell(text, record.mean, record.stdev, flags(record))


def cpu(record):
    if record.cpu_utilisation is None:
        return missing("n/a: not recorded")
    return Cell("%d%%" % round(record.cpu_utilisation * 100),
                record.cpu_utilisation)
