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
    # Drawn as a simple table (columns one space apart, a line per row:
    # RST's simple table, Markdown's without padding) rather than a grid;
    # in RST only where every row has a label, so that no row reads as the
    # one above continued.
    simple: bool = False

    @property
    def widths(self):
        return [max(len(row[i]) for row in [self.header] + self.rows)
                for i in range(len(self.header))]

    def parts(self, width, keep=1):
        """The table as tables no wider than ``width`` (a line is the
        cells plus a gap each, plus 1: a grid's "| " and " " are 3, a
        simple table's space 1): the first ``keep`` columns in each, the
        others in groups; a titled table's parts after the first are
        titled "... (continued)"."""
        gap = SIMPLE_GAP if self.simple else 3
        widths = self.widths
        kept = sum(w + gap for w in widths[:keep]) + 1
        groups, group, used = [], [], kept
        for index in range(keep, len(widths)):
            if group and width and used + widths[index] + gap > width:
                groups.append(group)
                group, used = [], kept
            group.append(index)
            used += widths[index] + gap
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
            self.labels if number == 0 else [], self.simple)
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


def wrap_names(text, width, indent):
    """A line naming benchmarks, folded at ``width`` like :func:`wrap`, and
    a name longer than a line folded after its commas (:func:`fold`)."""
    if not width:
        return text
    return "\n".join(line if len(line) <= width else fold(line, width, indent)
                     for line in wrap(text, width, indent).split("\n"))


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


def as_text(table, escape, title, note, width=WIDTH, simple=False):
    """A records.Table's cells (text and flags; its reason cells numbered
    already, layout.numbered_tables) as escaped strings, under ``title``
    and ``note`` (the block decides whether it has its own), split into
    parts no wider than ``width``; long row labels numbered and listed
    above it; ``simple``: as an RST simple table where it can be one
    (TextTable.simple)."""
    rows, labels = _numbered_labels(
        [[escape(cell.display) for cell in row] for row in table.rows],
        width)
    simple = simple and all(row[0].strip() for row in rows)
    return TextTable(escape(title), wrap(escape(note), width),
                     [escape(cell.display) for cell in table.header], rows,
                     [wrap_names(escape(r), width, "  ")
                      for r in table.left_out],
                     labels, simple).parts(width)


@dataclass
class TextFindings:
    """The findings as the text templates draw them: their intro, the
    questions numbered (Q1, Q2, ...), then a compact matrix -- a row per
    question, a short-named column per interpreter (``columns`` says
    which is which), each answer alone with its marks -- and under it
    each question's intervals and notes, one list item per question
    (``details``); at full width (``width`` 0) one grid table of family,
    question and whole answers instead."""
    note: str
    questions: list
    tables: list
    # "family: question -- reasons" of the questions n/a in every column,
    # as list items under questions.UNANSWERED_TITLE.
    unanswered: list = ()
    unanswered_title: str = questions.UNANSWERED_TITLE
    columns: str = ""
    details: list = ()
    details_title: str = "Intervals and notes, by question"


# A simple table's columns are one space apart.
SIMPLE_GAP = 1
NOTE_MARK = "+"
ROW_MARKS_NOTE = ("%s (Q22^: beside its number.) A best-of's winners are "
                  "letters, named on the question's line."
                  % questions.MARKS_NOTE)


def findings_as_text(found, escape, width=WIDTH):
    shown, unanswered = questions.folded(found)
    unanswered = [wrap("- " + escape(line), width, "  ")
                  for line in unanswered]
    if not width:
        return replace(_findings_full_width(found, shown, escape),
                       unanswered=unanswered)
    asked, rows = [], []
    for number, finding in enumerate(shown, 1):
        codes = questions.winner_codes(finding.answers)
        key = questions.winner_key(codes)
        asked.append(wrap(escape("Q%d (%s): %s%s" % (
            number, finding.family, finding.question,
            " -- " + key if key else "")), width))
        rows.append(matrix_row(number, finding.answers, codes))
    short, reasons = layout.numbered(rows)
    headers = found.short_headers
    table = TextTable("", "", [escape(h) for h in ["Q"] + headers],
                      [[escape(cell.text) for cell in row] for row in short],
                      [wrap(escape(r), width, "  ") for r in reasons],
                      simple=True)
    columns = "Columns: %s." % ", ".join(
        "%s = %s" % (short_name, full)
        for short_name, full in zip(headers, found.headers))
    details = [wrap("- " + escape(line), width, "  ")
               for line in _details(shown, headers)]
    note = "%s %s %s" % (questions.INTRO,
                         questions.MATRIX_NOTE % "listed under it",
                         ROW_MARKS_NOTE)
    return TextFindings(wrap(escape(note), width), asked,
                        table.parts(width) if rows else [], unanswered,
                        columns=wrap(escape(columns), width),
                        details=details)


def matrix_row(number, answers, codes):
    """A question's row of the compact matrix, as label Cells: "Q3", then
    each answer alone (a winner by its letter, a reason as it is, to be
    numbered) with a + for a note and its marks; a mark every answer
    carries goes beside the question's number instead ("Q22^")."""
    common = questions.shared_marks(answers)
    row = [records.label("Q%d%s" % (number, common))]
    for cell in answers:
        if cell.missing:
            row.append(cell)
            continue
        text = questions.answer_code(cell, codes)
        row.append(records.label("".join(
            [text, NOTE_MARK if cell.note else ""]
            + [mark for mark in questions.matrix_marks(cell)
               if mark not in common])))
    return row


def _details(shown, headers):
    """"Q1: 2.7 1.87x [1.59-2.21] ~; 3.8 ..." for each question with an
    answer whose wording says more than its matrix cell (an interval, a
    margin, a note); reasons are numbered under the matrix instead."""
    lines = []
    for number, finding in enumerate(shown, 1):
        said = ["%s %s" % (header, cell.display)
                for header, cell in zip(headers, finding.answers)
                if not cell.missing and (cell.text != cell.short
                                         or cell.note)]
        if said:
            lines.append("Q%d: %s" % (number, "; ".join(said)))
        lines += ["Q%d why, %s: %s" % (number, header, cell.cause.text)
                  for header, cell in zip(headers, finding.answers)
                  if cell.cause is not None]
    return lines


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


def block_as_text(block, escape, width=WIDTH, simple=False):
    """The block's tables, each reason listed once under its last;
    ``simple``: RST simple tables where they can be."""
    numbered, notes = layout.numbered_tables(block)
    parts = [part for _, table in numbered
             for part in as_text(table, escape, block.heading_of(table),
                                 block.note_of(table), width, simple)]
    if parts:
        parts[-1] = replace(parts[-1], reasons=[
            wrap(escape(line), width, "  ")
            for line in notes] + list(parts[-1].reasons))
    return TextBlock(
        escape(block.title),
        [wrap(escape(p), width) for p in block.paragraphs],
        [wrap(escape(omitted.line), width, "  ")
         for omitted in block.omitted], parts)
