"""Makes matplotlib's SVG smaller without changing what it draws.

matplotlib writes coordinates with six decimals (its SVG backend has no
setting for that), indents every element, and repeats the whole font
fallback list on every text.  A plot is 504 x 230 pt scaled to at most
50rem, so a hundredth of a point is far below a pixel; on the page's
hundreds of plots the rest is most of its bytes.  Only what cannot
change the drawing is touched: numbers in coordinate attributes, the
whitespace between elements and inside path data, a rotation by 0, and
the font list, moved to the <svg> element, where its texts inherit it.

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


def trim(svg):
    """``svg`` (one <svg> element from matplotlib), smaller."""
    svg = _NO_ROTATION.sub("", svg)
    svg = _COORDINATES.sub(_round_numbers, svg)
    svg = _TRANSFORM.sub(_round_moves, svg)
    svg = _PATH_DATA.sub(_tight_path, svg)
    svg = _BETWEEN_ELEMENTS.sub("><", svg)
    return _hoist_font_family(svg)
