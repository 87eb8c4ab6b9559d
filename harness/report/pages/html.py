"""The HTML page: the findings first (each answer linked to the table
that shows it), then every table of the RST report, one figure per table
declaration, coloured ratio cells, and a table of contents by family.

One self-contained file: CSS and SVG inline, and a Content-Security-Policy
that lets the page load and run nothing, whatever the results hold.  All
text goes through jinja2's autoescape; only matplotlib's SVG (which
escapes its own text) is marked safe.
"""
from __future__ import annotations

import math
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from markupsafe import Markup

from gilbench.report.data.records import label
from gilbench.report.numbers import cells
from gilbench.report.pages import plots
from gilbench.report.pages.text import one_line
from gilbench.report.tables import layout, questions

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
# A class per flag, not a tooltip each: a page has thousands of flags,
# and the legend at its top says what each means.
FLAG_CLASSES = {cells.NOISY_MARK: "noisy", cells.OVERSUBSCRIBED_MARK: "over",
                cells.NOT_SIGNIFICANT_MARK: "ns"}
# Below this many figures, starting worker processes costs more than it
# saves.
PARALLEL_FROM = 8


@dataclass
class HtmlCell:
    text: str
    flags: list = field(default_factory=list)  # (mark, css class)
    css: str = ""
    link: str = ""  # an anchor on the page


@dataclass
class HtmlTable:
    anchor: str
    title: str
    note: str
    header: list
    rows: list  # lists of HtmlCells
    reasons: list = field(default_factory=list)  # numbered notes


@dataclass
class HtmlBlock:
    """A layout.Block: tables without a value are (anchor, line) pairs;
    a table's title is "" where the block's heading names it; one figure
    for all its tables."""
    anchor: str
    title: str
    paragraphs: list
    omitted: list
    tables: list  # HtmlTables
    plot: object = None  # plots.Plot or None
    svg: Markup | None = None


@dataclass
class Section:
    anchor: str
    title: str
    blocks: list
    link: str = ""  # the family's page in the manual, when asked for


def shade(value):
    for css, low, high, _ in SHADES:
        if low <= value < high:
            return css
    return ""


def reason_class(text):
    for prefix in ("failed", "hung"):
        if text.startswith(prefix):
            return prefix
    return "na"


def html_cell(cell, shaded):
    if cell.missing:
        return HtmlCell(one_line(cell.text), css=reason_class(cell.text))
    css = "text" if cell.value is None else ""
    if shaded and isinstance(cell.value, (int, float)):
        css = shade(cell.value)
    return HtmlCell(one_line(cell.text),
                    [(mark, FLAG_CLASSES.get(mark, ""))
                     for mark in cell.flags],
                    css)


def html_rows(rows, shaded):
    """Cells of model rows (the first a label), reasons numbered: the
    rows and the notes."""
    short, reasons = layout.numbered(rows)
    return ([[HtmlCell(one_line(row[0].display), css="label")]
             + [html_cell(cell, shaded) for cell in row[1:]]
             for row in short], [one_line(r) for r in reasons])


def html_table(table, anchor, title, note):
    kind = (table.declaration or {}).get("cell", {}).get("kind")
    shaded = kind in SHADED_KINDS or table.shaded
    rows, reasons = html_rows(table.rows, shaded)
    return HtmlTable(
        anchor=anchor, title=one_line(title), note=one_line(note),
        header=[one_line(cell.display) for cell in table.header],
        rows=rows, reasons=reasons)


def _anchor(index):
    return "t%d" % (index + 1)


def html_block(block, number, drawn=None):
    return HtmlBlock(
        anchor="d%d" % number, title=one_line(block.title),
        paragraphs=[one_line(p) for p in block.paragraphs],
        omitted=[(_anchor(o.index), one_line(o.line))
                 for o in block.omitted],
        tables=[html_table(table, _anchor(index),
                           block.heading_of(table),
                           block.note_of(table))
                for index, table in block.tables],
        plot=drawn, svg=Markup(drawn.svg) if drawn else None)


