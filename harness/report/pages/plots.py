"""Figures of declared tables, drawn as inline SVG with matplotlib.

One figure per table declaration (one question), from its tables'
structured cells (never their text): small multiples (facets) on a shared
y axis, one per combination of the declaration's ``per`` values (and its
columns, where those are not the interpreters), and in each a line per
interpreter -- the same colour in every facet -- against a numeric rows
axis (threads, processes, work size), or grouped bars against a
categorical one (an executor method).  Error bars are the cells' spread;
a ratio gets the break-even line at 1, a speedup over its rows axis the
ideal line.

Each series is an SVG group whose id is ``<figure>-f<k>-series-<i>``,
so a test can count what was drawn: a line's group holds its line, its
error bars and its points; a bar chart's error bars are one grey line a
facet (``<figure>-f<k>-errors``).  Every line is an element matplotlib
draws and svgtrim shrinks, so lines are few: a series' error bars are
part of its line, matplotlib's settings (``STYLE``) leave out what
nobody reads (tick marks, a box, white backgrounds).
"""
from __future__ import annotations

import functools
import io
import math
import re
import textwrap
from dataclasses import dataclass, field

import numpy

from gilbench.model.resultformat import OPTIONAL_TABLE_KEYS
from gilbench.report import kinds
from gilbench.report.data.records import COUNT_AXES
from gilbench.report.kinds.base import Ideal, Level, is_number
from gilbench.report.numbers import cells, scalability
from gilbench.report.pages import svgtrim
from gilbench.report.pages.text import one_line
from gilbench.report.tables import pivot

_XML_HEAD = re.compile(r"\A.*?(?=<svg)", re.S)
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
FIGURE_WIDTH = 8.0  # inches; the page scales the SVG to its width
TITLE_WIDTH = 36  # characters of a facet title per line (three facets
# side by side)
LEGEND_AT = (0.77, 0.98)  # the legend's upper left corner, in the figure
LEGEND_SIZE = 8  # its font size (points)


# matplotlib's settings for every figure.  Text stays text (the page's
# font); a fixed title height: placing it above the axis's ticks would
# measure every facet's tick labels again.  Horizontal gridlines only: a
# vertical one per tick in every facet is as many elements again, for
# little reading.  Tick labels without tick marks, and two axis lines, not
# a box: each mark and line is an SVG element, and the gridlines frame the
# facet.  No white background under the figure or a facet: the page is
# white.  As settings, not calls on each facet: matplotlib then makes its
# ticks so, rather than making them and changing every one.
STYLE = {"svg.fonttype": "none", "font.family": "sans-serif",
         "font.size": 8, "axes.titley": 1.0, "axes.titlepad": 4,
         "axes.spines.top": False, "axes.spines.right": False,
         "xtick.bottom": False, "ytick.left": False}
# The horizontal gridlines (plots._gridlines), below what a facet draws.
GRID = {"color": "0.9", "linewidth": 0.8, "zorder": 0.5}


@dataclass
class Plot:
    svg: str  # one <svg> element, no XML prolog
    series: int  # lines or bar groups drawn, over all facets (not
    # counting reference lines)
    style: str  # "lines" or "bars"
    facets: int = 1


@dataclass
class Series:
    label: str
    points: list  # (row value, value, spread or None)
    colour: object = None
    cpus: int | None = None  # its run's usable CPUs, where known


@dataclass
class Facet:
    """One small multiple: series (interpreters, where the declaration
    has them as columns or per values) against the rows dimension."""
    title: str
    declaration: dict
    row_dim: str
    axes: dict
    row_values: list = field(default_factory=list)
    series: list = field(default_factory=list)

    def add(self, series):
        for point in series.points:
            if point[0] not in self.row_values:
                self.row_values.append(point[0])
        self.series.append(series)


def _text(value):
    """Matplotlib reads $...$ as math: a name must stay literal."""
    return one_line(str(value)).replace("$", r"\$")


