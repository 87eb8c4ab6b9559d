"""The text formats' layout (RST and Markdown): tables as escaped
strings, split into tables no wider than a line width (groups of
columns, the row labels repeated), paragraphs and list items folded,
long row labels numbered and listed above their table, the findings'
questions numbered above their answers.  The templates only draw it."""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, replace

from gilbench.report.data import records
from gilbench.report.tables import layout, questions

# The widest line of RST and Markdown by default: what pastes into a
# README, an issue or a Sphinx page (0: no limit).
WIDTH = 120


@dataclass
class TextTable:
    """A table as the text templates draw it: escaped strings only; the
    reasons of its n/a (failed, hung) cells as numbered notes under it."""
    title: str
    note: str
    header: list
    rows: list
    reasons: list = ()
    labels: list = ()  # "B1: a long row label", listed above the table

    @property
    def widths(self):
        return [max(len(row[i]) for row in [self.header] + self.rows)
                for i in range(len(self.header))]

    def parts(self, width, keep=1):
        """The table as tables no wider than ``width`` (a grid line is
        the cells plus 3 characters each, plus 1): the first ``keep``
        columns in each, the others in groups; a titled table's parts
        after the first are titled "... (continued)"."""
        widths = self.widths
        kept = sum(w + 3 for w in widths[:keep]) + 1
        groups, group, used = [], [], kept
        for index in range(keep, len(widths)):
            if group and width and used + widths[index] + 3 > width:
                groups.append(group)
                group, used = [], kept
            group.append(index)
            used += widths[index] + 3
        groups.append(group)
        if len(groups) == 1:
            return [self]
        columns = [list(range(keep)) + group for group in groups]
        return [TextTable(
            self.title if number == 0 or not self.title else
            "%s (continued)" % self.title,
            self.note if number == 0 else "",
            [self.header[i] for i in chosen],
            [[row[i] for i in chosen] for row in self.rows],
            self.reasons if number == len(columns) - 1 else [],
            self.labels if number == 0 else [])
            for number, chosen in enumerate(columns)]


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


def wrap(text, width, indent=""):
    """A paragraph (or a list item, after its "- " or "| " and continued
    at ``indent``) folded at ``width``; one line when ``width`` is 0."""
    if not width:
        return text
    width -= len(indent)
    return "\n".join(textwrap.wrap(text, width, subsequent_indent=indent,
                                    break_long_words=False,
                                    break_on_hyphens=False)) or text


def fold(text, width, indent="  "):
    """A name without spaces (a benchmark's) folded after its commas so
    no line passes ``width``; one line when ``width`` is 0."""
    lines = [""]
    for piece in re.findall(r"[^,]*,?", text):
        if (width and lines[-1].strip() and
                len(lines[-1]) + len(piece) > width):
            lines.append(indent)
        lines[-1] += piece
    return "\n".join(lines)


# A row label longer than this, with a width to keep, is numbered (B1,
# B2...) and listed above its table.
LONG_LABEL = 48


def _numbered_labels(rows, width):
    """(rows with long labels as B1, B2..., the "B1: label" lines)."""
    if not width or all(len(row[0]) <= LONG_LABEL for row in rows):
        return rows, []
    listed = []
    for number, row in enumerate(rows, 1):
        listed.append(fold("B%d: %s" % (number, row[0]), width - 2))
        row[0] = "B%d" % number
    return rows, listed


def as_text(table, escape, title, note, width=WIDTH):
    """A records.Table's cells (text and flags) as escaped strings, under
    ``title`` and ``note`` (the block decides whether it has its own),
    split into parts no wider than ``width``; long row labels numbered
    and listed above it."""
    rows, reasons = layout.numbered(table.rows)
    rows, labels = _numbered_labels(
        [[escape(cell.display) for cell in row] for row in rows], width)
    return TextTable(escape(title), wrap(escape(note), width),
                     [escape(cell.display) for cell in table.header], rows,
                     [wrap(escape(r), width, "  ") for r in reasons],
                     labels).parts(width)


@dataclass
class TextFindings:
    """The findings as the text templates draw them: their intro, the
    questions numbered (Q1, Q2, ...), and the answers by number, an
    interpreter per column, split into tables that fit; at full width
    (``width`` 0) one table of family, question and answers."""
    note: str
    questions: list
    tables: list
    # "family: question -- reasons" of the questions n/a in every column,
    # as list items under questions.UNANSWERED_TITLE.
    unanswered: list = ()
    unanswered_title: str = questions.UNANSWERED_TITLE


def findings_as_text(found, escape, width=WIDTH):
    shown, unanswered = questions.folded(found)
    unanswered = [wrap("- " + escape(line), width, "  ")
                  for line in unanswered]
    if not width:
        return replace(_findings_full_width(found, shown, escape),
                       unanswered=unanswered)
    asked, rows = [], []
    for number, finding in enumerate(shown, 1):
        asked.append(wrap(escape("Q%d (%s): %s" % (
            number, finding.family, finding.question)), width))
        rows.append([records.label("Q%d" % number)] + finding.answers)
    short, reasons = layout.numbered(rows)
    table = TextTable("", "", [escape(h) for h in ["Q"] + found.headers],
                      [[escape(cell.display) for cell in row]
                       for row in short],
                      [wrap(escape(r), width, "  ") for r in reasons])
    return TextFindings(wrap(escape(questions.INTRO), width), asked,
                        table.parts(width) if rows else [], unanswered)


def _findings_full_width(found, shown, escape):
    """One table: family (on its first row only), question, an answer per
    interpreter, for the ``shown`` rows."""
    rows, family = [], None
    for finding in shown:
        first = finding.family if finding.family != family else ""
        family = finding.family
        rows.append([records.label(first), records.label(finding.question)]
                    + finding.answers)
    short, reasons = layout.numbered(rows)
    header = ["Family", "Question"] + found.headers
    return TextFindings(escape(questions.INTRO), [], [TextTable(
        "", "", [escape(h) for h in header],
        [[escape(cell.display) for cell in row] for row in short],
        [escape(r) for r in reasons])] if rows else [])


def block_as_text(block, escape, width=WIDTH):
    return TextBlock(
        escape(block.title),
        [wrap(escape(p), width) for p in block.paragraphs],
        [wrap(escape(omitted.line), width, "  ")
         for omitted in block.omitted],
        [part for _, table in block.tables
         for part in as_text(table, escape, block.heading_of(table),
                             block.note_of(table), width)])
