"""The HTML page: the findings first (each answer linked to the table
that shows it, and shaded by what it means), then every table of the RST
report, one figure per table declaration, coloured ratio cells, and a
table of contents by family.

One self-contained file: CSS and SVG inline, and a Content-Security-Policy
that lets the page load and run nothing, whatever the results hold.  All
text goes through jinja2's autoescape; only matplotlib's SVG (which
escapes its own text) and the style sheet its figures share (made of
matplotlib's style attributes) are marked safe.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from markupsafe import Markup

from gilbench.report.data.records import label
from gilbench.report.kinds.base import is_number
from gilbench.report.numbers import cells
from gilbench.report.pages import figurepool, manual, plots, svgtrim
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
# What a finding's answer means, as the class of its cell (beside the
# shades above, which a ratio's or speedup's answer takes as its table's
# cells do, and the reasons' classes): read from the answer's Cell, never
# from its wording.
UNDECIDED = "und"  # its interval cannot tell (Cell.significant is False)
DECIDED = "dec"  # significant, with no scale to shade (a best-of)
MEASURED = "val"  # a measurement, not a comparison (a throughput)
ANSWER_LEGEND = (
    ("Ratio and speedup answers are shaded as their tables' cells are; "
     "grey: undecided (the interval reaches 1, the runner-up is within "
     "reach, or it is too noisy to tell)."),
    ((UNDECIDED, "undecided"), ("na", "n/a: ...")),
    "%s %s A best-of's winners are letters, named under its question." % (
        questions.MATRIX_NOTE % "one hover (or a focus: Tab) away, and "
        "printed with the page", questions.MARKS_NOTE))
# The one line above the matrix: each mark a cell can carry, in a word or
# two (the whole legend is under "How to read a cell").
MARKS_KEY = (
    (cells.SAME_MARK, "the same within the margin"),
    (cells.NOT_SIGNIFICANT_MARK, "undecided"),
    ("+", "a note"),
    (cells.OVERSUBSCRIBED_MARK, "oversubscribed"),
    (cells.BUSY_MARK, "busy machine"),
    (cells.SPLIT_MARK, "processes disagree"),
)
KEY_TAIL = "hover or focus an answer for its interval"
# The findings matrix: its question column's width, and the least an
# answer column gets before the page scrolls sideways (rem; an answer
# column is as wide as its widest answer, and the question column takes
# the rest); at 1400 px sixteen interpreters fit.
QUESTION_REM = 16
ANSWER_REM = 4
# Flags colour by a class where they differ from the rest (not
# significant); a cell's other marks share one element: a page has
# thousands of flags, and the legend at its top says what each means.
FLAG_CLASSES = {cells.NOT_SIGNIFICANT_MARK: "ns"}


@dataclass
class HtmlCell:
    text: str
    flags: list = field(default_factory=list)  # (marks, css class)
    css: str = ""
    link: str = ""  # an anchor on the page
    note: str = ""  # a remark shown on hover, behind a mark
    # A findings answer's whole wording (its interval, note and marks),
    # shown when the compact cell is hovered, focused or printed.
    tip: str = ""
    # A best-of question's key to its answers' letters ("A: mutex, ...").
    key: str = ""


@dataclass
class HtmlTable:
    anchor: str
    title: str
    note: str
    header: list
    rows: list  # lists of HtmlCells
    reasons: list = field(default_factory=list)  # numbered notes
    # The findings': questions n/a in every column, one line each.
    unanswered: list = field(default_factory=list)
    # The findings': each column's whole label, where its header is short.
    header_titles: list = field(default_factory=list)


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


def flag_groups(flags):
    """[(marks, css class)]: runs of a cell's flags that share a class."""
    groups = []
    for mark in flags:
        css = FLAG_CLASSES.get(mark, "")
        if groups and groups[-1][1] == css:
            groups[-1] = (groups[-1][0] + mark, css)
        else:
            groups.append((mark, css))
    return groups


def html_cell(cell, shaded):
    if cell.missing:
        return HtmlCell(one_line(cell.text), css=reason_class(cell.text))
    css = "text" if cell.value is None else ""
    if shaded and is_number(cell.value):
        css = shade(cell.value)
    return HtmlCell(one_line(cell.text), flag_groups(cell.flags), css,
                    note=one_line(cell.note))


def answer_class(cell, kind):
    """The class of a finding's answer (a Cell of a ``kind`` cell): what
    it means -- a reason's class, undecided, a ratio's or speedup's
    shade by its value, decided, or a measurement."""
    if cell.missing:
        return reason_class(cell.text)
    if cell.significant is False and cell.same is None:
        return UNDECIDED
    if kind in SHADED_KINDS and is_number(cell.value):
        return shade(cell.value)
    return DECIDED if cell.significant or cell.same is not None \
        else MEASURED


