"""Report side (Python >= 3.9): the GIL family's declared tables, raw and
CPU tables, RST/Markdown output and the ``report`` command, from synthetic
format-2 result files with known values, so every expected cell is exact."""
import json
import re
import sys

import pytest
from helpers import gil, gil_tables, plain, values_with_rsd, write_result

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

from gilbench.report.data import loader
from gilbench.report.numbers import cells
from gilbench.report.pages import render  # noqa: E402
from gilbench.report.tables import pivot
from gilbench.report.tables.listings import cpu_table, raw_table  # noqa: E402

pytest.importorskip("docutils")
pytest.importorskip("jinja2")

SLOWDOWN, FACTOR = gil_tables()
ODD_REASON = "failed: exit code 1 (boom *x* |y| `z` a_b_ [1]_ :ref:`q` \\)"
HUNG = "hung: killed after 600 s"
NOT_BUILT = "n/a: gilbench.extensions._gil_cffi not built (No module named x)"
NOT_RUN = cells.NOT_RUN

PY27 = [  # b_py27.json: sorts after a_py39.json by name, before by version
    (gil("trivial", "gil", "cython", 1), [0.892e-3, 0.892e-3]),
    (gil("trivial", "nogil", "cython", 1), [1.39e-3, 1.39e-3]),
    (gil("trivial", "nogil", "cffi", 1), [2.0e-3, 2.0e-3]),
    (gil("trivial", "gil", "python", 1), [0.5e-3]),
    (gil("trivial", "gil", "cython", 2), [1.0e-3, 1.0e-3]),
    (gil("trivial", "nogil", "cython", 2), [2.5e-3, 2.5e-3]),
    (gil("lock", "gil", "cython", 1), [3.0e-3, 3.0e-3]),
    (gil("lock", "gil", "cython", 2), [4.0e-3, 4.0e-3]),
]
PY27_MISSING = [(gil("trivial", "nogil", "cffi", 2), ODD_REASON)]

PY39 = [
    (gil("trivial", "gil", "cython", 1), [10e-9, 10e-9]),
    (gil("trivial", "nogil", "cython", 1), [25.2e-9, 25.2e-9]),
    (gil("trivial", "gil", "cython", 2), [20e-9]),
    (gil("trivial", "gil", "cython", 4), [40e-9, 40e-9]),
    (gil("trivial", "nogil", "cython", 4), [120e-9, 120e-9]),
    (gil("lock", "gil", "cython", 1), [35.9e-9, 35.9e-9]),
]
PY39_MISSING = [(gil("trivial", "nogil", "cffi", 1), NOT_BUILT),
                (gil("trivial", "nogil", "cffi", 2), NOT_BUILT),
                (gil("trivial", "nogil", "cython", 2), HUNG)]


@pytest.fixture
def result_dir(tmp_path):
    directory = tmp_path / "results"
    write_result(directory, "b_py27.json", "2.7.18", PY27,
                 missing=PY27_MISSING, cpu_utilisation=1.5)
    write_result(directory, "a_py39.json", "3.9.18", PY39,
                 missing=PY39_MISSING)
    (directory / "notes.txt").write_text("not a result file")
    return directory


@pytest.fixture
def results(result_dir):
    return loader.load_results([str(result_dir)])


def texts(table):
    """Header and rows as displayed strings (text and flags)."""
    return ([c.display for c in table.header],
            [[plain(c.display) for c in row] for row in table.rows])


def body(table):
    return texts(table)[1]


def tables_of(results, declaration):
    found = pivot.declarations(results)
    _, axes = found["gil"]
    return pivot.declared_tables(results, "gil", declaration, axes)


def table_by_title(tables, title):
    found = [t for t in tables if t.title == title]
    assert len(found) == 1, [t.title for t in tables]
    return found[0]


def cell_map(table):
    """{(row label, column header): displayed cell}."""
    header, rows = texts(table)
    return {(row[0], h): cell for row in rows
            for h, cell in zip(header[1:], row[1:])}


