"""The findings as one compact matrix (gilbench.report.pages.textlayout,
gilbench.report.pages.html): a row per question across twelve to sixteen
interpreters within 120 characters in RST and Markdown, the intervals
and notes in one block per question, marks every answer shares beside
the question, a best-of's winners as letters; on the HTML page each
answer alone with its whole wording as a tip."""
import re
import sys

import pytest

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

from test_report_render import _findall, doctree, md_tables  # noqa: E402

from gilbench.report.data.records import Cell  # noqa: E402
from gilbench.report.pages import html, render  # noqa: E402
from gilbench.report.tables import questions  # noqa: E402
from gilbench.report.tables.questions import (  # noqa: E402
    Finding,
    FindingsTable,
)

SIXTEEN = ["CPython 2.7", "CPython 3.8", "CPython 3.9", "PyPy 3.9",
           "CPython 3.10", "CPython 3.11", "PyPy 3.11", "CPython 3.12",
           "CPython 3.13", "CPython 3.13t", "CPython 3.13t (GIL on)",
           "CPython 3.14", "CPython 3.14t", "CPython 3.14t (GIL on)",
           "CPython 3.15", "CPython 3.15t"]
WINNERS = ("process-fork", "process-spawn", "thread")


def ratio(index, flags="~", note=""):
    value = 1.5 + 0.37 * index
    return Cell("%.2fx [%.2f-%.2f]" % (value, value * 0.8, value * 1.2),
                value, flags=flags, interval=(value * 0.8, value * 1.2),
                significant=True, note=note, brief="%.2fx" % value)


def best(index):
    winner = WINNERS[index % 3]
    return Cell("%s, 1.%02dx ahead [0.85-2.60]" % (winner, index), None,
                flags="?^", interval=(0.85, 2.6), significant=False,
                winner=winner, brief=winner)


def reason(index):
    if index % 2:
        return Cell("n/a: not a free-threaded build", missing=True)
    return ratio(index, flags="")


def matrix(labels):
    """A FindingsTable of ``labels``: a ratio per column (one with a
    refined note, one busy), a best-of whose every answer is
    oversubscribed, one with reasons in half the columns, one too noisy
    to tell in one column."""
    count = len(labels)
    rows = [
        Finding("gil", "A ratio at 2 threads?", {"cell": {"kind": "ratio"}},
                [ratio(i, flags="~!" if i == 3 else "~",
                       note="(up to 6 processes)" if i == 1 else "")
                 for i in range(count)]),
        Finding("executor", "Fastest method, 4 workers?",
                {"cell": {"kind": "best"}}, [best(i) for i in range(count)]),
        Finding("builds", "What does the free-threaded build cost?",
                {"cell": {"kind": "ratio"}},
                [reason(i) for i in range(count)]),
        Finding("pyops", "Worst scaler?", {"cell": {"kind": "best"}},
                [Cell("too noisy to tell [0.1-5.0]", flags="?#",
                      interval=(0.1, 5.0), significant=False,
                      brief="noisy") if i == 0 else best(i)
                 for i in range(count)]),
    ]
    return FindingsTable(list(labels), rows)


def findings_text(found, fmt, width=render.WIDTH):
    return render.render_tables([], fmt, "t", [], found=found, width=width)


def rst_tables(text):
    """Each RST table's rows, as lists of entry texts."""
    import docutils.nodes
    return [[[entry.astext() for entry in _findall(row, docutils.nodes.entry)]
             for row in _findall(table, docutils.nodes.row)]
            for table in _findall(doctree(text), docutils.nodes.table)]


def joined(text):
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("fmt", ["rst", "md"])
def test_twelve_interpreters_one_row_per_question_within_120(fmt):
    found = matrix(SIXTEEN[:12])
    text = findings_text(found, fmt)
    assert max(len(line) for line in text.splitlines()) <= render.WIDTH
    if fmt == "rst":
        assert render.rst_problems(text) == ""
        tables = rst_tables(text)
    else:
        tables = [[cell for cell in rows] for rows in md_tables(text)]
        tables = [[rows[0]] + rows[2:] for rows in tables]  # no delimiter
    # One matrix: a header of the 12 short names and a row per question.
    (rows,) = tables
    assert rows[0] == ["Q", "2.7", "3.8", "3.9", "PyPy3.9", "3.10", "3.11",
                       "PyPy3.11", "3.12", "3.13", "3.13t", "3.13t+G",
                       "3.14"]
    assert [row[0] for row in rows[1:]] == ["Q1", "Q2?^", "Q3", "Q4?"]
    ratios, winners, reasons, noisy = rows[1:]
    # Each answer alone: no interval in the matrix; its note a +, its
    # marks but ~ (the interval carries noise).
    assert ratios[1:4] == ["1.50x", "1.87x+", "2.24x"]
    assert ratios[4] == "2.61x!"
    assert all("[" not in cell and "~" not in cell for cell in ratios)
    # Every answer oversubscribed and undecided: ^ and ? go beside the
    # question.
    assert winners[1:4] == ["A", "B", "C"]
    assert reasons[2] == "n/a [1]" and reasons[1] == "1.50x"
    assert noisy[1] == "noisy#" and noisy[2] == "A^"
    page = joined(text)
    escaped = render.rst_text if fmt == "rst" else render.md_text
    # The winners' key is on the question's line.
    assert escaped("Q2 (executor): Fastest method, 4 workers? -- "
                   "A: process-fork, B: process-spawn, C: thread") in page
    # Every answer's whole wording is in its question's block, named by
    # its column; reasons are numbered under the matrix instead.
    for number, finding in enumerate(found.rows, 1):
        block = re.search(r"Q%d: (.*?)(?= - Q\d+:| Not answered|$)"
                          % number, page.split("by question:")[1]).group(1)
        for short, cell in zip(found.short_headers, finding.answers):
            said = escaped("%s %s" % (short, cell.display))
            assert (said in block) != cell.missing, (said, block)
    assert escaped("[1] n/a: not a free-threaded build") in page


