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

from gilbench.report import cells, layout, plots
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
class HtmlBlock:
    """A layout.Block: tables without a value are (anchor, line) pairs;
    a table's title is "" where the block's heading names it."""
    anchor: str
    title: str
    paragraphs: list
    omitted: list
    tables: list  # HtmlTables


@dataclass
class Section:
    anchor: str
    title: str
    blocks: list


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


def html_table(table, anchor, title, note, plot_tables=True):
    kind = (table.declaration or {}).get("cell", {}).get("kind")
    shaded = kind in SHADED_KINDS or table.shaded
    drawn = plots.plot(table, anchor + "-plot") if plot_tables else None
    return HtmlTable(
        anchor=anchor, title=one_line(title), note=one_line(note),
        header=[one_line(cell.display) for cell in table.header],
        rows=[[HtmlCell(one_line(row[0].display), css="label")]
              + [html_cell(cell, shaded) for cell in row[1:]]
              for row in table.rows],
        plot=drawn, svg=Markup(drawn.svg) if drawn else None)


def _anchor(index):
    return "t%d" % (index + 1)


def html_block(block, number, plot_tables=True):
    return HtmlBlock(
        anchor="d%d" % number, title=one_line(block.title),
        paragraphs=[one_line(p) for p in block.paragraphs],
        omitted=[(_anchor(o.index), one_line(o.line))
                 for o in block.omitted],
        tables=[html_table(table, _anchor(index),
                           block.heading_of(table),
                           block.note_of(table), plot_tables)
                for index, table in block.tables])


def sections(tables, plot_tables=True):
    """Declared tables' blocks grouped by family (in order), then one
    section of the listings (raw values, CPU, runs)."""
    found, listings = {}, []
    for number, block in enumerate(layout.blocks(tables), 1):
        drawn = html_block(block, number, plot_tables)
        if block.family is None:
            listings.append(drawn)
            continue
        if block.family not in found:
            found[block.family] = Section("f-%d" % (len(found) + 1),
                                          one_line(block.family), [])
        found[block.family].blocks.append(drawn)
    result = list(found.values())
    if listings:
        result.append(Section("f-all", "All benchmarks and runs", listings))
    return result


def page(environment, title, intro, tables, plot_tables=True):
    return environment.get_template("report.html.j2").render(
        title=one_line(title), intro=[one_line(x) for x in intro],
        sections=sections(tables, plot_tables),
        legend=cells.LEGEND, shade_legend=SHADE_LEGEND,
        omitted_heading=layout.OMITTED_HEADING,
        shades=[(css, text) for css, _, _, text in SHADES])