# -- ratio tables ----------------------------------------------------------

def test_slowdown_tables_one_per_numerator_group(results):
    tables = tables_of(results, SLOWDOWN)
    # case=trivial is every table's: stated once (common), not in titles.
    assert [t.title for t in tables] == [
        "nogil/gil slowdown: backend=cython",
        "nogil/gil slowdown: backend=cffi"]
    assert [t.common for t in tables] == [{"case": "trivial",
                                           "family": "gil"}] * 2
    for table in tables:
        assert texts(table)[0] == ["Threads", "CPython 2.7", "CPython 3.9"]
        assert all(len(row) == len(table.header) for row in table.rows)


def test_slowdown_cython_rows_are_thread_counts(results):
    table = tables_of(results, SLOWDOWN)[0]
    assert body(table) == [
        ["1", "1.56 (1.39ms/892us)", "2.52 (25.2ns/10.0ns)"],
        ["2", "2.50 (2.50ms/1.00ms)", HUNG],
        ["4", NOT_RUN, "3.00 (120ns/40.0ns) ^"],
    ]
    assert table.note.startswith("variant=nogil divided by variant=gil. ")


def test_slowdown_cffi_divided_by_cython_gil_fallback(results):
    table = tables_of(results, SLOWDOWN)[1]
    # 2.0ms / 0.892ms = 2.242: the cffi row over the GIL-held Cython row.
    assert body(table) == [
        ["1", "2.24 (2.00ms/892us)", NOT_BUILT],
        ["2", ODD_REASON, NOT_BUILT],
    ]
    assert table.note.startswith(
        "variant=nogil divided by variant=gil (or, where there is no such "
        "twin, with backend=cython): " + SLOWDOWN["note"] + ". [low-high]")
    assert table.rows[0][1].fallback and table.rows[0][1].value == \
        pytest.approx(2.0 / 0.892)


def test_cells_are_structured(results):
    cell = tables_of(results, SLOWDOWN)[0].rows[2][2]  # 4 threads, 3.9
    assert (plain(cell.text), cell.flags, cell.missing) == (
        "3.00 (120ns/40.0ns)", "^", False)
    assert cell.value == pytest.approx(3.0) and cell.spread == 0
    hung = tables_of(results, SLOWDOWN)[0].rows[1][2]
    assert hung.missing and hung.value is None and hung.text == HUNG
    table = tables_of(results, SLOWDOWN)[0]
    assert (table.row_dim, table.column_dim) == ("threads", "interpreter")
    assert table.row_values == [1, 2, 4]
    assert table.per == {"case": "trivial", "backend": "cython",
                         "family": "gil"}


def test_missing_denominator_shows_its_reason(tmp_path):
    write_result(tmp_path, "py311.json", "3.11.7",
                 [(gil("trivial", "nogil", "cython", 1), [2e-6, 2e-6]),
                  (gil("trivial", "nogil", "cffi", 1), [3e-6, 3e-6])],
                 missing=[(gil("trivial", "gil", "cython", 1),
                           "failed: exit code 3")])
    results = loader.load_results([str(tmp_path)])
    tables = tables_of(results, SLOWDOWN)
    assert [body(t) for t in tables] == [[["1", "failed: exit code 3"]],
                                         [["1", "failed: exit code 3"]]]


@pytest.mark.parametrize("fallback_measured", [True, False])
def test_fallback_when_the_exact_twin_has_no_value(tmp_path,
                                                   fallback_measured):
    """As before format 2: a measured fallback twin stands in for an exact
    twin without a value; if neither has one, the exact twin's reason."""
    fallback = gil("trivial", "gil", "cython", 1)
    write_result(tmp_path, "py311.json", "3.11.7",
                 [(gil("trivial", "nogil", "cffi", 1), [3e-6, 3e-6])]
                 + ([(fallback, [1e-6, 1e-6])] if fallback_measured else []),
                 missing=[(gil("trivial", "gil", "cffi", 1),
                           "failed: exit code 4")]
                 + ([] if fallback_measured else [(fallback, "n/a: x")]))
    results = loader.load_results([str(tmp_path)])
    (table,) = tables_of(results, SLOWDOWN)
    if fallback_measured:
        assert body(table) == [["1", "3.00 (3.00us/1.00us)"]]
        assert "backend=cython" in table.note
    else:
        assert body(table) == [["1", "failed: exit code 4"]]
        assert table.note.startswith("variant=nogil divided by variant=gil. "
                                     "[low-high]: its 95% confidence")


