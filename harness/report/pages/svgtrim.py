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
_TOKEN = re.compile(r"<[^>]*>|[^<]+")
_CLIP = re.compile(r'\sclip-path="[^"]*"')
_HAS_TRANSFORM = re.compile(r"\stransform=")
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
    writes), numbers already rounded: no spaces around commands, a
    segment along an axis as ``H``/``V`` (``h0`` where it has no length:
    with round caps a dot), a move or line relative to where it starts
    from (``m``, ``l``, ``h``, ``v``) where that is shorter, and no moveto
    that draws nothing.  Other path data comes back with its spaces
    tightened only."""
    parts = _path_parts(_PATH_TOKEN.findall(data))
    if parts is None:
        return " ".join(data.split())
    # A moveto that the next one (or the end) follows draws nothing (a
    # series' one point, before its error bar).
    drawn = [part for k, part in enumerate(parts) if part[0] != "M"
             or (k + 1 < len(parts) and parts[k + 1][0] != "M")]
    out, start, here = [], None, None
    for command, numbers in drawn or parts:
        point = numbers[-2:]
        if command == "z":
            out.append("z")
            here = start
            continue
        if command == "L" and here is not None:
            out.append(_line(point, here))
        elif command == "M" and here is not None:
            out.append(_shorter("M" + " ".join(point),
                                _moved("m", point, here)))
        else:
            out.append(command + " ".join(numbers))
        if command == "M":
            start = point
        here = point
    return "".join(out)


def _path_parts(tokens):
    """[(command, numbers)] of path data tokens, each moveto, lineto or
    curve on its own (a moveto's further pairs are linetos); None where
    the data holds other commands or stray numbers."""
    parts, command, numbers = [], None, []

    def flush():
        if command is None:
            return True
        if command in "Zz":
            parts.append(("z", ()))
            return not numbers
        size = {"M": 2, "L": 2, "C": 6, "Q": 4}.get(command)
        if size is None or not numbers or len(numbers) % size:
            return False
        for k in range(0, len(numbers), size):
            parts.append(("L" if command == "M" and k else command,
                          tuple(numbers[k:k + size])))
        return True

    for token in tokens:
        if token.isalpha():
            if not flush():
                return None
            command, numbers = token, []
        else:
            numbers.append(token)
    return parts if flush() else None


def _line(point, here):
    """A lineto from ``here``: along an axis as H or V (h0 without
    length), each absolute or relative, whichever is shorter."""
    if point == here:
        return "h0"
    if point[1] == here[1]:
        return _shorter("H" + point[0], _moved("h", point[:1], here[:1]))
    if point[0] == here[0]:
        return _shorter("V" + point[1], _moved("v", point[1:], here[1:]))
    return _shorter("L%s %s" % point, _moved("l", point, here))


_TENTHS = re.compile(r"-?\d+(?:\.\d)?")


def _moved(letter, point, here):
    """``letter`` and ``point`` less ``here`` (numbers of at most one
    decimal, as rounded), the shortest way written; None when a number
    has more decimals."""
    if not all(map(_TENTHS.fullmatch, point + here)):
        return None
    text = ""
    for to, start in zip(point, here):
        tenths = round(float(to) * 10) - round(float(start) * 10)
        whole, tenth = divmod(abs(tenths), 10)
        number = ("-" if tenths < 0 else "") + (
            "%d" % whole if not tenth else
            "%d.%d" % (whole, tenth) if whole else ".%d" % tenth)
        text += number if not text or number[0] == "-" else " " + number
    return letter + text


def _shorter(absolute, relative):
    """The absolute form unless the relative one (None: none) is
    shorter."""
    if relative is not None and len(relative) < len(absolute):
        return relative
    return absolute


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


def _parsed(svg):
    """The elements of ``svg`` as a tree: a leaf is a token (a tag that
    closes itself, or text); an element with content is a list
    [start tag, children, end tag].  None when the tags do not nest."""
    root = [None, [], None]
    stack = [root]
    for token in _TOKEN.findall(svg):
        if token.startswith("</"):
            if len(stack) < 2:
                return None
            stack.pop()[2] = token
        elif token.startswith("<") and not token.endswith("/>") \
                and not token.startswith(("<!", "<?")):
            node = [token, [], None]
            stack[-1][1].append(node)
            stack.append(node)
        else:
            stack[-1][1].append(token)
    return root[1] if len(stack) == 1 else None


def _clip_of(child):
    """The clip path a child element is drawn through, where moving it
    to a group around it cannot change what it clips: a tag without a
    transform (which would give the clip another coordinate system)."""
    tag = child[0] if isinstance(child, list) else child
    if not tag.startswith("<") or _HAS_TRANSFORM.search(tag):
        return None
    if isinstance(child, list) and not tag.startswith("<g"):
        return None
    found = _CLIP.search(tag)
    return found.group() if found else None


def _unclipped(child):
    if isinstance(child, list):
        return [_CLIP.sub("", child[0], count=1)] + child[1:]
    return _CLIP.sub("", child, count=1)


def _clip_groups(children):
    """Runs of sibling elements clipped by one clip path, clipped once:
    by a group around them (the clip applies to what the group draws, as
    it did to each)."""
    clips = [_clip_of(child) for child in children]
    out, k = [], 0
    while k < len(children):
        end = k + 1
        while end < len(children) and clips[k] and clips[end] == clips[k]:
            end += 1
        if end - k < 2:
            out.append(children[k])
        else:
            out.append(["<g%s>" % clips[k],
                        [_unclipped(child) for child in children[k:end]],
                        "</g>"])
        k = end
    return out


def _shared_clips(nodes, owner=None):
    """``nodes`` (children of the element whose start tag is ``owner``)
    with clip paths moved up: onto a group (with attributes, no clip and
    no transform of its own) whose children all share one, else onto a
    group around each run of siblings sharing one."""
    for node in nodes:
        if isinstance(node, list) and node[0].startswith(("<g", "<svg")):
            node[1] = _shared_clips(node[1], node)
    clips = {_clip_of(child) for child in nodes}
    if (owner is not None and owner[0].startswith("<g") and len(clips) == 1
            and None not in clips
            and not _CLIP.search(owner[0])
            and not _HAS_TRANSFORM.search(owner[0])):
        owner[0] = owner[0][:-1] + clips.pop() + ">"
        return [_unclipped(child) for child in nodes]
    return _clip_groups(nodes)


def _joined(nodes):
    return "".join(node if isinstance(node, str)
                   else node[0] + _joined(node[1]) + (node[2] or "")
                   for node in nodes)


def shared_clips(svg):
    """``svg`` with each run of elements clipped alike clipped once, by
    the group that holds them (matplotlib clips every line of a facet
    on its own, to the same rectangle); as it was when its tags do not
    nest."""
    nodes = _parsed(svg)
    return svg if nodes is None else _joined(_shared_clips(nodes))


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
    svg = shared_clips(svg)
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
