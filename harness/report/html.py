"""The HTML page: every table of the RST report, plots of the declared
ones, coloured ratio cells, and a table of contents by family.

One self-contained file: CSS and SVG inline, and a Content-Security-Policy
that lets the page load and run nothing, whatever the results hold.  All
text goes through jinja2's autoescape; only matplotlib's SVG (which
escapes its own text) is marked safe.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from markupsafe import Markup

from gilbench.report import cells, plots
from gilbench.report.render import one_line

# Ratio and speedup cells: shade by distance from 1, on a log scale.
SHADES = (
    ("r-3", 0.0, 0.5, "below 0.50"),
    ("r-2", 0.5, 0.8, "0.50-0.80"),
    ("r-1", 0.8, 0.95, "0.80-0.95"),
    ("r0", 0.95, 1.05, "0.95-1.05 (about 1)"),
    ("r1", 1.05, 1.25, "1.05-1.25"),
    ("r2", 1.25, 2.0, "1.25-2.00"),
    ("r3", 2.0, math.inf, "2.00 and above"),
)
SHADE_LEGEND = ("Ratio, speedup and change cells are shaded by their "
                "distance from 1: blue below, red above (for a slowdown "
                "ratio or a compare change red is worse; for a speedup "
                "it is better).")
SHADED_KINDS = ("ratio", "speedup")
FLAG_TITLES = {cells.NOISY_MARK: "noisy: relative std dev above 5%",
               cells.OVERSUBSCRIBED_MARK: "oversubscribed: more threads or "
               "processes than usable CPUs"}


@dataclass
class HtmlCell:
    text: str
    flags: list = field(default_factory=list)  # (mark, title)
    css: str = ""


@dataclass
class HtmlTable:
    anchor: str
    title: str
    note: str
    header: list
    rows: list  # lists of HtmlCells
    plot: object = None  # plots.Plot or None
    svg: Markup | None = None


@dataclass
class Section:
    anchor: str
    title: str
    tables: list


def shade(value):
    for css, low, high, _ in SHADES:
        if low <= value < high:
            return css
    return ""


def reason_class(text):
    for prefix in ("failed", "hung"):
        if text.startswith(prefix + ":"):
            return prefix
    return "na"


def html_cell(cell, shaded):
    if cell.missing:
        return HtmlCell(one_line(cell.text), css=reason_class(cell.text))
    css = "text" if cell.value is None else ""
    if shaded and isinstance(cell.value, (int, float)):
        css = shade(cell.value)
    return HtmlCell(one_line(cell.text),
                    [(mark, FLAG_TITLES.get(mark, "")) for mark in cell.flags],
                    css)


def html_table(table, anchor, plot_tables=True):
    kind = (table.declaration or {}).get("cell", {}).get("kind")
    shaded = kind in SHADED_KINDS or table.shaded
    drawn = plots.plot(table, anchor + "-plot") if plot_tables else None
    return HtmlTable(
        anchor=anchor, title=one_line(table.title),
        note=one_line(table.note),
        header=[one_line(cell.display) for cell in table.header],
        rows=[[HtmlCell(one_line(row[0].display), css="label")]
              + [html_cell(cell, shaded) for cell in row[1:]]
              for row in table.rows],
        plot=drawn, svg=Markup(drawn.svg) if drawn else None)


def sections(tables, plot_tables=True):
    """Declared tables grouped by family (in order), then one section of
    the listings (raw values, CPU, runs)."""
    found, listings = {}, []
    for n, table in enumerate(tables):
        anchor = "t%d" % (n + 1)
        if table.family is None:
            listings.append(html_table(table, anchor, plot_tables))
            continue
        if table.family not in found:
            found[table.family] = Section("f-%d" % (len(found) + 1),
                                          one_line(table.family), [])
        found[table.family].tables.append(
            html_table(table, anchor, plot_tables))
    result = list(found.values())
    if listings:
        result.append(Section("f-all", "All benchmarks and runs", listings))
    return result


def page(environment, title, intro, tables, plot_tables=True):
    return environment.get_template("report.html.j2").render(
        title=one_line(title), intro=[one_line(x) for x in intro],
        sections=sections(tables, plot_tables),
        legend=cells.LEGEND, shade_legend=SHADE_LEGEND,
        shades=[(css, text) for css, _, _, text in SHADES])
