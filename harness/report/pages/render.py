"""Renders tables through the jinja2 templates (``gilbench.templates``,
templates/ in the repository): the only place where structured cells
become (escaped) text."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

import jinja2

from gilbench import templates
from gilbench.report.data import records
from gilbench.report.numbers import cells
from gilbench.report.pages.text import one_line
from gilbench.report.tables import layout, pivot, questions

TEMPLATES = os.path.dirname(os.path.abspath(templates.__file__))
FORMATS = {"rst": "report.rst.j2", "md": "report.md.j2",
           "html": "report.html.j2"}
TITLE = "gilbench results"
_RST_SPECIAL = re.compile(r"([\\*`|_])")


def rst_text(text):
    """Backslash-escape inline markup so names never become references."""
    return _RST_SPECIAL.sub(r"\\\1", one_line(text))


_MD_SPECIAL = re.compile(r"([\\|*_~`])")


def md_text(text):
    """Escape what would end a table cell or start emphasis (GFM takes a
    single ~ for strikethrough)."""
    return _MD_SPECIAL.sub(r"\\\1", one_line(text))


_ESCAPE = {"rst": rst_text, "md": md_text}


def environment():
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        autoescape=jinja2.select_autoescape(["html", "html.j2"]),
        undefined=jinja2.StrictUndefined)


@dataclass
class TextTable:
    """A table as the text templates draw it: escaped strings only; the
    reasons of its n/a (failed, hung) cells as numbered notes under it."""
    title: str
    note: str
    header: list
    rows: list
    reasons: list = ()

    @property
    def widths(self):
        return [max(len(row[i]) for row in [self.header] + self.rows)
                for i in range(len(self.header))]


@dataclass
class TextBlock:
    """A layout.Block as the text templates draw it: a heading, its
    paragraphs (fixed values, shared note), the one-line mentions of
    tables without a value, then TextTables (title "" when the block's
    heading names the only table)."""
    title: str
    paragraphs: list
    omitted: list
    tables: list


def as_text(table, escape, title, note):
    """A records.Table's cells (text and flags) as escaped strings, under
    ``title`` and ``note`` (the block decides whether it has its own)."""
    rows, reasons = layout.numbered(table.rows)
    return TextTable(escape(title), escape(note),
                     [escape(cell.display) for cell in table.header],
                     [[escape(cell.display) for cell in row]
                      for row in rows], [escape(r) for r in reasons])


def findings_as_text(found, escape):
    """The FindingsTable as one TextTable: family, question, an answer
    per interpreter (the family named on its first row only)."""
    rows, family = [], None
    for finding in found.rows:
        first = finding.family if finding.family != family else ""
        family = finding.family
        rows.append([records.label(first), records.label(finding.question)]
                    + finding.answers)
    short, reasons = layout.numbered([[r[0]] + r[1:] for r in rows])
    header = ["Family", "Question"] + found.interpreters
    return TextTable("", escape(questions.INTRO),
                     [escape(h) for h in header],
                     [[escape(cell.display) for cell in row]
                      for row in short], [escape(r) for r in reasons])


def block_as_text(block, escape):
    return TextBlock(
        escape(block.title),
        [escape(p) for p in block.paragraphs],
        [escape(omitted.line) for omitted in block.omitted],
        [as_text(table, escape, block.heading_of(table),
                 block.note_of(table)) for _, table in block.tables])


def render(results, fmt, docs_url=None):
    """The report page; ``docs_url``: where the manual is built, for the
    HTML page's family headings to link to (none by default: a page
    stays self-contained)."""
    intro = "Rendered from %d result file(s): %s." % (
        len(results), ", ".join(r.interpreter for r in results))
    found = questions.findings_table(results, pivot.family_order(results))
    return render_tables(pivot.all_tables(results), fmt, TITLE, [intro],
                         found=found, docs_url=docs_url)


def render_tables(tables, fmt, title, intro, legend=cells.LEGEND,
                  found=None, docs_url=None):
    """records.Tables as a page, opening with the findings (a
    questions.FindingsTable) when there are any: RST, Markdown, or HTML
    with figures."""
    if fmt == "html":
        # Imported here: matplotlib is slow to import.
        from gilbench.report.pages import html
        return html.page(environment(), title, intro, tables, found=found,
                         docs_url=docs_url)
    escape = _ESCAPE[fmt]
    text = environment().get_template(FORMATS[fmt]).render(
        title=escape(title), intro=[escape(line) for line in intro],
        legend=escape(legend),
        findings_title=questions.TITLE,
        findings=(findings_as_text(found, escape) if found and found.rows
                  else None),
        omitted_heading=escape(layout.OMITTED_HEADING),
        blocks=[block_as_text(block, escape)
                for block in layout.blocks(tables)])
    return re.sub(r"\n{3,}", "\n\n", text)


def rst_problems(text):
    """docutils' warnings and errors for ``text`` (empty when clean)."""
    import io

    import docutils.core
    stream = io.StringIO()
    docutils.core.publish_doctree(
        text, settings_overrides={"warning_stream": stream,
                                  "report_level": 2, "halt_level": 5})
    return stream.getvalue()
