"""Report side (Python >= 3.9): synthetic pyperf result files with known
values, so every expected cell is exact."""
import json
import re
import sys

import pytest

from cases.gil import RATIOS
from helpers import gil_benchmark, values_with_rsd, write_result

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

from harness.report import cells, loader, pivot, render  # noqa: E402

pytest.importorskip("docutils")
pytest.importorskip("jinja2")

SLOWDOWN, FACTOR = RATIOS  # "nogil/gil slowdown", "lock/trivial factor"
ODD_REASON = "failed: exit code 1 (boom *x* |y| `z` a_b_ [1]_ :ref:`q` \\)"
HUNG = "hung: killed after 600 s"
NOT_BUILT = "n/a: extensions._gil_cffi not built (No module named x)"

PY27 = {  # b_py27.json: sorts after a_py39.json by name, before by version
    "gil.trivial.gil.cython/t1": [0.892e-3, 0.892e-3],
    "gil.trivial.nogil.cython/t1": [1.39e-3, 1.39e-3],
    "gil.trivial.nogil.cffi/t1": [2.0e-3, 2.0e-3],
    "gil.trivial.gil.python/t1": [0.5e-3],
    "gil.trivial.gil.cython/t2": [1.0e-3, 1.0e-3],
    "gil.trivial.nogil.cython/t2": [2.5e-3, 2.5e-3],
    "gil.lock.gil.cython/t1": [3.0e-3, 3.0e-3],
    "gil.lock.gil.cython/t2": [4.0e-3, 4.0e-3],
}
PY27_MISSING = {"gil.trivial.nogil.cffi/t2": ODD_REASON}

PY39 = {
    "gil.trivial.gil.cython/t1": [10e-9, 10e-9],
    "gil.trivial.nogil.cython/t1": [25.2e-9, 25.2e-9],
    "gil.trivial.gil.cython/t2": [20e-9],
    "gil.trivial.gil.cython/t4": [40e-9, 40e-9],
    "gil.trivial.nogil.cython/t4": [120e-9, 120e-9],
    "gil.lock.gil.cython/t1": [35.9e-9, 35.9e-9],
}
PY39_MISSING = {"gil.trivial.nogil.cffi/t1": NOT_BUILT,
                "gil.trivial.nogil.cffi/t2": NOT_BUILT,
                "gil.trivial.nogil.cython/t2": HUNG}


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


def table_by_title(tables, title):
    found = [t for t in tables if t.title == title]
    assert len(found) == 1, [t.title for t in tables]
    return found[0]


def cell_map(table):
    """{(row label, column header): cell}."""
    return {(row[0], header): cell for row in table.rows
            for header, cell in zip(table.header[1:], row[1:])}


# -- loading ----------------------------------------------------------------

def test_results_are_in_interpreter_version_order(results):
    assert [r.interpreter for r in results] == ["CPython 2.7", "CPython 3.9"]
    assert results[0].path.endswith("b_py27.json")
    assert results[0].missing == PY27_MISSING
    assert results[0].ratios == {"gil": RATIOS}
    assert len(results[1].measurements) == len(PY39)


def test_interpreter_order_and_labels(tmp_path):
    versions = [("f1.json", "3.13.1", "cpython", {"python_gil": "disabled"}),
                ("f2.json", "3.10.4", "cpython", {}),
                ("f3.json", "3.9.18", "pypy", {}),
                ("f4.json", "3.13.1", "cpython", {}),
                ("f5.json", "2.7.18", "cpython", {}),
                ("f6.json", "3.9.18", "cpython", {})]
    for filename, version, impl, extra in versions:
        write_result(tmp_path, filename, version, implementation=impl,
                     extra=extra)
    labels = [r.interpreter for r in loader.load_results([str(tmp_path)])]
    assert labels == ["CPython 2.7", "CPython 3.9", "PyPy 3.9",
                      "CPython 3.10", "CPython 3.13", "CPython 3.13t"]


def test_same_interpreter_twice_is_told_apart_by_file_name(tmp_path):
    first = write_result(tmp_path / "x", "laptop.json", "3.9.1")
    second = write_result(tmp_path / "y", "server.json", "3.9.2")
    labels = sorted(r.interpreter for r in
                    loader.load_results([str(first), str(second)]))
    assert labels == ["CPython 3.9 (laptop)", "CPython 3.9 (server)"]