def test_lock_trivial_factor_table(results):
    (table,) = tables_of(results, FACTOR)
    assert table.title == "lock/trivial factor"  # its only table
    assert table.common == {"variant": "gil", "backend": "cython",
                            "family": "gil"}
    assert table.note.startswith("case=lock divided by case=trivial. ")
    assert body(table) == [
        ["1", "3.36 (3.00ms/892us)", "3.59 (35.9ns/10.0ns)"],
        ["2", "4.00 (4.00ms/1.00ms)", "n/a: no case=lock benchmark"],
    ]


def test_all_tables_order(results):
    titles = [t.title for t in pivot.all_tables(results)]
    assert titles == [
        "nogil/gil slowdown: backend=cython",
        "nogil/gil slowdown: backend=cffi",
        "lock/trivial factor",
        "Raw results: mean +- std dev",
        "CPU utilisation over the timed region",
        "Runs",
        "How each interpreter was built"]


def full_gil_family(directory, python_version, **kwargs):
    """Every benchmark cases/gil.py registers, threads 1..5, values that
    grow with the thread count."""
    benchmarks = []
    for case in ("trivial", "lock"):
        for variant, backend in (("gil", "cython"), ("nogil", "cython"),
                                 ("nogil", "cffi"), ("gil", "python")):
            for threads in range(1, 6):
                mean = 1e-8 * threads * (2 if variant == "nogil" else 1)
                benchmarks.append((gil(case, variant, backend, threads),
                                   [mean, mean]))
    return write_result(directory, "py%s.json" % python_version,
                        python_version, benchmarks, **kwargs)


def test_gil_family_renders_its_declared_tables(tmp_path):
    full_gil_family(tmp_path, "3.11.7")
    full_gil_family(tmp_path, "3.13.1", extra={"py_gil_disabled_build": 1,
                                               "python_gil": "disabled"})
    results = loader.load_results([str(tmp_path)])
    titles = [t.title for t in pivot.all_tables(results)]
    assert titles[:8] == [
        "nogil/gil slowdown: case=trivial, backend=cython",
        "nogil/gil slowdown: case=trivial, backend=cffi",
        "nogil/gil slowdown: case=lock, backend=cython",
        "nogil/gil slowdown: case=lock, backend=cffi",
        "lock/trivial factor: variant=gil, backend=cython",
        "lock/trivial factor: variant=nogil, backend=cython",
        "lock/trivial factor: variant=nogil, backend=cffi",
        "lock/trivial factor: variant=gil, backend=python"]
    cffi = table_by_title(pivot.all_tables(results),
                          "nogil/gil slowdown: case=lock, backend=cffi")
    assert texts(cffi)[0] == ["Threads", "CPython 3.11", "CPython 3.13t"]
    assert [row[0] for row in body(cffi)] == ["1", "2", "3", "4", "5"]
    assert body(cffi)[2][1] == "2.00 (60.0ns/30.0ns) ^"
    text = render.render(results, "rst")
    assert render.rst_problems(text) == ""
    assert "2.00 (20.0ns/10.0ns)" in map(plain, doctree_cell_texts(text))


def test_declared_tables_match_cases_gil():
    """The tables tested here are the first ones cases/gil.py declares
    (its scaling tables follow; tests/unit/test_scaling.py covers those)."""
    from gilbench.cases import gil as gil_cases
    declared = gil_cases.TABLES[:len(gil_tables())]
    assert json.loads(json.dumps(declared)) == json.loads(
        json.dumps(gil_tables()))


