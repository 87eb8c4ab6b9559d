"""Figures of declared tables, drawn as inline SVG with matplotlib.

One figure per table declaration (one question), from its tables'
structured cells (never their text): a facet per table (per ``per``
combination) on a shared y axis, and in each a line per column value
(usually the interpreter, the same colour in every facet) against a
numeric rows axis (threads, processes, work size), or grouped bars
against a categorical one (an executor method).  Error bars are the
cells' spread; a ratio gets the break-even line at 1, a speedup over its
rows axis the ideal line.

Each series is an SVG group whose id is ``<figure>-f<k>-series-<i>``
(bars: ``...-series-<i>-<bar>``), so a test can count what was drawn.
"""
from __future__ import annotations

import io
import math
import numbers
import re
from dataclasses import dataclass

from gilbench.report import cells, pivot, svgtrim
from gilbench.report.render import one_line

_XML_HEAD = re.compile(r"\A.*?(?=<svg)", re.S)
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
FIGURE_WIDTH = 8.0  # inches; the page scales the SVG to its width


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
    points: list  # (row index, row value, value, spread or None)
    colour: object = None


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _text(value):
    """Matplotlib reads $...$ as math: a name must stay literal."""
    return one_line(str(value)).replace("$", r"\$")


def series_of(table):
    """One Series per column holding at least one number."""
    found = []
    for j, column in enumerate(table.column_values):
        points = []
        for i, row in enumerate(table.row_values):
            cell = table.rows[i][j + 1]
            if (not cell.missing and _is_number(cell.value)
                    and math.isfinite(cell.value)):
                spread = cell.spread if _is_number(cell.spread) else None
                points.append((i, row, cell.value, spread))
        if points:
            found.append(Series(table.header[j + 1].text, points))
    return found


def plottable(table):
    return table.declaration is not None and bool(series_of(table))


def _numeric_rows(table):
    return (table.row_dim != pivot.INTERPRETER and table.row_values
            and all(_is_number(v) for v in table.row_values))


def _y_label(table):
    spec = table.declaration["cell"]
    kind = spec["kind"]
    if kind == "value":
        return "time per operation" if spec["per_op"] else "time per loop"
    if kind == "throughput":
        return "%s/s" % spec["unit"]
    if kind == "speedup":
        return "speedup over %s=%s" % (spec["over"], spec["baseline"])
    if kind == "ratio":
        return "%s=%s / %s" % (spec["over"], spec["numerator"],
                               spec["denominator"])
    if kind == "recorded":
        return ("%s (%s)" % (spec["key"], spec["unit"]) if spec["unit"]
                else spec["key"])
    return "%s (%s)" % (spec["along"], spec["unit"] or "")


def _y_formatter(kind):
    from matplotlib.ticker import FuncFormatter
    if kind == "value":
        return FuncFormatter(lambda y, _: cells.format_seconds(y)
                             if y > 0 else "0")
    if kind in ("throughput", "recorded"):
        return FuncFormatter(lambda y, _: cells.si(y) if y else "0")
    return None


def _wide_range(values):
    positive = [v for v in values if v > 0]
    return (len(positive) == len(values) and positive
            and max(positive) / min(positive) > 50)


def _draw_lines(ax, table, series, gid):
    for n, one in enumerate(series):
        xs = [p[1] for p in one.points]
        ys = [p[2] for p in one.points]
        errs = [p[3] or 0.0 for p in one.points]
        drawn = ax.errorbar(xs, ys, yerr=errs if any(errs) else None,
                            marker="o", markersize=3, capsize=2,
                            linewidth=1.2, label=_text(one.label),
                            color=one.colour)
        drawn.lines[0].set_gid("%s-series-%d" % (gid, n))
        for k, part in enumerate(drawn.lines[2]):
            part.set_gid("%s-errors-%d-%d" % (gid, n, k))
    x_axis = table.axes.get(table.row_dim, {})
    xs = table.row_values
    if x_axis.get("log") and len(xs) > 1:
        if min(xs) > 0:
            ax.set_xscale("log")
        else:
            ax.set_xscale("symlog", linthresh=min(x for x in xs if x > 0))
    ax.set_xticks(xs)
    ax.set_xticklabels([_text(x) for x in xs])
    ax.minorticks_off()
    _reference(ax, table)


def _reference(ax, table):
    """Break-even at 1 for a ratio; the ideal speedup (x / baseline along
    its own axis) for a speedup, else 1."""
    spec = table.declaration["cell"]
    if spec["kind"] == "ratio":
        line = ax.axhline(1.0, color="0.5", linestyle="--", linewidth=1,
                          label="1 (break-even)")
        line.set_gid("%s-reference" % ax.get_gid())
    elif spec["kind"] == "speedup":
        xs = table.row_values
        if (table.row_dim == spec["over"] and _is_number(spec["baseline"])
                and spec["baseline"] > 0 and _numeric_rows(table)):
            line, = ax.plot(xs, [x / spec["baseline"] for x in xs],
                            color="0.5", linestyle=":", linewidth=1.2,
                            label="ideal (x %s/%s)" % (spec["over"],
                                                       spec["baseline"]))
        else:
            line = ax.axhline(1.0, color="0.5", linestyle=":", linewidth=1,
                              label="1 (no speedup)")
        line.set_gid("%s-reference" % ax.get_gid())