def test_measurement_fields(results):
    (m,) = [m for m in results[0].measurements
            if m.name == "gil.trivial.nogil.cython/t1"]
    assert m.dims == {"family": "gil", "case": "trivial", "variant": "nogil",
                      "backend": "cython"}
    assert m.threads == 1
    assert m.mean == pytest.approx(1.39e-3)
    assert m.stdev == 0
    assert m.cpus_usable == 2
    assert m.cpu_utilisation == pytest.approx(1.5)
    (single,) = [m for m in results[0].measurements
                 if m.name == "gil.trivial.gil.python/t1"]
    assert single.stdev == 0.0 and single.rsd == 0.0


def test_parse_name():
    assert pivot.parse_name("gil.lock.nogil.cffi/t12") == (
        {"family": "gil", "case": "lock", "variant": "nogil",
         "backend": "cffi"}, 12)
    assert pivot.parse_name("gil.lock.nogil/t1") == (None, None)
    assert pivot.parse_name("gil.lock.nogil.cffi") == (None, None)
    assert pivot.parse_name("gil.lock.nogil.cffi/tx") == (None, None)


# -- ratio tables ----------------------------------------------------------

def test_slowdown_tables_one_per_numerator_group(results):
    tables = pivot.ratio_tables(results, "gil", SLOWDOWN)
    assert [t.title for t in tables] == [
        "nogil/gil slowdown: case=trivial, backend=cython",
        "nogil/gil slowdown: case=trivial, backend=cffi"]
    for table in tables:
        assert table.header == ["Threads", "CPython 2.7", "CPython 3.9"]
        assert all(len(row) == len(table.header) for row in table.rows)


def test_slowdown_cython_rows_are_thread_counts(results):
    table = pivot.ratio_tables(results, "gil", SLOWDOWN)[0]
    assert table.rows == [
        ["1", "1.56 (1.39ms/892us)", "2.52 (25.2ns/10.0ns)"],
        ["2", "2.50 (2.50ms/1.00ms)", HUNG],
        ["4", pivot.NOT_RUN, "3.00 (120ns/40.0ns) ^"],
    ]
    assert table.note == "variant=nogil divided by variant=gil."


def test_slowdown_cffi_divided_by_cython_gil_fallback(results):
    table = pivot.ratio_tables(results, "gil", SLOWDOWN)[1]
    # 2.0ms / 0.892ms = 2.242: the cffi row over the GIL-held Cython row.
    assert table.rows == [
        ["1", "2.24 (2.00ms/892us)", NOT_BUILT],
        ["2", ODD_REASON, NOT_BUILT],
    ]
    assert "backend=cython" in table.note
    assert SLOWDOWN["note"] in table.note


def test_missing_denominator_shows_its_reason(tmp_path):
    write_result(tmp_path, "py311.json", "3.11.7",
                 {"gil.trivial.nogil.cython/t1": [2e-6, 2e-6],
                  "gil.trivial.nogil.cffi/t1": [3e-6, 3e-6]},
                 missing={"gil.trivial.gil.cython/t1": "failed: exit code 3"})
    results = loader.load_results([str(tmp_path)])
    tables = pivot.ratio_tables(results, "gil", SLOWDOWN)
    assert [t.rows for t in tables] == [[["1", "failed: exit code 3"]],
                                        [["1", "failed: exit code 3"]]]


def test_lock_trivial_factor_table(results):
    (table,) = pivot.ratio_tables(results, "gil", FACTOR)
    assert table.title == "lock/trivial factor: variant=gil, backend=cython"
    assert table.note == "case=lock divided by case=trivial."
    assert table.rows == [
        ["1", "3.36 (3.00ms/892us)", "3.59 (35.9ns/10.0ns)"],
        ["2", "4.00 (4.00ms/1.00ms)", pivot.NOT_RUN],
    ]


def test_all_tables_order(results):
    titles = [t.title for t in pivot.all_tables(results)]
    assert titles == [
        "nogil/gil slowdown: case=trivial, backend=cython",
        "nogil/gil slowdown: case=trivial, backend=cffi",
        "lock/trivial factor: variant=gil, backend=cython",
        "Raw results: mean +- std dev",
        "CPU utilisation over the timed region",
        "Runs"]


# -- flags -------------------------------------------------------------------