# -- flags -------------------------------------------------------------------

def flagged_cells(tmp_path, gil_rsd, nogil_rsd, threads=1, cpus=2):
    write_result(tmp_path, "py311.json", "3.11.7",
                 [(gil("trivial", "gil", "cython", threads),
                   values_with_rsd(1e-6, gil_rsd)),
                  (gil("trivial", "nogil", "cython", threads),
                   values_with_rsd(2e-6, nogil_rsd))],
                 cpus_usable=cpus)
    results = loader.load_results([str(tmp_path)])
    ratio = body(tables_of(results, SLOWDOWN)[0])[0][1]
    raw = cell_map(raw_table(results))[
        ("gil.trivial.gil.cython/t%d" % threads, "CPython 3.11")]
    return ratio, raw


def marks(text):
    """The marks after a cell's words, but the undecided ? (two values of
    one process each: Student's t at 1 degree of freedom decides little)."""
    last = text.rsplit(" ", 1)[-1]
    return "" if last.endswith(")") else last.replace("?", "")


@pytest.mark.parametrize("gil_rsd, nogil_rsd", [(0.06, 0.0), (0.0, 0.06),
                                                (0.2, 0.3)])
def test_noisy_flag_above_five_percent(tmp_path, gil_rsd, nogil_rsd):
    ratio, raw = flagged_cells(tmp_path, gil_rsd, nogil_rsd)
    assert marks(ratio) == "~"
    assert raw.endswith(" ~") == (gil_rsd > 0.05)


@pytest.mark.parametrize("gil_rsd, nogil_rsd", [(0.0, 0.0), (0.04, 0.049),
                                                (0.049, 0.01)])
def test_no_noisy_flag_below_five_percent(tmp_path, gil_rsd, nogil_rsd):
    ratio, raw = flagged_cells(tmp_path, gil_rsd, nogil_rsd)
    assert ratio.startswith("2.00 (2.00us/1.00us)") and marks(ratio) == ""
    assert "~" not in raw


def test_raw_cell_with_noise(tmp_path):
    _, raw = flagged_cells(tmp_path, 0.06, 0.0)
    assert raw == "1.00us +- 60.0ns ~"


@pytest.mark.parametrize("threads, cpus, marked", [(3, 2, True),
                                                   (2, 2, False),
                                                   (4, 8, False),
                                                   (2, 1, True)])
def test_oversubscribed_flag(tmp_path, threads, cpus, marked):
    ratio, raw = flagged_cells(tmp_path, 0.0, 0.0, threads, cpus)
    assert ratio.endswith(" ^") == marked
    assert raw.endswith(" ^") == marked
    assert ratio.startswith("2.00 (2.00us/1.00us)")


def test_oversubscribed_reads_concurrency_not_threads(tmp_path):
    """A processes case with 1 thread but 4 processes is oversubscribed."""
    write_result(tmp_path, "py311.json", "3.11.7",
                 [(gil("trivial", "gil", "cython", 1), [1e-6, 1e-6],
                   {"concurrency": 4})], cpus_usable=2)
    results = loader.load_results([str(tmp_path)])
    assert cell_map(raw_table(results))[
        ("gil.trivial.gil.cython/t1", "CPython 3.11")].endswith(" ^")


def test_noisy_and_oversubscribed_together(tmp_path):
    ratio, raw = flagged_cells(tmp_path, 0.1, 0.0, threads=3, cpus=2)
    assert ratio.startswith("2.00 (2.00us/1.00us)") and marks(ratio) == "~^"
    assert raw.endswith(" ~^")


def test_legend_describes_both_marks():
    assert cells.NOISY_MARK in cells.LEGEND and "5%" in cells.LEGEND
    assert cells.OVERSUBSCRIBED_MARK in cells.LEGEND