@pytest.mark.parametrize("fmt", ["rst", "md"])
def test_sixteen_interpreters_stay_within_120(fmt):
    text = findings_text(matrix(SIXTEEN), fmt)
    assert max(len(line) for line in text.splitlines()) <= render.WIDTH
    if fmt == "rst":
        assert render.rst_problems(text) == ""
    # Every column is in a matrix, once.
    headers = [cell for rows in (rst_tables(text) if fmt == "rst"
                                 else md_tables(text))
               for cell in rows[0][1:]]
    assert sorted(headers) == sorted(matrix(SIXTEEN).short_headers)


def test_full_width_keeps_one_table_of_whole_answers():
    found = matrix(SIXTEEN[:12])
    text = findings_text(found, "rst", width=0)
    (rows,) = rst_tables(text)
    assert rows[0][:3] == ["Family", "Question", "CPython 2.7"]
    assert rows[1][2] == found.rows[0].answers[0].display
    assert "by question" not in text


def test_page_answer_is_compact_with_its_wording_as_tip():
    found = matrix(SIXTEEN)
    table = html.findings_table(found, [])
    answers = [row for what, row in table.rows if what == "finding"]
    first = answers[0][2]  # the refined ratio of CPython 3.8
    assert (first.text, first.note, first.tip) == (
        "1.87x", "(up to 6 processes)",
        "1.87x [1.50-2.24] (up to 6 processes) ~")
    # A best-of's winner by its letter, named under the question; its
    # whole wording in the tip.
    winner = answers[1][1]
    assert winner.text == "A"
    assert answers[1][0].key.startswith("A: process-fork")
    assert winner.tip.startswith("process-fork, 1.00x ahead [0.85-2.60]")
    missing = answers[2][2]
    assert (missing.text, missing.css, missing.tip) == (
        "n/a [1]", "na", "n/a: not a free-threaded build")
    page = render.render_tables([], "html", "t", [], found=found)
    matrix_html = page.split('<table class="findings"')[1].split(
        "</table>")[0]
    assert matrix_html.count('tabindex="0"') == 4 * 16
    assert matrix_html.count('<span class="tip" role="tooltip">') == 4 * 16
    # Its marks but ~ (in the tip), and none every answer of the question
    # carries: those go beside the question, once.
    assert '<span class="a">1.87x<b>+</b></span>' in matrix_html
    question = answers[1][0]
    assert question.flags == [("?", "ns"), ("^", "")]
    assert [cell.flags for cell in answers[1][1:]] == [[]] * 16


def test_page_keys_the_marks_in_one_line_linked_to_the_legend():
    found = matrix(SIXTEEN)
    page = render.render_tables([], "html", "t", [], found=found)
    key = page.split('<p class="key">')[1].split("</p>")[0]
    assert "<b>=</b> the same within the margin" in key
    assert '<a href="#about">' in key and "reading.html" not in key
    assert 'id="about"' in page
    # The paragraph that stood between the title and the answers is in
    # the legend it links to.
    findings = page.split('<section id="findings">')[1].split(
        '<div class="matrix">')[0]
    assert questions.INTRO[:40] not in findings
    linked = render.render_tables([], "html", "t", [], found=found,
                                  docs_url="https://example.org/docs")
    key = linked.split('<p class="key">')[1].split("</p>")[0]
    assert '<a href="https://example.org/docs/reading.html">' in key
    assert ('<a href="https://example.org/docs/glossary.html">every mark '
            'and term</a>') in key


@pytest.mark.parametrize("docs_url, said", [
    (None, "Every mark and term: docs/glossary.rst in gilbench's manual."),
    ("https://example.org/docs/",
     "Every mark and term: https://example.org/docs/glossary.html."),
])
@pytest.mark.parametrize("fmt", ["rst", "md"])
def test_the_text_pages_name_the_glossary_under_their_legend(fmt, docs_url,
                                                             said):
    page = render.render_tables([], fmt, "t", [], found=matrix(SIXTEEN),
                                docs_url=docs_url, width=0)
    assert said in page