def flagged_cells(tmp_path, gil_rsd, nogil_rsd, threads=1, cpus=2):
    name = "gil.trivial.%s.cython/t" + str(threads)
    write_result(tmp_path, "py311.json", "3.11.7",
                 {name % "gil": values_with_rsd(1e-6, gil_rsd),
                  name % "nogil": values_with_rsd(2e-6, nogil_rsd)},
                 cpus_usable=cpus)
    results = loader.load_results([str(tmp_path)])
    ratio = pivot.ratio_tables(results, "gil", SLOWDOWN)[0].rows[0][1]
    raw = cell_map(pivot.raw_table(results))[(name % "gil",
                                             "CPython 3.11")]
    return ratio, raw


@pytest.mark.parametrize("gil_rsd, nogil_rsd", [(0.06, 0.0), (0.0, 0.06),
                                                (0.2, 0.3)])
def test_noisy_flag_above_five_percent(tmp_path, gil_rsd, nogil_rsd):
    ratio, raw = flagged_cells(tmp_path, gil_rsd, nogil_rsd)
    assert ratio == "2.00 (2.00us/1.00us) ~"
    assert raw.endswith(" ~") == (gil_rsd > 0.05)


@pytest.mark.parametrize("gil_rsd, nogil_rsd", [(0.0, 0.0), (0.04, 0.049),
                                                (0.049, 0.01)])
def test_no_noisy_flag_below_five_percent(tmp_path, gil_rsd, nogil_rsd):
    ratio, raw = flagged_cells(tmp_path, gil_rsd, nogil_rsd)
    assert ratio == "2.00 (2.00us/1.00us)"
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


def test_noisy_and_oversubscribed_together(tmp_path):
    ratio, raw = flagged_cells(tmp_path, 0.1, 0.0, threads=3, cpus=2)
    assert ratio == "2.00 (2.00us/1.00us) ~^"
    assert raw.endswith(" ~^")


def test_legend_describes_both_marks():
    assert cells.NOISY_MARK in cells.LEGEND and "5%" in cells.LEGEND
    assert cells.OVERSUBSCRIBED_MARK in cells.LEGEND


# -- raw and CPU tables ------------------------------------------------------

def test_raw_table_has_every_benchmark(results):
    table = pivot.raw_table(results)
    names = [row[0] for row in table.rows]
    expected = set(PY27) | set(PY27_MISSING) | set(PY39) | set(PY39_MISSING)
    assert sorted(names) == sorted(expected)
    assert len(names) == len(set(names))
    assert table.header == ["Benchmark", "CPython 2.7", "CPython 3.9"]
    by_cell = cell_map(table)
    assert by_cell[("gil.trivial.gil.cython/t1", "CPython 2.7")] == \
        "892us +- 0.00ns"
    assert by_cell[("gil.trivial.gil.cython/t1", "CPython 3.9")] == \
        "10.0ns +- 0.00ns"
    assert by_cell[("gil.trivial.gil.python/t1", "CPython 3.9")] == \
        pivot.NOT_RUN
    assert by_cell[("gil.trivial.nogil.cffi/t2", "CPython 2.7")] == \
        ODD_REASON
    assert by_cell[("gil.trivial.nogil.cython/t2", "CPython 3.9")] == HUNG
    assert by_cell[("gil.trivial.nogil.cython/t4", "CPython 3.9")] == \
        "120ns +- 0.00ns ^"


def test_cpu_table(results):
    by_cell = cell_map(pivot.cpu_table(results))
    assert by_cell[("gil.trivial.gil.cython/t1", "CPython 2.7")] == "150%"
    assert by_cell[("gil.trivial.gil.cython/t1", "CPython 3.9")] == \
        "n/a: not recorded"
    assert by_cell[("gil.trivial.nogil.cffi/t1", "CPython 3.9")] == NOT_BUILT


# -- cell wording ------------------------------------------------------------

@pytest.mark.parametrize("seconds, text", [
    (1.39e-3, "1.39ms"), (0.892e-3, "892us"), (1.0, "1.00s"),
    (2.5, "2.50s"), (12.34, "12.3s"), (123.4, "123s"), (1234.5, "1234s"),
    (1e-3, "1.00ms"), (10e-3, "10.0ms"), (100e-3, "100ms"),
    (1e-6, "1.00us"), (999e-9, "999ns"), (25.2e-9, "25.2ns"),
    (1e-9, "1.00ns"), (0.0, "0.00ns"), (69.8e-9, "69.8ns"),
])
def test_format_seconds(seconds, text):
    assert cells.format_seconds(seconds) == text