def answer_cell(cell, numbered, kind, common="", codes=None):
    """A finding's answer in the compact matrix: the answer alone (a
    reason by its number, ``numbered``'s text; a best-of's winner by its
    letter in ``codes``), its marks but those its question carries
    (``common``) and ~, its class by what it means, and its whole wording
    as the tip."""
    if cell.missing:
        return HtmlCell(one_line(numbered.text), css=reason_class(cell.text),
                        tip=one_line(cell.text))
    marks = "".join(mark for mark in questions.matrix_marks(cell)
                    if mark not in common)
    tip = cell.display
    if cell.cause is not None:
        tip += " -- why: " + cell.cause.text
    if cell.cost:
        tip += " -- " + questions.cost_wording(cell.cost)
    return HtmlCell(one_line(questions.answer_code(cell, codes or {})),
                    flag_groups(marks), answer_class(cell, kind),
                    note=one_line(cell.note), tip=one_line(tip))


def html_table(table, anchor, title, note):
    """The table, its reason cells numbered already
    (layout.numbered_tables); the lines it leaves out under it."""
    kind = (table.declaration or {}).get("cell", {}).get("kind")
    shaded = kind in SHADED_KINDS or table.shaded
    return HtmlTable(
        anchor=anchor, title=one_line(title), note=one_line(note),
        header=[one_line(cell.display) for cell in table.header],
        rows=[[HtmlCell(one_line(row[0].display), css="label")]
              + [html_cell(cell, shaded) for cell in row[1:]]
              for row in table.rows],
        reasons=[one_line(r) for r in table.left_out])


def _anchor(index):
    return "t%d" % (index + 1)


def html_block(block, number, drawn=None):
    """The block's tables, each reason listed once under its last."""
    numbered, notes = layout.numbered_tables(block)
    tables = [html_table(table, _anchor(index), block.heading_of(table),
                         block.note_of(table))
              for index, table in numbered]
    if tables:
        tables[-1].reasons[:0] = [one_line(line) for line in notes]
    return HtmlBlock(
        anchor="d%d" % number, title=one_line(block.title),
        paragraphs=[one_line(p) for p in block.paragraphs],
        omitted=[(_anchor(o.index), one_line(o.line))
                 for o in block.omitted],
        tables=tables,
        plot=drawn, svg=Markup(drawn.svg) if drawn else None)


class Figures:
    """The page's figures, one plots.Plot (or None) per block, drawn in
    worker processes when there are many (figurepool; ``workers``: a
    figurepool.Workers started ahead, if any) while this process goes on.

    ``add`` takes each declaration's tables as pivot.all_tables makes
    them (pivot.handing_tables) and hands out their figure as soon as
    this machine's ceiling is known: every speedup over a count draws it,
    from the tables of the ``references`` families (those declaring
    reference points), so the figures wait until the tables of a family
    after them in page ``order`` come.  ``plots(blocks)`` waits for them
    all, and draws what the page's blocks want that was not handed out,
    or was for other tables or another ceiling."""

    def __init__(self, workers=None, order=(), references=()):
        self.drawing = figurepool.Drawing(workers)
        self.order = list(order)
        self.references = set(references)
        self.made = []  # each declaration's drawn tables, as made
        self.waiting = []  # (tables, gid) made before the ceiling was known
        self.ceiling = None
        self.handed = {}  # gid: (tables, ceiling, index in the drawing)

    def add(self, tables):
        """A declaration's tables (maybe none), as all_tables makes them:
        a block of the page, numbered as layout.blocks numbers it."""
        if not tables:
            return
        if self.ceiling is None and self._after_references(tables[0].family):
            self.ceiling = plots.ceiling_curves(
                [t for made in self.made for t in made])
        block, = layout.blocks(tables)
        self.made.append([t for _, t in block.tables])
        self.waiting.append((self.made[-1], "d%d-plot" % len(self.made)))
        if self.ceiling is not None:
            jobs = [(drawn, gid, self.ceiling) for drawn, gid in self.waiting
                    if plots.facets(drawn)]
            for job, index in zip(jobs, self.drawing.add(jobs)):
                self.handed[job[1]] = (job[0], job[2], index)
            self.waiting = []

    def _after_references(self, family):
        """Whether ``family`` comes after every reference family."""
        if family not in self.order:
            return False
        at = self.order.index(family)
        return all(f in self.order and self.order.index(f) < at
                   for f in self.references)

    def plots(self, blocks):
        """One Plot (or None) per block of the page."""
        ceiling = plots.ceiling_curves([t for block in blocks
                                        for _, t in block.tables])
        wanted = {}
        for number, block in enumerate(blocks, 1):
            drawn = [t for _, t in block.tables]
            if plots.facets(drawn):
                wanted["d%d-plot" % number] = (number - 1, drawn)
        again = [(drawn, gid, ceiling) for gid, (_, drawn) in wanted.items()
                 if not self._handed_as(gid, drawn, ceiling)]
        for job, index in zip(again, self.drawing.add(again)):
            self.handed[job[1]] = (job[0], job[2], index)
        found = self.drawing.result()
        shown = [None] * len(blocks)
        for gid, (k, _) in wanted.items():
            shown[k] = found[self.handed[gid][2]]
        return shown

    def _handed_as(self, gid, tables, ceiling):
        handed = self.handed.get(gid)
        return (handed is not None and handed[1] == ceiling
                and len(handed[0]) == len(tables)
                and all(a is b for a, b in zip(handed[0], tables)))


