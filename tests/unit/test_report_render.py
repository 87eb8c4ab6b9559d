"""Report side (Python >= 3.9): RST and Markdown escaping of names,
titles, notes and reasons full of markup characters."""
import re
import sys

import pytest
from helpers import dims, plain, write_matrix, write_result

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

from gilbench.model.tables import crossover, ratio, table, value  # noqa: E402
from gilbench.report.data import loader
from gilbench.report.numbers import cells
from gilbench.report.pages import render  # noqa: E402

pytest.importorskip("docutils")
pytest.importorskip("jinja2")

UNDERSCORE_TABLES = [table(
    "fast_path/slow_path *speed*", rows="threads", per=["case", "backend"],
    cell=ratio(over="variant", numerator="fast_path",
               denominator="slow_path"),
    note="a |note| with `markup` and under_scores_")]
ODD_REASONS = [
    "n/a: needs `libfoo` | *bar* | _baz_",
    "failed: exit code 1 (ValueError: a|b|c **bold** ``lit`` x_ __y__)",
    "failed: killed by SIGSEGV (C:\\temp\\ trailing \\)",
    "hung: killed after 1e+03 s :math:`x` .. note:: |sub| [#]_",
    "failed: exit code 2 (<http://example.com/a_b> `link <x_>`_)",
    "failed: exit code 1 (caf\u00e9 \u2013 na\u00efve)",
]


def odd(variant, threads):
    return dims("my_fam", "under_score", variant, "py_thon", threads=threads)


@pytest.fixture
def odd_results(tmp_path):
    missing = [(odd("fast_path", i + 2), reason)
               for i, reason in enumerate(ODD_REASONS)]
    missing.append((odd("slow_path", 2), "n/a: `x`_"))
    write_result(tmp_path / "odd", "odd_py3_12.json", "3.12.1",
                 [(odd("fast_path", 1), [3e-6, 3e-6]),
                  (odd("slow_path", 1), [1e-6, 1e-6])],
                 missing=missing, tables=UNDERSCORE_TABLES, cpus_usable=8)
    return loader.load_results([str(tmp_path / "odd")])


def _findall(tree, node_class):
    finder = getattr(tree, "findall", None) or tree.traverse  # docutils<0.18
    return list(finder(node_class))


def doctree(text):
    import docutils.core
    return docutils.core.publish_doctree(
        text, settings_overrides={"report_level": 5})


def doctree_texts(text, node_name):
    import docutils.nodes
    return [node.astext() for node in
            _findall(doctree(text), getattr(docutils.nodes, node_name))]


def test_rst_with_underscores_and_odd_reasons_is_valid(odd_results):
    text = render.render(odd_results, "rst")
    assert render.rst_problems(text) == ""
    entries = doctree_texts(text, "entry")
    notes = doctree_texts(text, "line")  # reasons: numbered, under tables
    for reason in ODD_REASONS:
        assert any(note.endswith("] " + reason) for note in notes)
    assert "my_fam.under_score.fast_path.py_thon/t1" in entries
    assert "3.00 (3.00us/1.00us)" in map(plain, entries)


def test_rst_title_and_note_with_markup_characters_are_literal(odd_results):
    text = render.render(odd_results, "rst")
    assert "fast_path/slow_path *speed*" in doctree_texts(text, "title")
    assert ("Fixed for this table: case=under_score, backend=py_thon."
            in doctree_texts(text, "paragraph"))
    assert any(p.startswith("variant=fast_path divided by variant="
                            "slow_path. a |note| with `markup` and "
                            "under_scores_")
               for p in doctree_texts(text, "paragraph"))


def test_rst_problems_detects_bad_rst():
    broken = "Title\n===\n\n+---+\n| a |\n+--+\n"
    assert render.rst_problems(broken) != ""