def _column_points(table, j):
    points = []
    for i, row in enumerate(table.row_values):
        cell = table.rows[i][j + 1]
        if (not cell.missing and is_number(cell.value)
                and math.isfinite(cell.value)):
            spread = cell.spread if is_number(cell.spread) else None
            points.append((row, cell.value, spread))
    return points


def series_of(table):
    """One Series per column holding at least one number."""
    found = []
    for j, column in enumerate(table.column_values):
        points = _column_points(table, j)
        if points:
            found.append(Series(table.header[j + 1].text, points,
                                cpus=_cpus(table, column)))
    return found


def _cpus(table, column=None):
    """The usable CPUs of the run a series of ``table`` comes from: its
    interpreter's (the column's, or the table's own), else the most
    among the table's runs."""
    interpreter = (column if table.column_dim == pivot.INTERPRETER
                   else table.per.get(pivot.INTERPRETER))
    if interpreter in table.cpus:
        return table.cpus[interpreter]
    return max(table.cpus.values(), default=None)


def _own_title(table, extra=None):
    """The per values that tell this facet from its siblings (the
    interpreter is a series, never a facet)."""
    shown = {d: v for d, v in table.per.items()
             if d not in table.common and d != pivot.INTERPRETER}
    shown.update(extra or {})
    return pivot.equals_list(shown)


def plotted(declaration):
    """Whether a table declaration wants a figure (``table(...,
    plot=False)`` does not)."""
    return declaration.get("plot", OPTIONAL_TABLE_KEYS["plot"])


def facets(tables):
    """The Facets of one declaration's tables.  Interpreters are always
    the series: a table with the interpreters as columns is one facet; a
    table of one interpreter (``interpreter`` among its per values)
    gives a series to a facet per column value, shared with the other
    interpreters' tables.  None for a declaration that wants no figure
    (``plotted``)."""
    found = {}
    for table in tables:
        if table.declaration is None or not plotted(table.declaration):
            continue
        if pivot.INTERPRETER not in table.per:
            facet = Facet(_own_title(table), table.declaration,
                          table.row_dim, table.axes)
            for one in series_of(table):
                facet.add(one)
            found[id(table)] = facet
            continue
        rest = tuple((d, v) for d, v in table.per.items()
                     if d != pivot.INTERPRETER)
        for j, column in enumerate(table.column_values):
            points = _column_points(table, j)
            if not points:
                continue
            key = (rest, column)
            if key not in found:
                found[key] = Facet(
                    _own_title(table, {table.column_dim: column}),
                    table.declaration, table.row_dim, table.axes)
            found[key].add(Series(str(table.per[pivot.INTERPRETER]),
                                  points, cpus=_cpus(table)))
    result = [facet for facet in found.values() if facet.series]
    for facet in result:
        if all(is_number(v) for v in facet.row_values):
            facet.row_values.sort()
    return result


def _numeric_rows(facet):
    return (facet.row_dim != pivot.INTERPRETER and facet.row_values
            and all(is_number(v) for v in facet.row_values))


def _kind(facet):
    """The facet's cell kind: what its cells are and how to draw them."""
    return kinds.make(facet.declaration, facet.axes)


def _y_formatter(kind):
    from matplotlib.ticker import FuncFormatter
    if kind.y_format == "seconds":
        return FuncFormatter(lambda y, _: cells.format_seconds(y)
                             if y > 0 else "0")
    if kind.y_format == "si":
        return FuncFormatter(lambda y, _: cells.si(y) if y else "0")
    return None


def _wide_range(values):
    positive = [v for v in values if v > 0]
    return (len(positive) == len(values) and positive
            and max(positive) / min(positive) > 50)


def over_counts(facet):
    """Whether the facet is a speedup along its own count axis (threads
    or processes), where the ceiling and the scalability fit apply."""
    return speedup_over_counts(facet.declaration, facet.row_dim)


