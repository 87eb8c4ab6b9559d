"""Text made safe for one line of a table, a title or a figure label."""
from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def one_line(text):
    """Tabs, newlines and other control characters (e.g. from a failure
    reason taken from stderr) would break a table row: make them spaces."""
    return _CONTROL.sub(" ", text)
