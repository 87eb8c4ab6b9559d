"""Makes matplotlib's SVG smaller without changing what it draws.

matplotlib writes coordinates with six decimals (its SVG backend has no
setting for that), indents every element, repeats the whole font
fallback list on every text, and draws each marker as an element of its
own.  A plot is 576 pt wide scaled to at most 60rem, so a tenth of a
point is a sixth of a pixel at most; on the page's dozens of plots the
rest is most of its bytes.  Only what cannot change the drawing is
touched: numbers in coordinate attributes, the whitespace between
elements and inside path data, a line segment along an axis (``H``,
``V``; ``h0`` without length), a rotation by 0, round markers (a <use>
each and a definition per line) as one path of dots (zero-length
segments with round caps as wide as the marker and its edge), the font
list, moved to the <svg> element, where its texts inherit it, the ids
matplotlib numbers its elements with (``line2d_12``, ``xtick_3``) and
the groups without attributes they leave behind (a <g> alone neither
moves, styles nor clips what it holds).

``share_styles`` then works on all of a page's figures at once: a style
attribute repeated on many elements becomes a class of one style sheet
for the page, named by how often it is used (``s0`` the most), and the
ids matplotlib hashes (clip paths, ``p3f0c...``) become short ones
unique on the page.

Why not scour (the SVG optimiser on PyPI): on a typical plot here it
saved 5% more bytes but took 35 ms instead of 2.5 ms, which is 10 s more
on the full matrix's 311 plots, and it has had no release since 2020.
"""
from __future__ import annotations

import re

DECIMALS = 1
_COORDINATES = re.compile(
    r'(\s(?:d|x|y|x1|y1|x2|y2|cx|cy|r|width|height|viewBox)=")([^"]*)(")')