def speedup_over_counts(declaration, row_dim=None):
    """Whether a table declaration's figure is a speedup along its own
    count axis (its rows, or ``row_dim``): one with scalability fits."""
    spec = declaration["cell"]
    row_dim = declaration.get("rows") if row_dim is None else row_dim
    return bool(spec.get("kind") == "speedup" and spec.get("scaled")
                and row_dim == spec.get("over")
                and row_dim in COUNT_AXES and spec.get("baseline") == 1)


def _ceiling_line(ax, facet, ceiling):
    """This machine's ceiling along the facet's count axis: the median
    over interpreters of the ceiling family's speedup at each count."""
    curve = (ceiling or {}).get(facet.row_dim)
    if not curve or not over_counts(facet):
        return
    xs = sorted(n for n in curve if n in facet.row_values)
    if len(xs) < 2:
        return
    line, = ax.plot(xs, [curve[x] for x in xs], color="black",
                    linestyle="--", linewidth=1.2,
                    label="this machine's ceiling")
    line.set_gid("%s-ceiling" % ax.get_gid())


def _fitted_curves(ax, facet):
    """Each series' scalability-law fit, as a thin curve in its colour,
    where the fit's own cells give one (enough counts within its run's
    usable CPUs)."""
    if not over_counts(facet):
        return
    drawn = False
    for n, one in enumerate(facet.series):
        points = [(p[0], p[1], None) for p in one.points]
        if scalability.not_fitted(points, one.cpus):
            continue
        fit = scalability.fit(points)
        if scalability.undetermined(fit):
            continue
        grid = numpy.linspace(1, max(p[0] for p in points), 40)
        line, = ax.plot(grid, fit.speedup(grid), color=one.colour,
                        linestyle=":", linewidth=0.9, label="_nolegend_")
        line.set_gid("%s-fit-%d" % (ax.get_gid(), n))
        drawn = True
    if drawn:  # one legend entry for every series' fit
        ax.plot([], [], color="0.4", linestyle=":", linewidth=0.9,
                label="scalability-law fit")


def _draw_lines(ax, facet, gid, ceiling=None, x_ticks=True):
    _ceiling_line(ax, facet, ceiling)
    _fitted_curves(ax, facet)
    for n, one in enumerate(facet.series):
        xs = [p[0] for p in one.points]
        ys = [p[1] for p in one.points]
        errs = [p[2] or 0.0 for p in one.points]
        # Its error bars follow its points in the same line (one SVG
        # path), without markers; the markers become one path of dots in
        # the SVG (svgtrim).
        line_xs, line_ys = list(xs), list(ys)
        for x, y, err in zip(xs, ys, errs):
            if err:
                line_xs += [math.nan, x, x]
                line_ys += [math.nan, y - err, y + err]
        line, = ax.plot(line_xs, line_ys, marker="o", markersize=3,
                        markevery=list(range(len(xs))), linewidth=1.2,
                        label=_text(one.label), color=one.colour)
        line.set_gid("%s-series-%d" % (gid, n))
    x_axis = facet.axes.get(facet.row_dim, {})
    xs = facet.row_values
    if x_axis.get("log") and len(xs) > 1:
        if min(xs) > 0:
            ax.set_xscale("log")
        else:
            ax.set_xscale("symlog", linthresh=min(x for x in xs if x > 0))
    if x_ticks:  # shared x axes share their ticks: set once
        ax.set_xticks(xs)
        ax.set_xticklabels([_text(x) for x in xs])
    _reference(ax, facet)


def _error_bars(ax, points, colour, gid):
    """One standard deviation around each point (x, y, spread), all the
    bars in one line broken by NaNs: one SVG path, not one per bar."""
    if not any(err for _, _, err in points):
        return
    bar_xs, bar_ys = [], []
    for x, y, err in points:
        bar_xs += [x, x, math.nan]
        bar_ys += [y - err, y + err, math.nan]
    line, = ax.plot(bar_xs, bar_ys, color=colour, linewidth=0.8)
    line.set_gid(gid)