def _figure(job):
    tables, gid, ceiling = job
    return plots.figure(tables, gid, ceiling)


def figures(blocks):
    """One plots.Plot (or None) per block, drawn in worker processes when
    there are many: matplotlib is single-threaded and each figure takes
    tens of milliseconds."""
    ceiling = plots.ceiling_curves([t for block in blocks
                                    for _, t in block.tables])
    jobs = [([t for _, t in block.tables], "d%d-plot" % number, ceiling)
            for number, block in enumerate(blocks, 1)]
    wanted = [k for k, (tables, _, _) in enumerate(jobs)
              if plots.facets(tables)]
    drawn = [None] * len(jobs)
    workers = min(len(os.sched_getaffinity(0)), len(wanted))
    if len(wanted) < PARALLEL_FROM or workers < 2:
        for k in wanted:
            drawn[k] = _figure(jobs[k])
        return drawn
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        for k, plot in zip(wanted, pool.map(_figure,
                                            [jobs[k] for k in wanted])):
            drawn[k] = plot
    return drawn


def sections(tables, plot_tables=True):
    """Declared tables' blocks grouped by family (in order), then one
    section of the listings (raw values, CPU, runs)."""
    found, listings = {}, []
    blocks = layout.blocks(tables)
    drawn = figures(blocks) if plot_tables else [None] * len(blocks)
    for number, (block, plot) in enumerate(zip(blocks, drawn), 1):
        shown = html_block(block, number, plot)
        if block.family is None:
            listings.append(shown)
            continue
        if block.family not in found:
            found[block.family] = Section("f-%d" % (len(found) + 1),
                                          one_line(block.family), [])
        found[block.family].blocks.append(shown)
    result = list(found.values())
    if listings:
        result.append(Section("f-all", "All benchmarks and runs", listings))
    return result


def _evidence_anchors(page_sections):
    """{(family, declaration title): block anchor}."""
    return {(section.title, block.title): block.anchor
            for section in page_sections for block in section.blocks}


def findings_table(found, page_sections):
    """The findings as an HtmlTable whose rows are ("family", name) and
    ("finding", HtmlCells) pairs; each question links to the block that
    is its evidence."""
    if not found or not found.rows:
        return None
    anchors = _evidence_anchors(page_sections)
    answers, reasons = html_rows([[label(f.question)] + f.answers
                                  for f in found.rows], shaded=False)
    rows, family = [], None
    for finding, cells_ in zip(found.rows, answers):
        if finding.family != family:
            family = finding.family
            rows.append(("family", one_line(family)))
        cells_[0].link = anchors.get((one_line(finding.family),
                                      one_line(finding.evidence)), "")
        rows.append(("finding", cells_))
    return HtmlTable(anchor="findings", title=questions.TITLE,
                     note=one_line(questions.INTRO),
                     header=["Question"] + [one_line(i)
                                            for i in found.interpreters],
                     rows=rows, reasons=reasons)


def docs_links(page_sections, docs_url):
    """Links each built-in family's heading to its page in the manual
    (``docs/families/<family>.rst`` built under ``docs_url``)."""
    if not docs_url:
        return
    from gilbench.model import modules
    from gilbench.model.resultformat import TIMEIT_FAMILY
    built_in = {name.rsplit(".", 1)[1]
                for name in modules.default_module_names()} | {TIMEIT_FAMILY}
    base = docs_url if docs_url.endswith("/") else docs_url + "/"
    for section in page_sections:
        if section.title in built_in:
            section.link = "%sfamilies/%s.html" % (base, section.title)


def page(environment, title, intro, tables, plot_tables=True, found=None,
         docs_url=None):
    page_sections = sections(tables, plot_tables)
    docs_links(page_sections, docs_url)
    return environment.get_template("report.html.j2").render(
        title=one_line(title), intro=[one_line(x) for x in intro],
        findings=findings_table(found, page_sections),
        sections=page_sections,
        legend=cells.LEGEND, shade_legend=SHADE_LEGEND,
        omitted_heading=layout.OMITTED_HEADING,
        shades=[(css, text) for css, _, _, text in SHADES])