_TRANSFORM = re.compile(r'(\stransform=")([^"]*)(")')
# Only rotations and translations: rounding a scale() would change it.
_MOVES = re.compile(r"((?:rotate|translate)\()([^)]*)(\))")
_LONG_DECIMAL = re.compile(r"-?\d+\.\d{%d,}" % (DECIMALS + 1))
_PATH_DATA = re.compile(r'(\sd=")([^"]*)(")')
_PATH_TOKEN = re.compile(r"[A-Za-z]|-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_NO_ROTATION = re.compile(r'\stransform="rotate\(-?0(?:\.0*)? [^()"]*\)"')
_BETWEEN_ELEMENTS = re.compile(r">\s+<")
_TEXT_STYLE = re.compile(r'(<text\b[^>]*?\sstyle=")([^"]*)(")')
_SVG_START = re.compile(r"<svg\b")
_SVG_TAG = re.compile(r"<svg\b[^>]*>")
# Numbered ids no link or test refers to (series, facets and the other
# lines a figure names keep theirs).
_AUTOMATIC_ID = re.compile(
    r'\sid="(?:line2d|patch|text|figure|legend|LineCollection|'
    r'PolyCollection|BarContainer|matplotlib\.axis|[xy]tick)_\d+"')
_GROUP_TAG = re.compile(r"<g>|<g/>|<g\s[^>]*>|</g>")  # <g .../> too
_STYLE = re.compile(r'\sstyle="([^"]*)"')
_CSS_STYLE = re.compile(r'<style type="text/css">(.*?)</style>', re.S)
_EMPTY_DEFS = re.compile(r"<defs></defs>|<defs/>")
# The ids matplotlib's SVG backend derives from a hash (clip paths,
# markers, hatches): ``p`` or ``m`` or ``h`` and ten hex digits.
_HASHED_ID = re.compile(r'\sid="([pmh][0-9a-f]{10})"')
_MARKER_DEF = re.compile(
    r'<defs><path id="(m[0-9a-f]{10})" d="([^"]*)"(?: style="[^"]*")?/>'
    r'</defs>')
_MARKERS = re.compile(
    r'<g((?: clip-path="[^"]*")?)>((?:<use xlink:href="#(m[0-9a-f]{10})" '
    r'x="[^"]*" y="[^"]*"(?: style="[^"]*")?/>)+)</g>')
_USE = re.compile(r'<use xlink:href="#(m[0-9a-f]{10})" x="([^"]*)" '
                  r'y="([^"]*)"(?: style="([^"]*)")?/>')
SHARED_CLASS = "s"  # prefix of share_styles' class names
SHARED_ID = "c"  # prefix of share_styles' ids


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


def compact_path(data):
    """Path data of absolute M, L, C, Q and Z commands (what matplotlib
    writes), numbers already rounded: no spaces around commands, and a
    segment along an axis as ``H``/``V`` (``h0`` where it has no length:
    with round caps a dot).  Other path data comes back with its spaces
    tightened only."""
    tokens = _PATH_TOKEN.findall(data)
    out, command, numbers = [], None, []
    start = here = None

    def flush():
        nonlocal start, here
        if command is None:
            return True
        if command in "Zz":
            out.append("z")
            here = start
            return not numbers
        if command not in "MLCQ":
            return False
        size = {"M": 2, "L": 2, "C": 6, "Q": 4}[command]
        if not numbers or len(numbers) % size:
            return False
        for k in range(0, len(numbers), size):
            point = tuple(numbers[k + size - 2:k + size])
            # A moveto's further pairs are linetos.
            line = command == "L" or (command == "M" and k > 0)
            if line and here is not None:
                if point == here:
                    out.append("h0")
                elif point[1] == here[1]:
                    out.append("H" + point[0])
                elif point[0] == here[0]:
                    out.append("V" + point[1])
                else:
                    out.append("L%s %s" % point)
            else:
                out.append(command + " ".join(numbers[k:k + size]))
                if command == "M":
                    start = point
            here = point
        return True

    for token in tokens:
        if token.isalpha():
            if not flush():
                return " ".join(data.split())
            command, numbers = token, []
        else:
            numbers.append(token)
    if not flush():
        return " ".join(data.split())
    return "".join(out)


def _compact_path(match):
    return match.group(1) + compact_path(match.group(2)) + match.group(3)


def circle_radius(data):
    """The radius of a marker's path data if it is a circle (matplotlib's:
    cubic curves from (0, r) around the origin, closed), else None."""
    tokens = _PATH_TOKEN.findall(data)
    if (len(tokens) < 4 or tokens[:2] != ["M", "0"]
            or tokens[-1] not in "Zz"
            or {t for t in tokens if t.isalpha()} - {"M", "C", "z", "Z"}):
        return None
    numbers = [abs(float(t)) for t in tokens if not t.isalpha()]
    radius = float(tokens[2])
    if radius <= 0 or max(numbers) > radius * 1.001:
        return None
    return radius


def _style_of(style):
    found = {}
    for declaration in _declarations(style or ""):
        name, _, value = declaration.partition(":")
        found[name.strip()] = value.strip()
    return found


def markers_as_dots(svg):
    """Each group of a round marker's <use> elements (matplotlib's
    markers of one line) as one path of dots, where their fill and edge
    are one colour; the marker's definition goes when nothing uses it."""
    radii = {}
    for found, data in _MARKER_DEF.findall(svg):
        radius = circle_radius(data)
        if radius is not None:
            radii[found] = radius

    def as_dots(match):
        uses = _USE.findall(match.group(2))
        styles = {(marker, style) for marker, _, _, style in uses}
        if len(styles) != 1:
            return match.group()
        marker, style = styles.pop()
        found = _style_of(style)
        colour = found.pop("fill", None)
        edge = float(found.pop("stroke-width", "1"))
        if (marker not in radii or colour is None
                or found.pop("stroke", colour) != colour or found):
            return match.group()
        data = "".join("M%s %sh0" % (x, y) for _, x, y, _ in uses)
        return ('<path d="%s"%s style="fill: none; stroke: %s; '
                'stroke-width: %s; stroke-linecap: round"/>' % (
                    data, match.group(1), colour,
                    ("%.2f" % (2 * radii[marker] + edge)).rstrip("0")
                    .rstrip(".")))

    svg = _MARKERS.sub(as_dots, svg)

    def unused(match):
        return "" if '"#%s"' % match.group(1) not in svg else match.group()

    return _MARKER_DEF.sub(unused, svg)


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


def unwrap_groups(svg):
    """Without the <g> elements that have no attributes (what they hold
    stays where it was) and the empty ones without an id."""
    out, open_groups, last = [], [], 0
    for match in _GROUP_TAG.finditer(svg):
        if match.start() > last:
            out.append(svg[last:match.start()])
        last = match.end()
        tag = match.group()
        if tag == "<g/>":
            continue
        if tag.endswith("/>"):  # empty, with attributes: kept
            out.append(tag)
            continue
        if tag == "</g>":
            if not open_groups:
                return svg  # not well-formed: left as it was
            kept, at, named = open_groups.pop()
            if kept and at == len(out) and not named:  # it holds nothing
                out.pop()
            elif kept:
                out.append(tag)
            continue
        kept = tag != "<g>"
        if kept:
            out.append(tag)
        open_groups.append((kept, len(out), " id=" in tag))
    out.append(svg[last:])
    if open_groups:
        return svg
    return "".join(out)


def trim(svg):
    """``svg`` (one <svg> element from matplotlib), smaller; still a
    figure on its own (styles stay attributes: ``share_styles``)."""
    svg = _NO_ROTATION.sub("", svg)
    svg = _COORDINATES.sub(_round_numbers, svg)
    svg = _TRANSFORM.sub(_round_moves, svg)
    svg = _PATH_DATA.sub(_compact_path, svg)
    svg = _BETWEEN_ELEMENTS.sub("><", svg)
    svg = markers_as_dots(svg)
    svg = _AUTOMATIC_ID.sub("", svg)
    svg = unwrap_groups(svg)
    return _hoist_font_family(svg)


def _short_ids(svg, numbered):
    """The hashed ids of one figure renamed ``c<n>``, counting on from
    ``numbered`` (a one-item list: the page's next number)."""
    names = {}
    for found in _HASHED_ID.findall(svg):
        if found not in names:
            names[found] = "%s%d" % (SHARED_ID, numbered[0])
            numbered[0] += 1
    if not names:
        return svg
    pattern = re.compile(r'(id="|#)(%s)(?=[")])'
                         % "|".join(map(re.escape, names)))
    return pattern.sub(lambda m: m.group(1) + names[m.group(2)], svg)


def share_styles(svgs):
    """(``svgs``, style sheet): the figures of one page, each style
    attribute used more than once on the page replaced by a class of
    the returned style sheet (``s0`` is the most used), each figure's
    own <style type="text/css"> moved to it once, and matplotlib's
    hashed ids made short and unique on the page."""
    counts, order = {}, []
    sheets = []
    for svg in svgs:
        for rules in _CSS_STYLE.findall(svg):
            if rules not in sheets and "<" not in rules:
                sheets.append(rules)
        for style in _STYLE.findall(svg):
            if style not in counts:
                order.append(style)
            counts[style] = counts.get(style, 0) + 1
    # An attribute's entities (&amp;) would not be read in a style sheet.
    shared = sorted((s for s in order if counts[s] > 1 and "&" not in s),
                    key=lambda s: -counts[s])  # stable: first seen first
    names = {style: "%s%d" % (SHARED_CLASS, i)
             for i, style in enumerate(shared)}

    def as_class(match):
        name = names.get(match.group(1))
        return ' class="%s"' % name if name else match.group()

    numbered, result = [0], []
    for svg in svgs:
        svg = _STYLE.sub(as_class, _CSS_STYLE.sub(
            lambda m: "" if m.group(1) in sheets else m.group(), svg))
        svg = _EMPTY_DEFS.sub("", svg)
        result.append(_short_ids(svg, numbered))
    css = "".join(sheets) + "".join(".%s{%s}" % (names[style], style)
                                     for style in shared)
    return result, css