def _draw_bars(ax, table, series, gid):
    count = len(table.row_values)
    width = 0.8 / len(series)
    for n, one in enumerate(series):
        offset = (n - (len(series) - 1) / 2) * width
        xs = [p[0] + offset for p in one.points]
        ys = [p[2] for p in one.points]
        errs = [p[3] or 0.0 for p in one.points]
        bars = ax.bar(xs, ys, width=width * 0.95, label=_text(one.label),
                      yerr=errs if any(errs) else None, capsize=1.5,
                      ecolor="0.25", color=one.colour)
        for k, patch in enumerate(bars.patches):
            patch.set_gid("%s-series-%d-%d" % (gid, n, k))
        if bars.errorbar is not None:
            for k, part in enumerate(bars.errorbar.lines[2]):
                part.set_gid("%s-errors-%d-%d" % (gid, n, k))
    ax.set_xticks(range(count))
    ax.set_xticklabels([_text(v) for v in table.row_values],
                       rotation=30 if count > 2 else 0,
                       ha="right" if count > 2 else "center")
    _reference(ax, table)


def facets(tables):
    """The tables of one declaration that hold a number, each a facet."""
    return [(t, series_of(t)) for t in tables
            if t.declaration is not None and series_of(t)]


def _grid(count):
    columns = 1 if count == 1 else 2 if count <= 4 else 3
    return -(-count // columns), columns


def _facet_title(table):
    """What tells this facet from its siblings: the table's own title
    without the declaration's."""
    prefix = table.declaration["title"] + ": "
    return table.title[len(prefix):] if table.title.startswith(prefix) \
        else ""


def _colours(drawn):
    """One colour per series label across every facet."""
    from matplotlib import colormaps
    labels = []
    for _, series in drawn:
        labels += [one.label for one in series if one.label not in labels]
    palette = (colormaps["tab10"].colors if len(labels) <= 10
               else colormaps["tab20"].colors)
    return {label: palette[i % len(palette)]
            for i, label in enumerate(labels)}


def _shared_y(ax, kind, values):
    if kind in ("value", "throughput") and _wide_range(values):
        ax.set_yscale("log")
    elif min(values) >= 0:
        ax.set_ylim(bottom=0)
    formatter = _y_formatter(kind)
    if formatter is not None:
        ax.yaxis.set_major_formatter(formatter)


def figure(tables, gid):
    """One Plot for the tables of one declaration: a facet (small
    multiple) per table that holds a number, on shared y axes, the same
    colour for a series (an interpreter) in every facet; None when no
    table holds a number.  Each facet's axes have the gid
    ``<gid>-f<k>``."""
    from matplotlib import rc_context
    from matplotlib.figure import Figure

    drawn = facets(tables)
    if not drawn:
        return None
    first = drawn[0][0]
    kind = first.declaration["cell"]["kind"]
    rows, columns = _grid(len(drawn))
    colours = _colours(drawn)
    lines = all(_numeric_rows(t) for t, _ in drawn)
    same_x = len({tuple(t.row_values) for t, _ in drawn}) == 1
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": gid,
                     "font.family": "sans-serif", "font.size": 8}):
        height = 0.6 + rows * (2.3 if columns > 1 else 2.8)
        fig = Figure(figsize=(FIGURE_WIDTH, height))
        axes = fig.subplots(rows, columns, sharey=True,
                            sharex=same_x and lines, squeeze=False)
        for k, (table, series) in enumerate(drawn):
            ax = axes[k // columns][k % columns]
            ax.set_gid("%s-f%d" % (gid, k))
            for one in series:
                one.colour = colours[one.label]
            (_draw_lines if lines else _draw_bars)(ax, table, series,
                                                   ax.get_gid())
            ax.set_title(_text(_facet_title(table)), fontsize=8)
            ax.grid(True, color="0.9", linewidth=0.8)
            ax.set_axisbelow(True)
        for k in range(len(drawn), rows * columns):
            axes[k // columns][k % columns].set_visible(False)
        values = [p[2] for _, series in drawn for one in series
                  for p in one.points]
        _shared_y(axes[0][0], kind, values)
        fig.supxlabel(_text(pivot.dimension_label(first.row_dim,
                                                  first.axes)), fontsize=9)
        fig.supylabel(_text(_y_label(first)), fontsize=9)
        handles, labels = _legend_entries(axes)
        fig.legend(handles, labels, loc="upper left",
                   bbox_to_anchor=(0.80, 0.98), frameon=False, fontsize=8)
        # Fixed margins (room for the legend on the right): a "tight"
        # bounding box would draw every figure twice.
        fig.subplots_adjust(left=0.10, right=0.79,
                            top=1 - 0.35 / height,
                            bottom=(0.75 if not lines else 0.5) / height,
                            hspace=0.55 if not lines else 0.45,
                            wspace=0.12)
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg",
                    metadata={"Date": None, "Creator": None,
                              "Format": None, "Type": None})
    svg = svgtrim.trim(_METADATA.sub("", _XML_HEAD.sub(
        "", buffer.getvalue(), count=1)))
    series = sum(len(one) for _, one in drawn)
    return Plot(svg, series, "lines" if lines else "bars", len(drawn))


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