def _reference(ax, facet):
    """The line the kind reads its cells against (break-even, perfect,
    the ideal speedup), if any."""
    line = _kind(facet).reference_line(facet.row_dim, facet.row_values)
    if isinstance(line, Level):
        drawn = ax.axhline(1.0, color="0.5", linestyle=line.style,
                           linewidth=1, label=line.label)
    elif isinstance(line, Ideal):
        drawn, = ax.plot(facet.row_values, line.ys, color="0.5",
                         linestyle=":", linewidth=1.2, label=line.label)
    else:
        return
    drawn.set_gid("%s-reference" % ax.get_gid())


def _draw_bars(ax, facet, gid, bottom):
    """Grouped bars from ``bottom``: each series' bars are one thick line
    broken by NaNs, so a series is one SVG path however many bars."""
    count = len(facet.row_values)
    series = facet.series
    width = 0.8 / len(series)
    ax.set_xlim(-0.5, count - 0.5)
    points_per_unit = (ax.get_position().width * FIGURE_WIDTH * 72
                       / count)
    bars = []
    for n, one in enumerate(series):
        offset = (n - (len(series) - 1) / 2) * width
        xs = [facet.row_values.index(p[0]) + offset for p in one.points]
        ys = [p[1] for p in one.points]
        errs = [p[2] or 0.0 for p in one.points]
        bar_xs, bar_ys = [], []
        for x, y in zip(xs, ys):
            bar_xs += [x, x, math.nan]
            bar_ys += [bottom, y, math.nan]
        line, = ax.plot(bar_xs, bar_ys, color=one.colour,
                        linewidth=width * 0.9 * points_per_unit,
                        solid_capstyle="butt", label=_text(one.label))
        line.set_gid("%s-series-%d" % (gid, n))
        bars += [(x, y, err) for x, y, err in zip(xs, ys, errs)]
    # One grey, so every series' error bars are one line.
    _error_bars(ax, bars, "0.25", "%s-errors" % gid)
    ax.set_xticks(range(count))
    ax.set_xticklabels([_text(v) for v in facet.row_values],
                       rotation=30 if count > 2 else 0,
                       ha="right" if count > 2 else "center")
    _reference(ax, facet)