def shared_styles(drawn):
    """The figures' repeated styles as classes of one style sheet for the
    page (svgtrim.share_styles): the Plots, their svg changed, and the
    style sheet."""
    shown = [plot for plot in drawn if plot is not None]
    svgs, css = svgtrim.share_styles([plot.svg for plot in shown])
    for plot, svg in zip(shown, svgs):
        plot.svg = svg
    return drawn, css


def sections(tables, plot_tables=True, workers=None, drawing=None):
    """Declared tables' blocks grouped by family (in order), then one
    section of the listings (raw values, CPU, runs); and the style sheet
    their figures share.  ``drawing``: the tables' Figures, handed out
    as they were made, if any."""
    found, listings = {}, []
    blocks = layout.blocks(tables)
    if plot_tables and drawing is None:
        drawing = Figures(workers)
    drawn, css = (shared_styles(drawing.plots(blocks)) if plot_tables
                  else ([None] * len(blocks), ""))
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
    return result, css


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
    shown, unanswered = questions.folded(found)
    anchors = _evidence_anchors(page_sections)
    numbered, reasons = layout.numbered([[label(f.question)] + f.answers
                                         for f in shown])
    rows, family = [], None
    for finding, short in zip(shown, numbered):
        if finding.family != family:
            family = finding.family
            rows.append(("family", one_line(family)))
        common = questions.shared_marks(finding.answers)
        codes = questions.winner_codes(finding.answers)
        question = HtmlCell(one_line(finding.question),
                            flag_groups(common), css="label",
                            link=anchors.get((one_line(finding.family),
                                              one_line(finding.evidence)),
                                             ""),
                            key=one_line(questions.winner_key(codes)))
        kind = finding.declaration["cell"]["kind"]
        rows.append(("finding", [question] + [
            answer_cell(answer, numbered_, kind, common, codes)
            for answer, numbered_ in zip(finding.answers, short[1:])]))
    return HtmlTable(anchor="findings", title=questions.TITLE,
                     note=one_line(questions.INTRO),
                     header=["Question"] + [one_line(i) for i in
                                            found.short_headers],
                     header_titles=[""] + [one_line(i)
                                           for i in found.headers],
                     rows=rows, reasons=reasons,
                     unanswered=[one_line(line) for line in unanswered])


def docs_links(page_sections, docs_url):
    """Links each built-in family's heading to its page in the manual
    (``docs/families/<family>.rst`` built under ``docs_url``)."""
    if not docs_url:
        return
    from gilbench.model import modules
    from gilbench.model.resultformat import TIMEIT_FAMILY
    built_in = {name.rsplit(".", 1)[1]
                for name in modules.default_module_names()} | {TIMEIT_FAMILY}
    for section in page_sections:
        if section.title in built_in:
            section.link = manual.page_url(docs_url,
                                           "families/" + section.title)


def reading_url(docs_url):
    """Where the manual's "Reading the report" is built, or None."""
    return manual.page_url(docs_url, "reading")


def page(environment, title, intro, tables, plot_tables=True, found=None,
         docs_url=None, workers=None, drawing=None):
    """The page; ``workers``: a figurepool.Workers started ahead to draw
    its figures, if any; ``drawing``: its Figures, handed out already
    (to those workers), if any."""
    page_sections, figure_css = sections(tables, plot_tables, workers,
                                         drawing)
    docs_links(page_sections, docs_url)
    return environment.get_template("report.html.j2").render(
        title=one_line(title), intro=[one_line(x) for x in intro],
        findings=findings_table(found, page_sections),
        sections=page_sections,
        legend=cells.LEGEND, shade_legend=SHADE_LEGEND,
        omitted_heading=layout.OMITTED_HEADING,
        unanswered_title=questions.UNANSWERED_TITLE,
        shades=[(css, text) for css, _, _, text in SHADES],
        answer_legend=ANSWER_LEGEND, marks_key=MARKS_KEY, key_tail=KEY_TAIL,
        reading_url=reading_url(docs_url),
        glossary_url=manual.page_url(docs_url, "glossary"),
        question_rem=QUESTION_REM, answer_rem=ANSWER_REM,
        matrix_rem=lambda columns: QUESTION_REM + ANSWER_REM * columns,
        figure_css=Markup(figure_css))