# -- raw and CPU tables ------------------------------------------------------

def _names(pairs):
    return {"gil.%s.%s.%s/t%d" % (d["case"], d["variant"], d["backend"],
                                  d["threads"]) for d, _ in pairs}


def test_raw_table_has_every_benchmark(results):
    table = raw_table(results)
    header, rows = texts(table)
    names = [row[0] for row in rows]
    expected = (_names(PY27) | _names(PY27_MISSING) | _names(PY39)
                | _names(PY39_MISSING))
    assert sorted(names) == sorted(expected)
    assert len(names) == len(set(names))
    assert header == ["Benchmark", "CPython 2.7", "CPython 3.9"]
    by_cell = cell_map(table)
    assert by_cell[("gil.trivial.gil.cython/t1", "CPython 2.7")] == \
        "892us +- 0.00ns"
    assert by_cell[("gil.trivial.gil.cython/t1", "CPython 3.9")] == \
        "10.0ns +- 0.00ns"
    assert by_cell[("gil.trivial.gil.python/t1", "CPython 3.9")] == NOT_RUN
    assert by_cell[("gil.trivial.nogil.cffi/t2", "CPython 2.7")] == \
        ODD_REASON
    assert by_cell[("gil.trivial.nogil.cython/t2", "CPython 3.9")] == HUNG
    assert by_cell[("gil.trivial.nogil.cython/t4", "CPython 3.9")] == \
        "120ns +- 0.00ns ^"


def test_raw_table_rows_are_names_as_written(tmp_path):
    """Names are display identities: any shape, never split."""
    write_result(tmp_path, "py311.json", "3.11.7",
                 [(gil("trivial", "gil", "cython", 1), [1e-6],
                   {"name": "gil: whatever [a=b] / x.y"})],
                 missing=[{"name": "no dots at all", "reason": "n/a: why",
                           "metadata": {"family": "gil", "case": "lock",
                                        "variant": "gil",
                                        "backend": "cython",
                                        "threads": 1,
                                        "gilbench_axes": json.dumps(
                                            [{"name": "threads"}])}}])
    table = raw_table(loader.load_results([str(tmp_path)]))
    header, rows = texts(table)
    assert rows == [["gil: whatever [a=b] / x.y", "1.00us +- 0.00ns"]]
    # n/a in every file: a name in its reasons' line, not a row of n/a.
    assert table.left_out == ["n/a in every file (1): no dots at all -- "
                              "n/a: why"]


def test_cpu_table(results):
    by_cell = cell_map(cpu_table(results))
    assert by_cell[("gil.trivial.gil.cython/t1", "CPython 2.7")] == "150%"
    assert by_cell[("gil.trivial.gil.cython/t1", "CPython 3.9")] == \
        "n/a: not recorded"
    assert by_cell[("gil.trivial.nogil.cffi/t1", "CPython 3.9")] == NOT_BUILT


# -- rendering ----------------------------------------------------------------

def _findall(tree, node_class):
    finder = getattr(tree, "findall", None) or tree.traverse  # docutils<0.18
    return list(finder(node_class))


def doctree_texts(text, node_type):
    import docutils.core
    import docutils.nodes
    tree = docutils.core.publish_doctree(
        text, settings_overrides={"report_level": 5})
    return [node.astext() for node in _findall(
        tree, getattr(docutils.nodes, node_type))]


def doctree_cell_texts(text):
    return doctree_texts(text, "entry")


def test_rst_renders_without_docutils_warnings(results):
    text = render.render(results, "rst")
    assert render.rst_problems(text) == ""
    assert "1.56 (1.39ms/892us)" in plain(text)
    assert "2.24 (2.00ms/892us)" in plain(text)