def long_rst(sections):
    """A page shaped as the report's: an overlined title, then sections
    (``-``) of subsections (``~``) holding simple tables."""
    from gilbench.report.pages import rstcheck
    lines = ["=====", "Title", "=====", ""]
    for k in range(sections):
        lines += ["Section %d" % k, "-" * 12, "", "Part %d" % k, "~" * 8, ""]
        for _ in range(rstcheck.SPLIT_FROM // sections // 6):
            lines += ["=== ====", "a   b", "=== ====", "1   2", "=== ====",
                      ""]
    return "\n".join(lines) + "\n"


def test_a_long_page_is_checked_in_two_parts_as_the_whole_is():
    from gilbench.report.pages import rstcheck
    text = long_rst(20)
    assert text.count("\n") >= rstcheck.SPLIT_FROM
    first, second = rstcheck.split(text)
    assert first + second == text
    # Cut before a section title, near the middle.
    assert re.match(r"Section \d+\n-{12}\n", second)
    assert abs(len(first) - len(second)) < len(text) / 10
    assert render.rst_problems(text) == ""
    # A problem in either part is found at the line the whole would give.
    lines = text.split("\n")
    for at in (len(lines) // 4, 3 * len(lines) // 4):
        broken = "\n".join(lines[:at] + ["", "+---+", "| a |", "+--+", ""]
                           + lines[at:])
        found = render.rst_problems(broken)
        assert "Malformed table" in found
        assert found == rstcheck._problems(broken)


def test_a_page_without_sections_is_checked_whole():
    from gilbench.report.pages import rstcheck
    text = "Title\n=====\n\n" + "a paragraph\n\n" * 2000
    assert rstcheck.split(text) == [text]
    # The first section style only: subsections are never cut before.
    one = long_rst(1)
    assert rstcheck.split(one) == [one]


def test_rst_reason_with_a_tab_is_valid(tmp_path):
    """A failure reason is the child's last stderr line and may contain a
    tab; str.ljust counts it as one column while docutils expands it."""
    write_result(tmp_path, "py311.json", "3.11.7",
                 missing=[(dims("gil", "trivial", "nogil", "cffi", threads=1),
                           "failed: exit code 1 (error:\tbad thing)")])
    results = loader.load_results([str(tmp_path)])
    assert render.rst_problems(render.render(results, "rst")) == ""


def md_rows(text):
    return [[c.strip() for c in re.split(r"(?<!\\)\|", line[1:-1])]
            for line in text.splitlines()
            if line.startswith("|") and line.endswith("|")]


def md_tables(text):
    """The rows of each Markdown table (a run of table lines)."""
    tables, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|") and line.endswith("|"):
            current.append(line)
        elif current:
            tables.append(md_rows("\n".join(current)))
            current = []
    return tables


def test_markdown_escapes_cells_titles_and_notes(odd_results):
    text = render.render(odd_results, "md")
    assert "## fast\\_path/slow\\_path \\*speed\\*\n" in text
    assert ("Fixed for this table: case=under\\_score, backend=py\\_thon."
            in text)
    assert "a \\|note\\| with \\`markup\\` and under\\_scores\\_" in text
    assert "n/a: needs \\`libfoo\\` \\| \\*bar\\* \\| \\_baz\\_" in text
    # Every row keeps its table's column count: no cell's pipe split it.
    for rows in md_tables(text):
        assert all(len(row) == len(rows[0]) for row in rows), rows


def test_markdown_escapes_the_noisy_flag(tmp_path):
    """GFM reads a single ~ as strikethrough."""
    write_result(tmp_path, "py311.json", "3.11.7",
                 [(dims("gil", "trivial", "gil", "cython", threads=1),
                   [0.9e-6, 1.1e-6])])
    text = render.render(loader.load_results([str(tmp_path)]), "md")
    assert "| gil.trivial.gil.cython/t1 | 1.00us +- 141ns \\~ |" in text


def test_crossover_note_renders_in_both_formats(tmp_path):
    decl = table("break-even", rows="threads", cell=crossover(
        along="work_ns", over="variant", numerator="nogil",
        denominator="gil", unit="ns"))
    benchmarks = []
    for work_ns, r in ((10, 2.0), (1000, 0.5)):
        for variant, mean in (("gil", 1e-6), ("nogil", r * 1e-6)):
            benchmarks.append((dims("lk", "c", variant, "cython", threads=1,
                                    work_ns=work_ns), [mean, mean]))
    write_result(tmp_path, "py311.json", "3.11.7", benchmarks,
                 tables=[decl])
    results = loader.load_results([str(tmp_path)])
    rst = render.render(results, "rst")
    assert render.rst_problems(rst) == ""
    assert "215 ns" in map(plain, doctree_texts(rst, "entry"))
    assert "| 1 | 215 ns |" in plain(render.render(results, "md"))
    assert cells.NOT_RUN not in rst


# -- layout: a table without a value is one line; shared values once -------

EXCLUDED = "n/a: big sizes are measured with one thread only (budget)"
SIZES = [{"name": "threads", "unit": "threads", "log": False},
         {"name": "size", "unit": "", "log": False}]
SIZE_TABLES = [table("time by size", rows="threads", per=["size"],
                     cell=value())]


def sized(size, threads):
    return dims("syn", "c", "v", "b", threads=threads, size=size)


def write_sized(directory):
    """Three tables of one declaration: size=small measured, size=big all
    excluded (one line), size=odd n/a and failed (drawn: a failure is a
    problem to look at); case, variant and backend are every table's."""
    return write_result(
        directory, "py311.json", "3.11.7",
        [(sized("small", 1), [1e-6, 1e-6]), (sized("small", 2), [2e-6, 2e-6])],
        missing=[(sized("big", 1), EXCLUDED), (sized("big", 2), EXCLUDED),
                 (sized("odd", 1), EXCLUDED),
                 (sized("odd", 2), "failed: exit code 1")],
        axes=SIZES, tables=SIZE_TABLES, cpus_usable=8)


@pytest.fixture
def sized_results(tmp_path):
    write_sized(tmp_path / "sized")
    return loader.load_results([str(tmp_path / "sized")])


BIG_LINE = "time by size: size=big -- " + EXCLUDED
FIXED = "Fixed for these 3 tables: case=c, variant=v, backend=b."


def test_model_titles_name_only_what_differs(sized_results):
    from gilbench.report.tables import layout, pivot
    tables = pivot.all_tables(sized_results)[:-4]
    assert [t.title for t in tables] == [
        "time by size: size=small", "time by size: size=big",
        "time by size: size=odd"]
    assert [layout.not_applicable(t) for t in tables] == [[], [EXCLUDED],
                                                          []]
    (block,) = layout.blocks(tables)
    assert [o.line for o in block.omitted] == [BIG_LINE]
    assert [t.title for _, t in block.tables] == [
        "time by size: size=small", "time by size: size=odd"]


def test_rst_all_na_table_is_one_line(sized_results):
    text = render.render(sized_results, "rst")
    assert render.rst_problems(text) == ""
    titles = doctree_texts(text, "title")
    assert "time by size" in titles
    assert "time by size: size=small" in titles
    assert "time by size: size=odd" in titles  # failed: drawn
    assert "time by size: size=big" not in titles
    assert BIG_LINE in doctree_texts(text, "list_item")
    # Its grid is not drawn: the reason is a note of size=odd's table, and
    # the raw and CPU listings name the three benchmarks n/a in every file
    # (two of size=big, one of size=odd) in one line each, not as rows.
    notes = doctree_texts(text, "line")
    assert sum(note.endswith("] " + EXCLUDED) for note in notes) == 1
    left_out = [n for n in map(" ".join, map(str.split, notes))
                if n.startswith("n/a in every file (3): ")
                and n.endswith(" -- " + EXCLUDED)]
    assert len(left_out) == 2, notes
    assert EXCLUDED not in doctree_texts(text, "entry")
    paragraphs = doctree_texts(text, "paragraph")
    assert paragraphs.count(FIXED) == 1
    assert not any("case=c" in t for t in titles)


def test_markdown_all_na_table_is_one_line(sized_results):
    text = render.render(sized_results, "md")
    md = render.md_text
    assert "- " + md(BIG_LINE) + "\n" in text
    assert "### " + md("time by size: size=odd") + "\n" in text
    assert md("time by size: size=big") + "\n" not in text
    assert text.count("] " + md(EXCLUDED) + "\n") == 1  # as RST
    assert text.count("- n/a in every file (3): ") == 2
    assert "| " + md(EXCLUDED) + " |" not in text
    assert text.count(md("case=c")) == 1 and md(FIXED) in text


@pytest.mark.parametrize("fmt", ["rst", "md"])
def test_text_reports_paste_no_line_wider_than_120(tmp_path, fmt):
    """Eight interpreters' tables split into column groups, paragraphs
    folded, long benchmark names numbered above their table; --width 0
    keeps the full width."""
    write_matrix(tmp_path)
    results = loader.load_results([str(tmp_path)])
    text = render.render(results, fmt)
    assert max(len(line) for line in text.splitlines()) <= render.WIDTH
    full = render.render(results, fmt, width=0)
    assert max(len(line) for line in full.splitlines()) > render.WIDTH
    if fmt == "rst":
        assert render.rst_problems(text) == ""
    if fmt == "md":  # nothing is lost by the split: every table's cell
        assert data_cells(text) == data_cells(full)


def data_cells(page):
    """Every Markdown table's cells but headers and row labels, sorted;
    not the findings' (a compact matrix at a width, whole answers in one
    table at full width: tests/unit/test_findings_matrix.py)."""
    return sorted(cell for rows in md_tables(page) for row in rows[2:]
                  if rows[0][0] not in ("Q", "Family")
                  for cell in row[1:])


def test_a_blocks_tables_list_each_reason_once_in_simple_tables(tmp_path):
    """A reason the tables of one declaration share is one numbered note
    under the last of them, not one per table; RST draws every labelled
    table as a simple table (a line a row), so no grid lines at all."""
    from gilbench.report.tables import layout, pivot
    write_matrix(tmp_path)
    results = loader.load_results([str(tmp_path)])
    reason = ("n/a: gilbench.extensions._gil_cffi not built (No module "
              "named cffi)")
    blocks = [block for block in layout.blocks(pivot.all_tables(results))
              if any(cell.text == reason for _, table in block.tables
                     for row in table.rows for cell in row)]
    tables = sum(len(block.tables) for block in blocks)
    assert tables > len(blocks)  # shared: more tables than blocks
    text = render.render(results, "rst")
    assert render.rst_problems(text) == ""
    notes = [" ".join(n.split()) for n in doctree_texts(text, "line")]
    assert sum(note.endswith("] " + reason) for note in notes) == \
        len(blocks)
    assert not [line for line in text.splitlines()
                if line.startswith("+-")]
    # Every n/a cell still names its note by number.
    assert re.search(r"\bn/a \[\d+\]", text)


def test_several_pages_from_one_reading_are_each_page_alone(odd_results,
                                                              tmp_path):
    """``report -o a.rst -o a.md -o a.html``: the tables and findings are
    made once, and each page is the one its format renders alone."""
    formats = ["html", "rst", "md", "json"]
    pages = render.render_pages(odd_results, formats)
    assert sorted(pages) == sorted(formats)
    for fmt in formats:
        assert pages[fmt] == render.render(odd_results, fmt), fmt
