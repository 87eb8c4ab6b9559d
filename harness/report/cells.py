"""Wording of table cells: times, ratios, flags."""
from __future__ import annotations

NOISY_RSD = 0.05  # relative std dev above which a value is flagged
NOISY_MARK = "~"
OVERSUBSCRIBED_MARK = "^"
LEGEND = ("%s: relative std dev above %d%% (noisy); %s: more threads than "
          "usable CPUs (oversubscribed)." % (NOISY_MARK, NOISY_RSD * 100,
                                             OVERSUBSCRIBED_MARK))

_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns"))


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


def flags(*measurements):
    marks = ""
    if any(m.rsd > NOISY_RSD for m in measurements):
        marks += NOISY_MARK
    if any(m.threads > m.cpus_usable for m in measurements):
        marks += OVERSUBSCRIBED_MARK
    return marks


def _with_flags(text, marks):
    return "%s %s" % (text, marks) if marks else text


def ratio_cell(numerator, denominator, reason):
    """``2.77 (69.8ns/25.2ns)``, flagged; the reason when one is missing."""
    if numerator is None or denominator is None:
        return reason
    text = "%.2f (%s/%s)" % (numerator.mean / denominator.mean,
                             format_seconds(numerator.mean),
                             format_seconds(denominator.mean))
    return _with_flags(text, flags(numerator, denominator))


def raw_cell(measurement):
    text = "%s +- %s" % (format_seconds(measurement.mean),
                         format_seconds(measurement.stdev))
    return _with_flags(text, flags(measurement))


def cpu_cell(measurement):
    if measurement.cpu_utilisation is None:
        return "n/a: not recorded"
    return "%d%%" % round(measurement.cpu_utilisation * 100)