def test_rst_cells_read_back_as_the_original_text(results):
    text = render.render(results, "rst")
    cell_texts = doctree_cell_texts(text)
    # Reasons are numbered notes under their table, as RST line blocks.
    notes = doctree_texts(text, "line")
    assert any(line.endswith("] " + ODD_REASON) for line in notes)
    assert any(line.endswith("] " + HUNG) for line in notes)
    assert any(re.match(r"failed \[\d\]$", c) for c in cell_texts)
    assert any(re.match(r"hung \[\d\]$", c) for c in cell_texts)
    assert "1.56 (1.39ms/892us)" in map(plain, cell_texts)
    assert "gil.trivial.nogil.cython/t1" in cell_texts
    assert "CPython 2.7" in cell_texts and "CPython 3.9" in cell_texts


def md_tables(text):
    """Lists of rows (cells split on unescaped pipes) of each pipe table."""
    tables, current = [], None
    for line in text.splitlines():
        if line.startswith("|") and line.endswith("|"):
            cells_ = [c.strip() for c in
                      re.split(r"(?<!\\)\|", line[1:-1])]
            if current is None:
                current = []
                tables.append(current)
            current.append(cells_)
        else:
            current = None
    return tables


def test_markdown_has_pipe_tables(results):
    text = render.render(results, "md")
    assert text.startswith("# gilbench results")
    assert "## nogil/gil slowdown\n" in text
    assert "### nogil/gil slowdown: backend=cython\n" in text
    assert "Fixed for these 2 tables: case=trivial." in text
    tables = md_tables(text)
    assert len(tables) == len(pivot.all_tables(results))
    first = tables[0]
    assert first[0] == ["Threads", "CPython 2.7", "CPython 3.9"]
    assert first[1] == ["---", "---", "---"]
    assert [plain(c) for c in first[2]] == [
        "1", "1.56 (1.39ms/892us)", "2.52 (25.2ns/10.0ns)"]
    for table in tables:
        assert all(len(row) == len(table[0]) for row in table), table


def test_markdown_escapes_pipes_and_emphasis_in_reasons(results):
    text = render.render(results, "md")
    assert "boom \\*x\\* \\|y\\|" in text
    assert all(len(row) == 3 for row in md_tables(text)[1])


def test_render_unknown_format_fails(results):
    with pytest.raises(KeyError):
        render.render(results, "pdf")


# -- command line -------------------------------------------------------------

@pytest.mark.e2e
def test_cli_report_rst_file(harness, result_dir, tmp_path):
    out = tmp_path / "out.rst"
    result = harness("report", result_dir, "-o", out)
    assert result.code == 0, result
    assert result.stdout.strip() == "wrote %s" % out
    text = out.read_text(encoding="utf-8")
    assert text.startswith("================\ngilbench results")
    assert render.rst_problems(text) == ""
    assert "1.56 (1.39ms/892us)" in plain(text)
    assert not list(tmp_path.glob("*.partial"))


@pytest.mark.e2e
def test_cli_report_replaces_existing_output(harness, result_dir, tmp_path):
    out = tmp_path / "out.rst"
    out.write_text("old report")
    assert harness("report", result_dir, "-o", out).code == 0
    assert "gilbench results" in out.read_text(encoding="utf-8")


@pytest.mark.e2e
def test_cli_report_md_from_suffix(harness, result_dir, tmp_path):
    out = tmp_path / "out.md"
    result = harness("report", result_dir, "-o", out)
    assert result.code == 0, result
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# gilbench results")
    assert "| Threads | CPython 2.7 | CPython 3.9 |" in text


@pytest.mark.e2e
def test_cli_report_to_stdout_and_format_option(harness, result_dir):
    rst = harness("report", result_dir)
    assert rst.code == 0, rst
    assert rst.stdout.startswith("================\ngilbench results")
    md = harness("report", "--format", "md", result_dir)
    assert md.code == 0, md
    assert md.stdout.startswith("# gilbench results")


@pytest.mark.e2e
def test_cli_report_explicit_files(harness, result_dir):
    result = harness("report", result_dir / "a_py39.json")
    assert result.code == 0, result
    assert "CPython 3.9" in result.stdout
    assert "CPython 2.7" not in result.stdout