def _grid(count):
    columns = 1 if count == 1 else 2 if count <= 4 else 3
    return -(-count // columns), columns


def _colours(drawn):
    """One colour per series label across every facet."""
    from matplotlib import colormaps
    labels = []
    for facet in drawn:
        labels += [one.label for one in facet.series
                   if one.label not in labels]
    palette = (colormaps["tab10"].colors if len(labels) <= 10
               else colormaps["tab20"].colors)
    return {label: palette[i % len(palette)]
            for i, label in enumerate(labels)}


def _shared_y(ax, kind, values, log):
    if log:
        ax.set_yscale("log")
    elif min(values) >= 0:
        ax.set_ylim(bottom=0)
    formatter = _y_formatter(kind)
    if formatter is not None:
        ax.yaxis.set_major_formatter(formatter)


def _gridlines(axes, count, columns):
    """Horizontal gridlines at the shared y axis's ticks, one line a
    facet (below what it draws; within it, so no clip path), instead of
    matplotlib's grid: that is a line per tick of every facet, each
    drawn from a tick made for it, though beyond the first column the
    ticks show nothing else (their labels are the first column's).  So
    those facets' y axes are not drawn at all."""
    from matplotlib.lines import Line2D
    first = axes[0][0]
    low, high = sorted(first.get_ylim())
    close = (high - low) * 1e-10
    ys = [y for y in first.get_yticks() if low - close <= y <= high + close]
    for k in range(count):
        ax = axes[k // columns][k % columns]
        line = Line2D([0, 1, math.nan] * len(ys),
                      [y for y in ys for y in (y, y, math.nan)],
                      transform=ax.get_yaxis_transform(), clip_on=False,
                      zorder=GRID["zorder"], color=GRID["color"],
                      linewidth=GRID["linewidth"])
        ax.add_artist(line)
        if k % columns:
            ax.yaxis.set_visible(False)


def _at_reference(table):
    """Whether a declared table shows only its family's reference points
    along its row axis (the ceiling's speedup tables do)."""
    where = table.reference.get(table.row_dim)
    return (table.declaration is not None and where is not None
            and all(where.get(d) == v
                    for d, v in table.declaration["where"].items()))


def ceiling_curves(tables):
    """{count axis: {count: median speedup over interpreters}} from the
    ceiling family's speedup tables among ``tables`` (none: {})."""
    found = {}
    for table in tables:
        if not _at_reference(table):
            continue
        for facet in facets([table]):
            if not over_counts(facet):
                continue
            by_count = {}
            for one in facet.series:
                for count, value, _ in one.points:
                    by_count.setdefault(count, []).append(value)
            found[facet.row_dim] = {count: float(numpy.median(values))
                                    for count, values in by_count.items()}
    return found


def figure(tables, gid, ceiling=None):
    """One Plot for the tables of one declaration: its ``facets`` (small
    multiples) on shared y axes, the same colour for a series (an
    interpreter) in every facet; None when no table holds a number.  Each
    facet's axes have the gid ``<gid>-f<k>``; ``ceiling`` is
    ``ceiling_curves``' result, drawn in speedups along a count axis."""
    from matplotlib import rc_context
    from matplotlib.figure import Figure

    drawn = facets(tables)
    if not drawn:
        return None
    first = drawn[0]
    kind = _kind(first)
    rows, columns = _grid(len(drawn))
    colours = _colours(drawn)
    lines = all(_numeric_rows(f) for f in drawn)
    same_x = len({tuple(f.row_values) for f in drawn}) == 1
    values = [p[1] for facet in drawn for one in facet.series
              for p in one.points]
    log = kind.log_when_wide and _wide_range(values)
    with rc_context(STYLE | {"svg.hashsalt": gid}):
        height = 0.6 + rows * (2.2 if columns > 1 else 2.8)
        fig = Figure(figsize=(FIGURE_WIDTH, height))
        fig.patch.set_visible(False)  # see STYLE
        axes = fig.subplots(rows, columns, sharey=True,
                            sharex=same_x and lines, squeeze=False)
        # Fixed margins (room for the legend on the right), set before
        # drawing so that bars know their width: a "tight" bounding box
        # would draw every figure twice.
        fig.subplots_adjust(left=0.10, right=0.76,
                            top=1 - 0.35 / height,
                            bottom=(0.75 if not lines else 0.5) / height,
                            hspace=0.75 if not lines else 0.6,
                            wspace=0.12)
        bottom = min(values) / 2 if log else 0.0
        for k, facet in enumerate(drawn):
            ax = axes[k // columns][k % columns]
            ax.set_gid("%s-f%d" % (gid, k))
            for one in facet.series:
                one.colour = colours[one.label]
            if lines:
                # Shared x axes share one tick locator: the last facet
                # sets it, after every facet has set the (shared) scale.
                _draw_lines(ax, facet, ax.get_gid(), ceiling,
                            x_ticks=not same_x or k == len(drawn) - 1)
            else:
                _draw_bars(ax, facet, ax.get_gid(), bottom)
            ax.set_title("\n".join(_text(line) for line in textwrap.wrap(
                facet.title, TITLE_WIDTH)), fontsize=7.5)
            ax.patch.set_visible(False)
            # A facet's axis labels are empty (the figure's supxlabel and
            # supylabel name the axes): placed anywhere, matplotlib need
            # not measure every facet's tick labels to place them.
            ax.xaxis.set_label_coords(0.5, 0.0)
            ax.yaxis.set_label_coords(0.0, 0.5)
        for k in range(len(drawn), rows * columns):
            axes[k // columns][k % columns].set_visible(False)
        if same_x and lines:
            # Above the last row a shared x axis has no tick labels, and
            # (STYLE) no tick marks or gridlines: it would draw nothing,
            # after working out its ticks.
            for row in axes[:-1]:
                for ax in row:
                    ax.xaxis.set_visible(False)
        _shared_y(axes[0][0], kind, values, log)
        for row in axes:
            for ax in row:
                # No log minor ticks: each is an SVG element.
                ax.minorticks_off()
        _gridlines(axes, len(drawn), columns)
        fig.supxlabel(_text(pivot.dimension_label(first.row_dim,
                                                  first.axes)), fontsize=9)
        fig.supylabel(_text(kind.y_label()), fontsize=9)
        _legend(fig, *_legend_entries(axes))
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg",
                    metadata={"Date": None, "Creator": None,
                              "Format": None, "Type": None})
    svg = svgtrim.trim(_METADATA.sub("", _XML_HEAD.sub(
        "", buffer.getvalue(), count=1)))
    series = sum(len(facet.series) for facet in drawn)
    return Plot(svg, series, "lines" if lines else "bars", len(drawn))


def _legend(fig, handles, labels):
    """The figure's legend, placed as matplotlib's Legend places it
    (``fig.legend(loc="upper left", bbox_to_anchor=LEGEND_AT,
    frameon=False, fontsize=LEGEND_SIZE)``): per entry, a copy of its
    line (a dot in the middle) and its label, one under another.  Laid
    out here because the Legend nests its entries in boxes that measure
    every label about six times per drawing, a quarter of a figure's
    time; one-line labels aligned left need no measuring."""
    from matplotlib import rcParams
    from matplotlib.lines import Line2D
    from matplotlib.transforms import Affine2D

    def pad(name):
        return rcParams["legend." + name] * LEGEND_SIZE

    # In points from the figure's lower left corner.
    points = Affine2D().scale(1 / 72) + fig.dpi_scale_trans
    width, height = fig.get_size_inches() * 72
    ascent, descent = _line_extent()
    border = pad("borderaxespad") + pad("borderpad")
    left = LEGEND_AT[0] * width + border
    baseline = LEGEND_AT[1] * height - border - max(ascent,
                                                     pad("handleheight"))
    for original, label in zip(handles, labels):
        line = Line2D(left + numpy.array([0, 0.5, 1]) * pad("handlelength"),
                      [baseline + pad("handleheight") / 2] * 3,
                      markevery=[1])
        line.update_from(original)
        line.set_transform(points)
        line.set_clip_box(None)
        line.set_clip_path(None)
        fig.add_artist(line)
        fig.text(left + pad("handlelength") + pad("handletextpad"),
                 baseline, label, fontsize=LEGEND_SIZE, transform=points,
                 va="baseline", ha="left")
        baseline -= ascent + descent + pad("labelspacing")


@functools.lru_cache(maxsize=None)
def _line_extent():
    """A line of the legend's text above and below its baseline, in
    points: the font's typographic ascent and descent, as matplotlib lays
    out a line (whatever the line holds)."""
    from matplotlib.font_manager import FontProperties, findfont, get_font
    font = get_font(findfont(FontProperties(size=LEGEND_SIZE)))
    scale = LEGEND_SIZE / font.units_per_EM
    # Some builds of matplotlib give no OS/2 table, or one without the
    # typographic metrics; the font's own ascender and descender then.
    table = font.get_sfnt_table("OS/2") or {}
    if "sTypoAscender" not in table or "sTypoDescender" not in table:
        return font.ascender * scale, -font.descender * scale
    return (table["sTypoAscender"] * scale,
            -table["sTypoDescender"] * scale)


def _legend_entries(axes):
    """Each label once, in the order the facets first drew it."""
    handles, labels = [], []
    for row in axes:
        for ax in row:
            for handle, text in zip(*ax.get_legend_handles_labels()):
                if text not in labels:
                    handles.append(handle)
                    labels.append(text)
    return handles, labels