@pytest.mark.parametrize("seconds, text", [
    (100e-9, "100ns"), (9.996e-3, "10.0ms"), (0.0009996, "1.00ms"),
    (99.96e-9, "100ns"), (999.6e-9, "1.00us"), (99.996, "100s"),
])
def test_format_seconds_rounding_carries_into_the_next_digit_or_unit(
        seconds, text):
    """BUG: harness/report/cells.py format_seconds (lines 16-20) picks the
    unit and the number of decimals before rounding, so values just under
    a power of ten print four significant digits or the wrong unit
    (0.0009996 s -> "1000us", 9.996e-3 s -> "10.00ms").  Even exactly
    100e-9 s prints "100.0ns", since 100e-9 / 1e-9 == 99.99999999999999."""
    assert cells.format_seconds(seconds) == text


def test_ratio_cell_wording():
    m = loader.Measurement("n", {}, 1, 69.8e-9, 0.0, 2, None)
    d = loader.Measurement("n", {}, 1, 25.2e-9, 0.0, 2, None)
    assert cells.ratio_cell(m, d, None) == "2.77 (69.8ns/25.2ns)"
    assert cells.ratio_cell(None, d, "n/a: why") == "n/a: why"
    assert cells.ratio_cell(m, None, "failed: x") == "failed: x"


# -- rendering -----------------------------------------------------------------

def _findall(tree, node_class):
    finder = getattr(tree, "findall", None) or tree.traverse  # docutils<0.18
    return list(finder(node_class))


def doctree_cell_texts(text):
    import docutils.core
    import docutils.nodes
    tree = docutils.core.publish_doctree(
        text, settings_overrides={"report_level": 5})
    return [entry.astext() for entry in _findall(tree, docutils.nodes.entry)]


def test_rst_renders_without_docutils_warnings(results):
    text = render.render(results, "rst")
    assert render.rst_problems(text) == ""
    assert "1.56 (1.39ms/892us)" in text
    assert "2.24 (2.00ms/892us)" in text


def test_rst_problems_detects_bad_rst():
    broken = "Title\n===\n\n+---+\n| a |\n+--+\n"
    assert render.rst_problems(broken) != ""


def test_rst_cells_read_back_as_the_original_text(results):
    texts = doctree_cell_texts(render.render(results, "rst"))
    assert ODD_REASON in texts
    assert HUNG in texts
    assert "1.56 (1.39ms/892us)" in texts
    assert "gil.trivial.nogil.cython/t1" in texts
    assert "CPython 2.7" in texts and "CPython 3.9" in texts


UNDERSCORE_RATIOS = [{"title": "fast_path/slow_path *speed*", "over": "variant",
                      "numerator": "fast_path", "denominator": "slow_path",
                      "fallback": {}, "note": ""}]
ODD_REASONS = [
    "n/a: needs `libfoo` | *bar* | _baz_",
    "failed: exit code 1 (ValueError: a|b|c **bold** ``lit`` x_ __y__)",
    "failed: killed by SIGSEGV (C:\\temp\\ trailing \\)",
    "hung: killed after 1e+03 s :math:`x` .. note:: |sub| [#]_",
    "failed: exit code 2 (<http://example.com/a_b> `link <x_>`_)",
    "failed: exit code 1 (caf\u00e9 \u2013 na\u00efve)",
]


@pytest.fixture
def odd_results(tmp_path):
    names = ["my_fam.under_score.fast_path.py_thon/t1",
             "my_fam.under_score.slow_path.py_thon/t1"]
    missing = {"my_fam.under_score.fast_path.py_thon/t%d" % (i + 2): reason
               for i, reason in enumerate(ODD_REASONS)}
    missing["my_fam.under_score.slow_path.py_thon/t2"] = "n/a: `x`_"
    write_result(tmp_path / "odd", "odd_py3_12.json", "3.12.1",
                 {names[0]: [3e-6, 3e-6], names[1]: [1e-6, 1e-6]},
                 missing=missing, ratios=UNDERSCORE_RATIOS)
    return loader.load_results([str(tmp_path / "odd")])


def test_rst_with_underscores_and_odd_reasons_is_valid(odd_results):
    text = render.render(odd_results, "rst")
    assert render.rst_problems(text) == ""
    texts = doctree_cell_texts(text)
    for reason in ODD_REASONS:
        assert reason in texts
    assert "my_fam.under_score.fast_path.py_thon/t1" in texts
    assert "3.00 (3.00us/1.00us)" in texts


