"""Makes matplotlib's SVG smaller without changing what it draws.

matplotlib writes coordinates with six decimals (its SVG backend has no
setting for that), indents every element, and repeats the whole font
fallback list on every text.  A plot is 504 x 230 pt scaled to at most
50rem, so a hundredth of a point is far below a pixel; on the page's
hundreds of plots the rest is most of its bytes.  Only what cannot
change the drawing is touched: numbers in coordinate attributes, the
whitespace between elements and inside path data, a rotation by 0, the
font list, moved to the <svg> element, where its texts inherit it, the
ids matplotlib numbers its elements with (``line2d_12``) and the bare
groups they leave around one element, and a style
attribute repeated on many elements, which becomes a class of a <style>
in the figure (prefixed, as a page holds many figures and their styles
share one document).

Why not scour (the SVG optimiser on PyPI): on a typical plot here it
saved 5% more bytes but took 35 ms instead of 2.5 ms, which is 10 s more
on the full matrix's 311 plots, and it has had no release since 2020.
"""
from __future__ import annotations

import re

DECIMALS = 2
_COORDINATES = re.compile(
    r'(\s(?:d|x|y|x1|y1|x2|y2|cx|cy|r|width|height|viewBox)=")([^"]*)(")')
_TRANSFORM = re.compile(r'(\stransform=")([^"]*)(")')
# Only rotations and translations: rounding a scale() would change it.
_MOVES = re.compile(r"((?:rotate|translate)\()([^)]*)(\))")
_LONG_DECIMAL = re.compile(r"-?\d+\.\d{%d,}" % (DECIMALS + 1))
_PATH_DATA = re.compile(r'(\sd=")([^"]*)(")')
_COMMAND_SPACE = re.compile(r" ?([MLHVCSQTAZmlhvcsqtaz]) ?")
_NO_ROTATION = re.compile(r'\stransform="rotate\(-?0(?:\.0*)? [^()"]*\)"')
_BETWEEN_ELEMENTS = re.compile(r">\s+<")
_TEXT_STYLE = re.compile(r'(<text\b[^>]*?\sstyle=")([^"]*)(")')
_SVG_START = re.compile(r"<svg\b")
_SVG_TAG = re.compile(r"<svg\b[^>]*>")
# Numbered ids no link or test refers to (series, facets and ticks keep
# theirs).
_AUTOMATIC_ID = re.compile(
    r'\sid="(?:line2d|patch|text|figure|legend|LineCollection|'
    r'PolyCollection|BarContainer|matplotlib\.axis)_\d+"')
_STYLE = re.compile(r'\sstyle="([^"]*)"')
# A group without attributes around one empty element draws nothing of
# its own (left behind by the ids taken out above).
_BARE_GROUP = re.compile(r"<g>(<(?:path|use|rect)\b[^<>]*/>)</g>")
_DEFS_START = re.compile(r"<defs>")


def _rounded(match):
    text = "%.*f" % (DECIMALS, float(match.group()))
    text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _round_numbers(match):
    return match.group(1) + _LONG_DECIMAL.sub(_rounded, match.group(2)) \
        + match.group(3)


def _round_moves(match):
    return match.group(1) + _MOVES.sub(_round_numbers, match.group(2)) \
        + match.group(3)


def _tight_path(match):
    data = " ".join(match.group(2).split())
    return match.group(1) + _COMMAND_SPACE.sub(r"\1", data) + match.group(3)


def _declarations(style):
    return [part.strip() for part in style.split(";") if part.strip()]


def _hoist_font_family(svg):
    """One font-family shared by every text moves to the <svg> element
    (font-family is inherited); texts that differ keep theirs."""
    families = set()
    for match in _TEXT_STYLE.finditer(svg):
        found = [d for d in _declarations(match.group(2))
                 if d.startswith("font-family:")]
        families.add(found[0] if found else None)
    root = _SVG_TAG.search(svg)
    if (len(families) != 1 or None in families or root is None
            or " style=" in root.group()):
        return svg
    family = families.pop()

    def without_family(match):
        kept = [d for d in _declarations(match.group(2)) if d != family]
        return match.group(1) + "; ".join(kept) + match.group(3)

    svg = _TEXT_STYLE.sub(without_family, svg)
    return _SVG_START.sub('<svg style="%s"' % family, svg, count=1)


def _classes(svg, prefix):
    """Style attributes used more than once become classes ``<prefix>N``
    of one <style> in the figure's first <defs>."""
    counts = {}
    for match in _STYLE.finditer(svg):
        counts[match.group(1)] = counts.get(match.group(1), 0) + 1
    shared = [style for style, n in counts.items() if n > 1]
    if not shared or not _DEFS_START.search(svg):
        return svg
    names = {style: "%s%d" % (prefix, i) for i, style in enumerate(shared)}

    def as_class(match):
        name = names.get(match.group(1))
        return ' class="%s"' % name if name else match.group()

    svg = _STYLE.sub(as_class, svg)
    rules = "".join(".%s{%s}" % (names[style], style) for style in shared)
    return _DEFS_START.sub("<defs><style>%s</style>" % rules, svg, count=1)


def trim(svg, prefix=None):
    """``svg`` (one <svg> element from matplotlib), smaller; ``prefix``
    (unique on the page) names its style classes, none without it."""
    svg = _NO_ROTATION.sub("", svg)
    svg = _COORDINATES.sub(_round_numbers, svg)
    svg = _TRANSFORM.sub(_round_moves, svg)
    svg = _PATH_DATA.sub(_tight_path, svg)
    svg = _BETWEEN_ELEMENTS.sub("><", svg)
    svg = _AUTOMATIC_ID.sub("", svg)
    previous = None
    while previous != svg:  # nested bare groups, innermost first
        previous, svg = svg, _BARE_GROUP.sub(r"\1", svg)
    svg = _hoist_font_family(svg)
    return _classes(svg, prefix) if prefix else svg
