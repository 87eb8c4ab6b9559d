"""Renders tables through the jinja2 templates (``gilbench.templates``,
templates/ in the repository), laid out for text by
gilbench.report.pages.textlayout, or as JSON (pages.jsonpage): the only
place where structured cells become (escaped) text."""
from __future__ import annotations

import contextlib
import functools
import os
import re

import jinja2

from gilbench import templates
from gilbench.report.numbers import cells
from gilbench.report.pages import jsonpage, manual
from gilbench.report.pages.text import one_line
from gilbench.report.pages.textlayout import (
    WIDTH,
    block_as_text,
    findings_as_text,
    wrap,
)
from gilbench.report.tables import layout, parallel, pivot, questions

TEMPLATES = os.path.dirname(os.path.abspath(templates.__file__))
FORMATS = {"rst": "report.rst.j2", "md": "report.md.j2",
           "html": "report.html.j2", "json": None}
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


def render(results, fmt, docs_url=None, width=WIDTH):
    """The report page; ``docs_url``: where the manual is built, for the
    HTML page's family headings to link to (none by default: a page
    stays self-contained); ``width``: RST's and Markdown's widest line
    (0: no limit)."""
    return render_pages(results, [fmt], docs_url, width)[fmt]


def render_pages(results, formats, docs_url=None, width=WIDTH):
    """{format: page} for each of ``formats``, from one computation of
    the tables and findings (see ``render``)."""
    intro = "Rendered from %d result file(s): %s." % (
        len(results), ", ".join(r.interpreter for r in results))
    html = "html" in formats
    with _figure_workers(results, html) as workers:
        drawing = _figures(results, html, workers)
        if drawing is None:  # the second CPU makes half the tables
            tables = parallel.all_tables(results)
        else:
            # Each declaration's figure is handed to the workers as soon
            # as its tables are made: they draw while the rest of the
            # tables and the findings are computed here.
            with pivot.handing_tables(drawing.add):
                tables = pivot.all_tables(results)
        found = questions.findings_table(results, pivot.family_order(results))
        # The text pages first: the HTML page waits for its figures.
        return {fmt: render_tables(tables, fmt, TITLE, [intro], found=found,
                                   docs_url=docs_url, width=width,
                                   workers=workers, drawing=drawing)
                for fmt in sorted(formats, key=lambda f: f == "html")}


def ahead(formats):
    """What ``render_pages`` of ``formats`` can do before its results are
    loaded, to do while they load (loader.load_results's ``meanwhile``):
    for an HTML page, this process's warm-up for its figures (which its
    workers inherit); else None."""
    if "html" not in formats:
        return None
    from gilbench.report.pages import figurepool
    return functools.partial(figurepool.warm, True)


def _figure_workers(results, html):
    """For an HTML page, its figures' workers, started now so that they
    get ready while the tables are computed; else nothing to start."""
    if not html:
        return contextlib.nullcontext()
    # Imported here: matplotlib is slow to import.
    from gilbench.report.pages import figurepool, plots
    declared = [declaration for tables, _ in
                pivot.declarations(results).values()
                for declaration in tables]
    return figurepool.Workers(len(declared), fits=any(
        map(plots.speedup_over_counts, declared)))


def _figures(results, html, workers):
    """An HTML page's figures (an html.Figures), to hand to ``workers``
    as their tables are made; else None."""
    if not html:
        return None
    from gilbench.report.pages import html as html_page
    return html_page.Figures(workers, pivot.family_order(results),
                             {f for result in results
                              for f in result.references})


def render_tables(tables, fmt, title, intro, legend=cells.LEGEND,
                  found=None, docs_url=None, width=WIDTH, workers=None,
                  drawing=None):
    """records.Tables as a page, opening with the findings (a
    questions.FindingsTable) when there are any: RST, Markdown, HTML
    with figures (drawn by ``workers``, a figurepool.Workers started
    ahead, if any; ``drawing``: the tables' html.Figures, handed out as
    they were made, if any), or JSON."""
    if fmt == "html":
        # Imported here: matplotlib is slow to import.
        from gilbench.report.pages import html
        return html.page(environment(), title, intro, tables, found=found,
                         docs_url=docs_url, workers=workers,
                         drawing=drawing)
    if fmt == "json":
        return jsonpage.render(tables, title, intro, legend, found)
    escape = _ESCAPE[fmt]
    text = environment().get_template(FORMATS[fmt]).render(
        title=escape(title),
        intro=[wrap(escape(line), width) for line in intro],
        legend=wrap(escape(legend + " " + manual.glossary_sentence(docs_url)),
                    width),
        findings_title=questions.TITLE,
        findings=(findings_as_text(found, escape, width)
                  if found and found.rows else None),
        omitted_heading=escape(layout.OMITTED_HEADING),
        blocks=[block_as_text(block, escape, width, simple=fmt == "rst")
                for block in layout.blocks(tables)])
    return re.sub(r"\n{3,}", "\n\n", text)


def rst_problems(text):
    """docutils' warnings and errors for ``text`` (empty when clean; see
    gilbench.report.pages.rstcheck)."""
    from gilbench.report.pages import rstcheck
    return rstcheck.problems(text)