def test_rst_title_with_markup_characters_is_literal(odd_results):
    import docutils.core
    import docutils.nodes
    tree = docutils.core.publish_doctree(
        render.render(odd_results, "rst"),
        settings_overrides={"report_level": 5})
    titles = [t.astext() for t in _findall(tree, docutils.nodes.title)]
    assert ("fast_path/slow_path *speed*: case=under_score, "
            "backend=py_thon") in titles


def test_rst_reason_with_a_tab_is_valid(tmp_path):
    """BUG: harness/report/render.py rst_text escapes markup but not tabs.
    A failure reason is the child's last stderr line (run._last_line) and
    may contain a tab; str.ljust counts it as one column while docutils
    expands it to the next multiple of 8, so the grid table is malformed
    and `python -m harness report` dies with RuntimeError."""
    write_result(tmp_path, "py311.json", "3.11.7",
                 missing={"gil.trivial.nogil.cffi/t1":
                          "failed: exit code 1 (error:\tbad thing)"})
    results = loader.load_results([str(tmp_path)])
    assert render.rst_problems(render.render(results, "rst")) == ""


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
    assert "## nogil/gil slowdown: case=trivial, backend=cython" in text
    tables = md_tables(text)
    assert len(tables) == len(pivot.all_tables(results))
    first = tables[0]
    assert first[0] == ["Threads", "CPython 2.7", "CPython 3.9"]
    assert first[1] == ["---", "---", "---"]
    assert first[2] == ["1", "1.56 (1.39ms/892us)", "2.52 (25.2ns/10.0ns)"]
    for table in tables:
        assert all(len(row) == len(table[0]) for row in table), table


def test_markdown_escapes_pipes_and_emphasis_in_reasons(results):
    text = render.render(results, "md")
    assert "boom \\*x\\* \\|y\\|" in text
    assert all(len(row) == 3 for row in md_tables(text)[1])


def test_render_unknown_format_fails(results):
    with pytest.raises(KeyError):
        render.render(results, "html")


# -- command line --------------------------------------------------------------

def test_cli_report_rst_file(harness, result_dir, tmp_path):
    out = tmp_path / "out.rst"
    result = harness("report", result_dir, "-o", out)
    assert result.code == 0, result
    assert result.stdout.strip() == "wrote %s" % out
    text = out.read_text(encoding="utf-8")
    assert text.startswith("================\ngilbench results")
    assert render.rst_problems(text) == ""
    assert "1.56 (1.39ms/892us)" in text
    assert not (tmp_path / "out.rst.partial").exists()


def test_cli_report_replaces_existing_output(harness, result_dir, tmp_path):
    out = tmp_path / "out.rst"
    out.write_text("old report")
    assert harness("report", result_dir, "-o", out).code == 0
    assert "gilbench results" in out.read_text(encoding="utf-8")


def test_cli_report_md_from_suffix(harness, result_dir, tmp_path):
    out = tmp_path / "out.md"
    result = harness("report", result_dir, "-o", out)
    assert result.code == 0, result
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# gilbench results")
    assert "| Threads | CPython 2.7 | CPython 3.9 |" in text


def test_cli_report_to_stdout_and_format_option(harness, result_dir):
    rst = harness("report", result_dir)
    assert rst.code == 0, rst
    assert rst.stdout.startswith("================\ngilbench results")
    md = harness("report", "--format", "md", result_dir)
    assert md.code == 0, md
    assert md.stdout.startswith("# gilbench results")


def test_cli_report_explicit_files(harness, result_dir):
    result = harness("report", result_dir / "a_py39.json")
    assert result.code == 0, result
    assert "CPython 3.9" in result.stdout
    assert "CPython 2.7" not in result.stdout


def test_result_json_metadata_is_what_harness_writes():
    """The synthetic files carry the keys harness.registry puts there."""
    from harness import registry
    (bench,) = registry.select(registry.load(["cases.gil"], [1]),
                               ["gil.trivial.gil.cython"])
    synthetic = gil_benchmark(bench.name, [1e-6], "3.11.7").get_metadata()
    for key in ("family", "case", "variant", "backend", "threads"):
        assert synthetic[key] == bench.metadata()[key]
    assert json.loads(synthetic["gilbench_ratios"]) == json.loads(
        bench.metadata()["gilbench_ratios"])
