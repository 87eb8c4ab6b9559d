"""Whether a page's RST parses: docutils' warnings and errors for it.

docutils takes about a second per 6,000 lines of the report's tables, so
a long page is checked in two parts at once, one in a forked child
(gilbench.report.twocpus, on the second CPU the report otherwise leaves
idle at its end), split before a section of the page's first section
style near its middle.  Parsed alone, each part keeps its sections'
levels relative to one another, and the report holds no reference from
one part to the other (no hyperlinks, no substitutions), so the parts
say what the whole would.  The child reads nothing but its part of the
text (docutils is imported before the fork, so it does not import it
again).
"""
from __future__ import annotations

import io
import re

from gilbench.report import twocpus

# Below this many lines, forking costs more than the half it saves.
SPLIT_FROM = 3000
_ADORNMENT = r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]"""
# A line of text and, under it, one adornment character repeated: a
# section title (or, when a rule is above it too, an overlined one).
_UNDERLINED = re.compile(r"^(?=\S)(.*)\n(%s)\2*[ \t]*$" % _ADORNMENT, re.M)
_RULE = re.compile(r"(%s)\1*[ \t]*" % _ADORNMENT)
_WHERE = re.compile(r"^<string>:(\d+):", re.M)


def problems(text):
    """docutils' warnings and errors for ``text`` (empty when clean),
    their line numbers those of ``text``."""
    parts = split(text) if text.count("\n") >= SPLIT_FROM else [text]
    if len(parts) == 1:
        return _problems(text)
    import docutils.core  # noqa: F401 (imported once, before the fork)
    first, found = twocpus.alongside(lambda: _problems(parts[0]),
                                     lambda: _problems(parts[1]))
    offset = parts[0].count("\n")
    return first + _WHERE.sub(
        lambda match: "<string>:%d:" % (int(match.group(1)) + offset), found)


def split(text):
    """[text] cut in two before the section title of the first section
    style nearest its middle (an underlined title, as the report's
    sections are); [text] when there is no such title past the first."""
    style, starts = None, []
    for match in _UNDERLINED.finditer(text):
        above = text.rfind("\n", 0, max(match.start() - 1, 0))
        if _RULE.fullmatch(text[above + 1:max(match.start() - 1, 0)]):
            continue  # overlined: the page's title, or a table's rows
        if style is None:
            style = match.group(2)
        if match.group(2) == style:
            starts.append(match.start())
    middle = len(text) // 2
    starts = [start for start in starts[1:] if text[:start].endswith("\n\n")]
    if not starts:
        return [text]
    cut = min(starts, key=lambda start: abs(start - middle))
    return [text[:cut], text[cut:]]


def _problems(text):
    import docutils.core
    stream = io.StringIO()
    docutils.core.publish_doctree(
        text, settings_overrides={"warning_stream": stream,
                                  "report_level": 2, "halt_level": 5})
    return stream.getvalue()
