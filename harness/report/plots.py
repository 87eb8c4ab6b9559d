"""Plots of declared tables, drawn as inline SVG with matplotlib.

One plot per declared table, from its structured cells (never its text):
a line per column value against a numeric rows axis (threads, processes,
work size), grouped bars against a categorical one (an executor method,
the interpreter).  Error bars are the cells' spread; a ratio gets the
break-even line at 1, a speedup over its rows axis the ideal line.

Each series is an SVG group whose id is ``<plot>-series-<i>`` (bars:
``<plot>-series-<i>-<bar>``), so a test can count what was drawn.
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
SIZE = (7.0, 3.2)  # inches; the page scales the SVG to its width


@dataclass
class Plot:
    svg: str  # one <svg> element, no XML prolog
    series: int  # lines or bar groups drawn (not counting reference lines)
    style: str  # "lines" or "bars"


@dataclass
class Series:
    label: str
    points: list  # (row index, row value, value, spread or None)


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
                            marker="o", markersize=4, capsize=3,
                            linewidth=1.5, label=_text(one.label))
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
                      yerr=errs if any(errs) else None, capsize=2,
                      ecolor="0.25")
        for k, patch in enumerate(bars.patches):
            patch.set_gid("%s-series-%d-%d" % (gid, n, k))
        if bars.errorbar is not None:
            for k, part in enumerate(bars.errorbar.lines[2]):
                part.set_gid("%s-errors-%d-%d" % (gid, n, k))
    ax.set_xticks(range(count))
    ax.set_xticklabels([_text(v) for v in table.row_values],
                       rotation=20 if count > 4 else 0,
                       ha="right" if count > 4 else "center")
    _reference(ax, table)


def plot(table, gid):
    """A Plot of a declared table, or None when it holds no number."""
    from matplotlib import rc_context
    from matplotlib.figure import Figure

    series = series_of(table) if table.declaration is not None else []
    if not series:
        return None
    kind = table.declaration["cell"]["kind"]
    lines = _numeric_rows(table)
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": gid,
                     "font.family": "sans-serif", "font.size": 9}):
        figure = Figure(figsize=SIZE)
        ax = figure.add_subplot()
        ax.set_gid(gid)
        if len(series) > 10:  # the default cycle repeats after ten
            from matplotlib import colormaps
            ax.set_prop_cycle(color=colormaps["tab20"].colors)
        (_draw_lines if lines else _draw_bars)(ax, table, series, gid)
        values = [p[2] for one in series for p in one.points]
        if kind in ("value", "throughput") and _wide_range(values):
            ax.set_yscale("log")
        elif min(values) >= 0:
            ax.set_ylim(bottom=0)
        formatter = _y_formatter(kind)
        if formatter is not None:
            ax.yaxis.set_major_formatter(formatter)
        ax.set_xlabel(_text(pivot.dimension_label(table.row_dim,
                                                  table.axes)))
        ax.set_ylabel(_text(_y_label(table)))
        ax.grid(True, color="0.9", linewidth=0.8)
        ax.set_axisbelow(True)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  frameon=False, fontsize=8)
        # Fixed margins (room for the legend on the right): a "tight"
        # bounding box would draw every figure twice.
        figure.subplots_adjust(left=0.14, right=0.68, top=0.96,
                               bottom=0.24 if not lines else 0.16)
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg",
                       metadata={"Date": None, "Creator": None,
                                 "Format": None, "Type": None})
    svg = svgtrim.trim(_METADATA.sub("", _XML_HEAD.sub(
        "", buffer.getvalue(), count=1)))
    return Plot(svg, len(series), "lines" if lines else "bars")
