"""How the tables of a page are laid out, for every format alike: the
tables of one declaration under one heading, what they share stated
once, and a table without a single value reduced to one line.

A declaration split by ``per`` gives many tables; their titles name only
what tells them apart (gilbench.report.tables.pivot), so the per values
they all share, and a note they all share, go once under the
declaration's heading.
A declared table whose every cell is "n/a: <reason>" (combinations the
family excludes, a feature missing everywhere) would be a grid of one
repeated sentence and no plot: it is listed in one line naming the table
and its reasons instead -- never dropped, since an unsupported
combination is shown as n/a with its reason.  Failed and hung cells are
never reduced: they are problems to look at.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from gilbench.report.numbers import cells
from gilbench.report.tables.pivot import equals_list

# After a block's drawn tables (so they come first), as the last
# subsection where it has drawn tables.
OMITTED_HEADING = "Not drawn: every cell n/a"


@dataclass
class Omitted:
    """A table reduced to one line: its title and distinct reasons."""
    table: object  # records.Table
    index: int  # its position among the page's tables (anchors)
    reasons: list

    @property
    def line(self):
        return "%s -- %s" % (self.table.title, "; ".join(self.reasons))


@dataclass
class Block:
    """The tables of one declaration (or one undeclared table)."""
    title: str
    family: str | None
    fixed: str  # "case=batch, tasks=4": every table here has these
    note: str  # shared by every drawn table ("" when they differ)
    tables: list = field(default_factory=list)  # (index, records.Table)
    omitted: list = field(default_factory=list)  # Omitted

    def heading_of(self, table):
        """A table's own heading, or "" where the block's names it."""
        return "" if table.title == self.title else table.title

    def note_of(self, table):
        return "" if self.note else table.note

    @property
    def fixed_line(self):
        if not self.fixed:
            return ""
        count = len(self.tables) + len(self.omitted)
        return "Fixed for %s: %s." % (
            "these %d tables" % count if count > 1 else "this table",
            self.fixed)

    @property
    def paragraphs(self):
        """Under the heading: the fixed values, then the shared note."""
        return [text for text in (self.fixed_line, self.note) if text]


def not_applicable(table):
    """The distinct n/a reasons, in first-seen order, of a declared table
    whose every cell is one; [] when any cell has a value, failed or
    hung (or the table is not declared: listings show every benchmark)."""
    if table.declaration is None:
        return []
    return cells.not_applicable([cell for row in table.rows
                                 for cell in row[1:]])


def _same_declaration(block_table, table):
    # One declaration's tables come in a row from pivot.declared_tables,
    # all holding the very same declaration dict.
    return (block_table is not None and table.declaration is not None
            and table.declaration is block_table.declaration
            and table.family == block_table.family)


def blocks(tables):
    """The page's tables, in order, as Blocks; indices count every table
    (drawn or omitted) so anchors stay stable."""
    found, first = [], None
    for index, table in enumerate(tables):
        if not _same_declaration(first, table):
            first = table
            title = (table.declaration["title"] if table.declaration
                     else table.title)
            found.append(Block(title, table.family,
                               equals_list(table.common), ""))
        block = found[-1]
        # A listing whose every row it left out: its lines say why.
        reasons = not_applicable(table) or (
            [] if table.rows else table.left_out)
        if reasons:
            block.omitted.append(Omitted(table, index, reasons))
        else:
            block.tables.append((index, table))
    for block in found:
        notes = {table.note for _, table in block.tables}
        if len(notes) == 1:
            block.note = notes.pop()
    return found


def numbered(rows, notes=None):
    """Rows of Cells (the first of each a label) with every reason cell
    shortened to its word and a note number (``n/a [1]``), and the
    notes, ``[1] n/a: <reason>``: a long reason no longer widens its
    column, so a table pasted into docs stays narrow.  ``notes``: a list
    of reasons numbered already (a block's earlier tables'), extended in
    place, so that tables sharing it list each reason once."""
    notes = [] if notes is None else notes
    short_rows = []
    for row in rows:
        short = [row[0]]
        for cell in row[1:]:
            if cell.missing and ":" in cell.text:
                if cell.text not in notes:
                    notes.append(cell.text)
                word = cell.text.split(":", 1)[0]
                cell = replace(cell, text="%s [%d]" % (
                    word, notes.index(cell.text) + 1))
            short.append(cell)
        short_rows.append(short)
    return short_rows, note_lines(notes)


def numbered_tables(block):
    """The block's (index, table) pairs with the reason cells of all its
    tables numbered together (:func:`numbered`), and the note lines, for
    under its last table: a reason its tables share is listed once."""
    notes = []
    tables = [(index, replace(table, rows=numbered(table.rows, notes)[0]))
              for index, table in block.tables]
    return tables, note_lines(notes)


def note_lines(notes):
    """``[1] n/a: <reason>``, ... of numbered reasons."""
    return ["[%d] %s" % (i + 1, text) for i, text in enumerate(notes)]
