"""Report side (Python >= 3.9): the HTML page -- self-contained, plots of
the declared tables, shaded ratios, several hosts, and hostile input that
must stay text."""
import html.parser
import os
import re
import sys
import time

import pytest
from helpers import (
    assert_one_line_usage_error,
    dims,
    gil,
    run_harness,
    write_matrix,
    write_result,
)

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

pytest.importorskip("jinja2")
pytest.importorskip("matplotlib")

from gilbench.model.tables import ratio, table  # noqa: E402
from gilbench.report.data import loader
from gilbench.report.pages import (
    plots,
    render,  # noqa: E402
)
from gilbench.report.tables import pivot, questions

NETWORK = re.compile(r"(?i)\b(?:https?|wss?|ftp):|(?<![\w/])//[\w.-]")
ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "h4",
    "p",
    "div", "span", "nav", "ul", "li", "a", "section", "details", "summary",
    "table", "colgroup", "col", "thead",
    "tbody", "tr", "th", "td", "b", "figure", "ol",
    # matplotlib's SVG
    "svg", "defs", "g", "path", "use", "text", "clippath", "rect", "tspan",
}


class Tags(html.parser.HTMLParser):
    """Every start tag with its attributes."""

    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def tags_of(text):
    parser = Tags()
    parser.feed(text)
    return parser.tags


def network_references(text):
    """URLs in src/href attributes or CSS url(): none may point away."""
    found = []
    for tag, attrs in tags_of(text):
        for name, value in attrs.items():
            if name in ("src", "href", "xlink:href", "action", "poster") \
                    and value and NETWORK.search(value):
                found.append((tag, name, value))
    for url in re.findall(r"url\(([^)]*)\)", text):
        if NETWORK.search(url):
            found.append(("css", "url", url))
    return found


@pytest.fixture(scope="module")
def matrix_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("matrix")
    write_matrix(directory, host="bench-1")
    return directory


@pytest.fixture(scope="module")
def matrix_page(matrix_dir):
    results = loader.load_results([str(matrix_dir)])
    return results, render.render(results, "html")


def test_page_is_self_contained(matrix_page):
    _, page = matrix_page
    assert page.startswith("<!DOCTYPE html>\n")
    assert "Content-Security-Policy" in page
    assert "default-src 'none'" in page
    assert network_references(page) == []
    assert {tag for tag, _ in tags_of(page)} <= ALLOWED_TAGS
    assert "<script" not in page.lower()
    assert "@font-face" not in page and "<link" not in page


def declarations_of(tables):
    """The declared tables grouped by declaration, in page order."""
    groups = []
    for shown in tables:
        if shown.declaration is None:
            continue
        if groups and groups[-1][0].declaration is shown.declaration:
            groups[-1].append(shown)
        else:
            groups.append([shown])
    return groups


def test_one_figure_per_declaration_a_facet_per_table(matrix_page):
    results, page = matrix_page
    groups = declarations_of(pivot.all_tables(results))
    expected = [(sum(len(f.series) for f in plots.facets(group)),
                 len(plots.facets(group)))
                for group in groups if plots.facets(group)]
    drawn = [(int(n), int(f)) for n, f in re.findall(
        r'data-series="(\d+)" data-style="\w+" data-facets="(\d+)"', page)]
    assert drawn == expected and len(drawn) == len(groups)
    # The GIL family's slowdown: one line per interpreter of the matrix in
    # each of its facets (trivial/lock x cython/cffi).
    assert drawn[0][1] == 4 and drawn[0][0] >= 8
    svgs = re.findall(r"<svg.*?</svg>", page, re.S)
    assert len(svgs) == len(drawn)
    for svg, (count, facets) in zip(svgs, drawn):
        series = set(re.findall(r'id="d\d+-plot-f(\d+)-series-(\d+)', svg))
        assert len(series) == count
        assert len({facet for facet, _ in series}) == facets


def test_lines_bars_log_axis_and_ideal_line(matrix_page):
    _, page = matrix_page
    styles = re.findall(r'data-style="(\w+)"', page)
    assert "lines" in styles and "bars" in styles
    assert "ideal (x threads/1)" in page  # the speedup over threads
    assert "1 (break-even)" in page  # a ratio's reference line
    assert "1 (no speedup)" in page  # a speedup over a categorical axis


def test_log_axis_is_drawn_log(matrix_dir):
    results = loader.load_results([str(matrix_dir)])
    work = [t for t in pivot.all_tables(results)
            if t.title.startswith("nogil/gil vs work")][0]
    assert work.axes["work_ns"]["log"]
    drawn = plots.figure([work], "w")
    # symlog because 0 is on the axis: 0, 100, 1000 and 10000 are spaced
    # by decades, not by value.
    labels = re.findall(r'<text style="font-size: 8px; text-anchor: '
                        r'middle" x="([\d.]+)" y="[\d.]+">(\d+)</text>',
                        drawn.svg)
    assert [text for _, text in labels] == ["0", "100", "1000", "10000"]
    ticks = [float(x) for x, _ in labels]
    gaps = [b - a for a, b in zip(ticks, ticks[1:])]
    assert max(gaps) / min(gaps) < 3


def test_a_figure_legend_lists_each_line_once_in_its_colour(matrix_dir):
    """The legend, laid out by plots._legend: every interpreter's line
    and the reference line, each label once in the order drawn, rows
    evenly spaced, each beside a short line in its colour (a dot in the
    middle of a series')."""
    results = loader.load_results([str(matrix_dir)])
    group = declarations_of(pivot.all_tables(results))[0]
    svg = plots.figure(group, "g").svg
    facets = plots.facets(group)
    series = []
    for facet in facets:
        series += [one.label for one in facet.series
                   if one.label not in series]
    rows = re.findall(r'<text style="font-size: 8px; text-anchor: start" '
                      r'x="([\d.]+)" y="([\d.]+)">([^<]*)</text>', svg)
    assert [label for _, _, label in rows] == series + ["1 (break-even)"]
    assert len({x for x, _, _ in rows}) == 1
    ys = [float(y) for _, y, _ in rows]
    gaps = [b - a for a, b in zip(ys, ys[1:])]
    assert min(gaps) > 0 and max(gaps) - min(gaps) < 0.2
    colours = plots._colours(facets)
    text_x = float(rows[0][0])
    handles = []
    # A handle: a short horizontal line, its ends absolute (H) or
    # relative (h), whichever svgtrim found shorter.
    for x0, handle_y, to_middle, middle, to_end, end, style in re.findall(
            r'<path d="M([\d.]+) ([\d.]+)([Hh])([\d.]+)([Hh])([\d.]+)" '
            r'style="([^"]*)"', svg):
        x0, middle, end = float(x0), float(middle), float(end)
        middle += x0 if to_middle == "h" else 0
        end += middle if to_end == "h" else 0
        if text_x - 30 < x0 < middle < end < text_x:
            handles.append((float(handle_y), style))
    assert len(handles) == len(rows)
    for (_, y, label), (handle_y, style) in zip(rows, handles):
        assert abs(float(y) - handle_y - 2.8) < 0.2
        if label in colours:
            red, green, blue = colours[label][:3]
            assert "stroke: #%02x%02x%02x" % (
                round(red * 255), round(green * 255), round(blue * 255)) \
                in style


@pytest.mark.parametrize("os2", [None, {}, {"version": 4}])
def test_the_legend_lays_out_a_font_without_typographic_metrics(
        monkeypatch, os2):
    """A font whose OS/2 table is missing or lacks sTypoAscender (as the
    matplotlib a free-threaded build installs gives) is laid out by its
    own ascender and descender."""
    from matplotlib import font_manager

    class Font:
        units_per_EM, ascender, descender = 2048, 1901, -483

        def get_sfnt_table(self, name):
            return os2

    monkeypatch.setattr(font_manager, "get_font", lambda *a, **k: Font())
    plots._line_extent.cache_clear()
    try:
        ascent, descent = plots._line_extent()
    finally:
        plots._line_extent.cache_clear()
    scale = plots.LEGEND_SIZE / 2048
    assert (ascent, descent) == pytest.approx((1901 * scale, 483 * scale))


def test_ratio_cells_are_shaded_with_a_legend(matrix_page):
    _, page = matrix_page
    assert re.search(r'<td class="r[-0-9]+">\d', page)
    for css in ("r-3", "r0", "r3"):
        assert 'class="swatch %s"' % css in page
    assert "shaded by their distance from 1" in page


def test_flags_reasons_runs_and_toc(matrix_page):
    _, page = matrix_page
    # A cell's marks share one element, but for "not significant"; cells
    # and rows end where HTML ends them (no end tags), a row's label is
    # its header cell.
    assert re.search(r'<td[^>]*>[^<]+ <b>~\^?</b>(<td|\n)', page)
    assert "</td>" not in page and "</tr>" not in page
    assert re.search(r'<tr><th>[^<]+<td', page)
    # Reasons are numbered notes under their table.
    assert re.search(r'<td class="na">n/a \[\d\](<td|\n)', page)
    assert re.search(r"<li>\[\d\] n/a: gilbench.extensions._gil_cffi not "
                     "built", page)
    assert '<nav class="toc"' in page
    for family in ("gil", "pool", "work"):
        assert re.search(r'<li><a href="#f-\d+">%s</a>' % family, page)
    assert "Synthetic CPU @ 3.0GHz x 8" in page
    assert "CPython 3.13t (GIL on)" in page
    assert '<th>pinned<th>' in page and '<th>load<th>' in page


def test_family_headings_link_to_the_manual_only_when_asked(matrix_dir,
                                                            matrix_page):
    """report --docs-url: a built-in family's heading links to its page
    of the manual; a family without one (pool, work) and a page made
    without the option link nowhere."""
    assert "families/gil.html" not in matrix_page
    from gilbench.report.pages import html as html_page
    results = loader.load_results([str(matrix_dir)])
    page = html_page.page(render.environment(), "t", [],
                          pivot.all_tables(results), plot_tables=False,
                          docs_url="docs/_build/html")
    assert ('<h2><a href="docs/_build/html/families/gil.html">gil</a></h2>'
            in page)
    assert "<h2>pool</h2>" in page and "<h2>work</h2>" in page


@pytest.mark.e2e
def test_report_command_writes_html_from_the_suffix(matrix_dir, tmp_path):
    out = tmp_path / "report.html"
    started = time.time()
    result = run_harness("report", matrix_dir, "-o", out)
    elapsed = time.time() - started
    assert result.code == 0, result
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    # 8 files, 31 tables, 28 plots: a modest page, rendered quickly.
    assert len(text.encode()) < 3_000_000
    assert elapsed < 60
    forced = run_harness("report", matrix_dir, "--format", "html")
    assert forced.stdout.startswith("<!DOCTYPE html>"), forced


def test_hosts_are_named_when_they_differ(tmp_path):
    write_matrix(tmp_path / "a", ["py312"], host="x86-box",
                 cpu_model="Intel Xeon", cpu_count=16)
    write_matrix(tmp_path / "b", ["py312"], host="arm-box",
                 cpu_model="Neoverse-N1", cpu_count=64)
    results = loader.load_results([str(tmp_path / "a"), str(tmp_path / "b")])
    labels = sorted(r.interpreter for r in results)
    assert labels == ["CPython 3.12 on arm-box", "CPython 3.12 on x86-box"]
    page = render.render(results, "html")
    assert "Neoverse-N1 x 64" in page and "Intel Xeon x 16" in page
    rst = render.render(results, "rst")
    assert render.rst_problems(rst) == ""
    assert "CPython 3.12 on arm-box" in rst


def test_one_host_keeps_plain_labels(matrix_dir):
    results = loader.load_results([str(matrix_dir)])
    assert not any(" on " in r.interpreter for r in results)


HOSTILE = "<script>alert('x')</script>\"q\"\x07\x1b"
HOSTILE_REASON = "failed: <img src=x onerror=alert(1)> & \"'\t\x00end"


def hostile_result(directory):
    decl = [table("<b>title</b> \"$x$\"", rows="kind",
                  cell=ratio(over="variant", numerator="nogil",
                             denominator="gil"),
                  note="<script>note()</script>")]
    axes = [{"name": "kind", "unit": "", "log": False}]
    benchmarks = []
    for kind in (HOSTILE, "$\\alpha$ <i>", "plain"):
        for variant, mean in (("gil", 1e-6), ("nogil", 2e-6)):
            d = dims("x<script>", "c'ase", variant, "cython", kind=kind)
            benchmarks.append((d, [mean, mean * 1.01], {
                "axes": axes, "tables": decl,
                "name": "bench<script>x()</script>%s%s" % (variant, kind)}))
    missing = [(dims("x<script>", "c'ase", "nogil", "cython",
                     kind="gone"), HOSTILE_REASON)]
    return write_result(directory, "hostile.json", "3.10.1", benchmarks,
                        missing=missing, axes=axes, tables=decl,
                        extra={"hostname": "<h1>host</h1>",
                               "cpu_model_name": "<script>cpu</script>"})


def test_a_table_declared_without_a_plot_gets_its_table_and_no_figure(
        tmp_path):
    slowdown = ratio(over="variant", numerator="nogil", denominator="gil")
    older = table("Plotted, written before plot", rows="kind",
                  cell=slowdown)
    del older["plot"]  # a file written before tables could say it
    decl = [older,
            table("A check", rows="kind", cell=slowdown, plot=False),
            table("Plotted", rows="kind", cell=slowdown)]
    axes = [{"name": "kind", "unit": "", "log": False}]
    benchmarks = [(dims("fam", "case", variant, "cython", kind=kind),
                   [mean, mean * 1.01],
                   {"axes": axes, "tables": decl,
                    "name": "fam.case.%s.cython[kind=%s]" % (variant, kind)})
                  for kind in ("a", "b")
                  for variant, mean in (("gil", 1e-6), ("nogil", 2e-6))]
    path = write_result(tmp_path, "plot.json", "3.12.1", benchmarks,
                        axes=axes, tables=decl)
    page = render.render(loader.load_results([str(path)]), "html")
    for title in ("Plotted, written before plot", "A check", "Plotted"):
        assert ">%s<" % title in page
    figures = re.findall(r'<svg.*?</svg>', page, re.S)
    assert len(figures) == 2
    # Numbered in page order: the check is the second block.
    gids = re.findall(r'id="(d\d+)-plot-f0"', page)
    assert gids == ["d1", "d3"]


def test_hostile_names_and_metadata_stay_text(tmp_path):
    path = hostile_result(tmp_path)
    page = render.render(loader.load_results([str(path)]), "html")
    tags = tags_of(page)
    assert {tag for tag, _ in tags} <= ALLOWED_TAGS
    assert not any(name.startswith("on") for _, attrs in tags
                   for name in attrs)
    assert "&lt;script&gt;" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "&lt;h1&gt;host&lt;/h1&gt;" in page
    assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", page)
    assert network_references(page) == []
    # The plot's legend and ticks keep names literal (no mathtext).
    assert plots._text("$\\alpha$") == "\\$\\alpha\\$"
    assert 'data-series="1"' in page


def test_hostile_names_in_rst_and_markdown(tmp_path):
    path = hostile_result(tmp_path)
    results = loader.load_results([str(path)])
    assert render.rst_problems(render.render(results, "rst")) == ""
    assert "\x07" not in render.render(results, "md")


@pytest.mark.e2e
def test_unwritable_output_is_one_line(matrix_dir):
    out = "/proc/gilbench-report.html"  # no file can be made, even as root
    result = run_harness("report", matrix_dir, "-o", out)
    assert_one_line_usage_error(result)
    assert "cannot write" in result.stderr
    assert not os.path.exists(out)


def test_output_in_a_read_only_directory(matrix_dir, tmp_path):
    import os
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only directories")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        result = run_harness("report", matrix_dir, "-o", locked / "r.html")
    finally:
        locked.chmod(0o700)
    assert_one_line_usage_error(result)


@pytest.mark.e2e
def test_empty_directory_is_one_line(tmp_path):
    (tmp_path / "empty").mkdir()
    result = run_harness("report", tmp_path / "empty", "-o",
                         tmp_path / "r.html")
    assert_one_line_usage_error(result)


@pytest.mark.e2e
def test_newer_format_and_foreign_pyperf_file(tmp_path):
    import pyperf
    newer = write_result(tmp_path / "n", "new.json", "3.12.1",
                         [(gil("trivial", "gil", "cython", 1), [1e-6, 1e-6],
                           {"extra": {"gilbench_format": 3}})])
    result = run_harness("report", newer, "-o", tmp_path / "r.html")
    assert_one_line_usage_error(result)
    assert "format 3" in result.stderr and "update gilbench" in result.stderr
    run = pyperf.Run([1.0, 1.1], metadata={"name": "other"},
                     collect_metadata=False)
    foreign = tmp_path / "foreign.json"
    pyperf.Benchmark([run]).dump(str(foreign))
    result = run_harness("report", foreign, "--format", "html")
    assert_one_line_usage_error(result)
    assert "not a gilbench result" in result.stderr


# -- a table without a value, shared values, and trimmed SVG ----------------

def test_all_na_table_is_one_line_in_html(tmp_path):
    from test_report_render import BIG_LINE, EXCLUDED, FIXED, write_sized
    path = write_sized(tmp_path)
    results = loader.load_results([str(path)])
    page = render.render(results, "html")
    assert {tag for tag, _ in tags_of(page)} <= ALLOWED_TAGS
    # One line, with an anchor of its own, after the drawn tables.
    assert re.search(r'<li id="t2">%s</li>' % re.escape(
        BIG_LINE.replace("'", "&#39;")), page)
    headings = re.findall(r"<h([34])[^>]*>([^<]*)</h\1>", page)
    assert ("3", "time by size") in headings
    assert ("4", "time by size: size=small") in headings
    assert ("4", "time by size: size=odd") in headings
    assert not any(text.endswith("size=big") for _, text in headings)
    # Two declared tables and four listings drawn; a plot for the one
    # with a number.
    assert page.count("<table>") == 2 + 4
    assert re.findall(r'data-series="(\d+)"', page) == ["1"]
    assert page.count(FIXED) == 1
    # Notes of the two listings and of size=odd's table, and the line.
    assert page.count(EXCLUDED) == 2 + 1 + 1


def attribute_numbers(svg):
    """Numbers of the attributes that place things (not ids, styles or
    text)."""
    values = re.findall(r'\s(?:d|x|y|width|height|transform|viewBox)='
                        r'"([^"]*)"', svg)
    return re.findall(r"-?\d+(?:\.\d+)?", " ".join(values))


def test_plot_coordinates_have_at_most_one_decimal(matrix_page):
    _, page = matrix_page
    svgs = re.findall(r"<svg.*?</svg>", page, re.S)
    numbers = [n for svg in svgs for n in attribute_numbers(svg)]
    assert len(numbers) > 1000
    assert [n for n in numbers if re.search(r"\.\d{2}", n)] == []
    assert any(re.search(r"\.\d$", n) for n in numbers)  # still precise


SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="504pt">\n'
       ' <g id="a">\n'
       '  <path d="M 45.123456 175.104 \nL 332.64 -0.001 \nz\n" '
       'style="stroke-width: 0.8"/>\n'
       '  <use x="87.659898" y="1.5" transform="scale(0.015625)"/>\n'
       '  <text style="font-size: 9px; font-family: \'DejaVu Sans\', '
       'sans-serif; text-anchor: middle" x="87.659898" y="188.942594" '
       'transform="rotate(-0 87.659898 188.942594)">1.234567 a  b</text>\n'
       '  <text style="font-size: 8px; font-family: \'DejaVu Sans\', '
       'sans-serif" transform="rotate(-20 10.123456 5)">x</text>\n'
       ' </g>\n</svg>')


def test_svg_trim_keeps_what_is_drawn():
    from gilbench.report.pages import svgtrim
    assert svgtrim.trim(SVG) == (
        '<svg style="font-family: \'DejaVu Sans\', sans-serif" '
        'xmlns="http://www.w3.org/2000/svg" width="504pt"><g id="a">'
        '<path d="M45.1 175.1L332.6 0z" style="stroke-width: 0.8"/>'
        '<use x="87.7" y="1.5" transform="scale(0.015625)"/>'
        '<text style="font-size: 9px; text-anchor: middle" x="87.7" '
        'y="188.9">1.234567 a  b</text>'
        '<text style="font-size: 8px" transform="rotate(-20 10.1 5)">x'
        '</text></g></svg>')


def test_svg_trim_leaves_differing_fonts_on_their_texts():
    from gilbench.report.pages import svgtrim
    mixed = SVG.replace("8px; font-family: 'DejaVu Sans'", "8px; "
                        "font-family: 'Other'")
    trimmed = svgtrim.trim(mixed)
    assert trimmed.startswith('<svg xmlns=')
    assert trimmed.count("font-family:") == 2


# -- smaller figures: paths, groups, markers, a style sheet for the page ----

def test_path_segments_along_an_axis_are_shorter():
    from gilbench.report.pages.svgtrim import compact_path
    assert compact_path("M 1 2 L 5 2 L 5 7 L 5 7 L 6 8 z") == \
        "M1 2H5V7h0L6 8z"
    # A moveto's further pairs are linetos.
    assert compact_path("M 1 2 3 2 3 4") == "M1 2H3V4"
    # After a close the current point is the subpath's start.
    assert compact_path("M1 2L3 4zL1 5") == "M1 2L3 4zV5"
    # Curves pass through and move the current point.
    assert compact_path("M0 0 C 1 1 2 2 3 0 L 4 0 Q 5 5 6 0 L 6 1") == \
        "M0 0C1 1 2 2 3 0H4Q5 5 6 0V1"
    # What it does not read (relative or arc commands, stray numbers)
    # keeps its meaning: only its spaces are tightened.
    for data in ("M 0 0 l 1 1", "M0 0 A 1 1 0 0 1 2 2", "M 0 0 L 1"):
        assert compact_path(data) == " ".join(data.split())


def test_moves_and_lines_are_relative_where_that_is_shorter():
    from gilbench.report.pages.svgtrim import compact_path
    # A series' dots: the second relative to the first.
    assert compact_path("M62.9 308.2 L62.9 308.2 M169.6 308.2 "
                        "L169.6 308.2") == "M62.9 308.2h0m106.7 0h0"
    # An error bar: a short relative v; a far move stays absolute.
    assert compact_path("M74.9 128 L420.5 58.7 M74.9 129.2 L74.9 126.8") \
        == "M74.9 128L420.5 58.7M74.9 129.2v-2.4"
    assert compact_path("M100 100 L100.5 99.5") == "M100 100l.5-.5"
    # A moveto that draws nothing goes (one point before its error bar);
    # one closed, or the only one, stays.
    assert compact_path("M147.3 67.1 M147.3 75 L147.3 59.2") == \
        "M147.3 75V59.2"
    assert compact_path("M1 2 M3 4 z M5 6") == "M3 4z"
    assert compact_path("M1 2") == "M1 2"
    # Numbers not rounded to a decimal stay as they are, absolute.
    assert compact_path("M100.25 100 L100.5 100") == "M100.25 100H100.5"


def test_elements_clipped_alike_are_clipped_once():
    from gilbench.report.pages.svgtrim import shared_clips
    clip = ' clip-path="url(#c)"'
    svg = ('<svg><g id="f"><path d="g"/>'
           '<g id="s0"><path d="a"%s/><path d="b"%s/></g>'
           '<g id="s1"><path d="c"%s/></g>'
           '<path d="d"%s/><path d="e" clip-path="url(#x)"/>'
           '<path d="t" transform="scale(2)"%s/><path d="u"%s/>'
           '<text x="1">a</text></g></svg>') % ((clip,) * 6)
    assert shared_clips(svg) == (
        '<svg><g id="f"><path d="g"/><g%s><g id="s0"><path d="a"/>'
        '<path d="b"/></g><g id="s1"><path d="c"/></g><path d="d"/></g>'
        '<path d="e" clip-path="url(#x)"/>'
        '<path d="t" transform="scale(2)"%s/><path d="u"%s/>'
        '<text x="1">a</text></g></svg>') % ((clip,) * 3)
    # Tags that do not nest: left as they were.
    broken = '<svg><g><path d="a"%s/><path d="b"%s/></svg>' % (clip, clip)
    assert shared_clips(broken) == broken


def test_bare_and_empty_groups_go_their_content_stays():
    from gilbench.report.pages.svgtrim import unwrap_groups
    assert unwrap_groups('<svg><g><g><path d="M0 0"/></g><text>a</text>'
                         '</g><g/><g clip-path="x"></g></svg>') == \
        '<svg><path d="M0 0"/><text>a</text></svg>'
    # A group that does something, or is named, stays (empty or not).
    kept = '<g clip-path="url(#c)"><path/></g><g id="s-1"></g>'
    assert unwrap_groups(kept) == kept
    assert unwrap_groups('<g><g id="a"><g><path/></g></g></g>') == \
        '<g id="a"><path/></g>'
    assert unwrap_groups('<g><g id="x"/></g>') == '<g id="x"/>'
    broken = '<g><path/></g></g>'
    assert unwrap_groups(broken) == broken


CIRCLE = ("M 0 1.5 C 0.4 1.5 0.8 1.3 1.1 1.1 C 1.3 0.8 1.5 0.4 1.5 0 "
          "C 1.5 -0.4 1.3 -0.8 1.1 -1.1 C 0.8 -1.3 0.4 -1.5 0 -1.5 "
          "C -0.4 -1.5 -0.8 -1.3 -1.1 -1.1 C -1.3 -0.8 -1.5 -0.4 -1.5 0 "
          "C -1.5 0.4 -1.3 0.8 -1.1 1.1 C -0.8 1.3 -0.4 1.5 0 1.5 z")


def markers(marker_id, data, uses, clip=' clip-path="url(#p0123456789)"'):
    return ('<defs><path id="%s" d="%s" style="stroke: #1f77b4"/></defs>'
            '<g%s>%s</g>' % (marker_id, data, clip, "".join(
                '<use xlink:href="#%s" x="%s" y="%s" style="%s"/>'
                % (marker_id, x, y, style) for x, y, style in uses)))


def test_round_markers_become_one_path_of_dots():
    from gilbench.report.pages.svgtrim import (
        circle_radius,
        compact_path,
        markers_as_dots,
    )
    fill = "fill: #1f77b4; stroke: #1f77b4"
    svg = markers("m0123456789", CIRCLE, [(1, 2, fill), (3.5, 4, fill)])
    # A dot as wide as the marker and its edge (1 by default).
    assert markers_as_dots(svg) == (
        '<path d="M1 2h0M3.5 4h0" clip-path="url(#p0123456789)" '
        'style="fill: none; stroke: #1f77b4; stroke-width: 4; '
        'stroke-linecap: round"/>')
    edged = markers("m0123456789", CIRCLE, [
        (1, 2, fill + "; stroke-width: 0.5")], clip="")
    assert 'stroke-width: 3.5;' in markers_as_dots(edged)
    assert circle_radius(compact_path(CIRCLE)) == 1.5
    # A square marker, an edge of another colour, a translucent marker:
    # left as they are.
    square = markers("m0123456789", "M -3 3 L 3 3 L 3 -3 L -3 -3 z",
                     [(1, 2, fill)])
    other_edge = markers("m0123456789", CIRCLE,
                         [(1, 2, "fill: #1f77b4; stroke: #000000")])
    faint = markers("m0123456789", CIRCLE, [(1, 2, fill + "; opacity: 0.5")])
    for svg in (square, other_edge, faint):
        assert markers_as_dots(svg) == svg
    # Only what is still used keeps its definition.
    both = svg + markers("m9876543210", CIRCLE, [(1, 2, fill)])
    assert markers_as_dots(both).count("<defs>") == 1


def test_styles_become_classes_of_one_sheet_for_the_page():
    from gilbench.report.pages.svgtrim import share_styles
    first = ('<svg><defs><style type="text/css">*{stroke-linecap: butt}'
             '</style></defs><path style="fill: red"/><path style="fill: '
             'red"/><text style="font-size: 8px">a</text>'
             '<path clip-path="url(#p0123456789)" style="stroke: blue"/>'
             '<defs><clipPath id="p0123456789"><rect/></clipPath></defs>'
             '</svg>')
    second = ('<svg><defs><style type="text/css">*{stroke-linecap: butt}'
              '</style></defs><path style="stroke: blue"/><path '
              'style="fill: red"/><use xlink:href="#m0123456789"/>'
              '<path id="m0123456789" style="fill: &quot;x&quot;"/>'
              '<path style="fill: &quot;x&quot;"/></svg>')
    (one, two), css = share_styles([first, second])
    # The most used first; a style used once stays where it is, and one
    # with an entity too (a style sheet would not read it).
    assert css == ("*{stroke-linecap: butt}.s0{fill: red}"
                   ".s1{stroke: blue}")
    assert one == ('<svg><path class="s0"/><path class="s0"/>'
                   '<text style="font-size: 8px">a</text>'
                   '<path clip-path="url(#c0)" class="s1"/>'
                   '<defs><clipPath id="c0"><rect/></clipPath></defs></svg>')
    # Ids are unique on the page: the next figure counts on.
    assert two == ('<svg><path class="s1"/><path class="s0"/>'
                   '<use xlink:href="#c1"/><path id="c1" style="fill: '
                   '&quot;x&quot;"/><path style="fill: &quot;x&quot;"/>'
                   '</svg>')


def test_the_page_refers_only_to_its_own_ids_and_classes(matrix_page):
    _, page = matrix_page
    ids = re.findall(r'\sid="([^"]+)"', page)
    assert len(ids) == len(set(ids))
    referred = set(re.findall(r'url\(#([^)]+)\)', page)) | set(
        re.findall(r'href="#([^"]+)"', page))
    assert referred and referred <= set(ids)
    svgs = "".join(re.findall(r"<svg.*?</svg>", page, re.S))
    used = set(re.findall(r'class="(s\d+)"', svgs))
    defined = set(re.findall(r"\.(s\d+)\{", page))
    assert used and used == defined
    assert "<style type=" not in svgs  # moved to the page's style sheet
    assert "<use" not in svgs  # markers are paths of dots


# -- findings: answers shaded by what they mean, flags ---------------------

def test_answer_classes_come_from_the_cells():
    from gilbench.report.data.records import Cell
    from gilbench.report.numbers import cells
    from gilbench.report.pages import html
    na = cells.missing("n/a: not run")
    failed = cells.missing("failed: exit code 1")
    ratio = Cell("1.50x [1.3-1.7]", 1.5, interval=(1.3, 1.7),
                 significant=True)
    untold = Cell("1.03x [0.9-1.2]", 1.03, interval=(0.9, 1.2),
                  significant=False)
    speedup_below = Cell("0.40x", 0.4, interval=(0.3, 0.5),
                         significant=True)
    baseline = Cell("1.00x", 1.0)  # compares nothing
    winner = Cell("spin, 1.3x ahead", None, winner="spin", significant=True)
    close = Cell("spin, 1.0x ahead", None, winner="spin", significant=False)
    rate = Cell("182k req/s", 182e3)
    assert html.answer_class(na, "ratio") == "na"
    assert html.answer_class(failed, "best") == "failed"
    assert html.answer_class(ratio, "ratio") == "r2"
    assert html.answer_class(untold, "ratio") == html.UNDECIDED
    assert html.answer_class(speedup_below, "speedup") == "r-3"
    assert html.answer_class(baseline, "speedup") == "r0"
    assert html.answer_class(winner, "best") == html.DECIDED
    assert html.answer_class(close, "best") == html.UNDECIDED
    assert html.answer_class(rate, "throughput") == html.MEASURED
    # The class reads the cell, not its words.
    reworded = Cell("about the same", 1.5, significant=True)
    assert html.answer_class(reworded, "ratio") == "r2"


def test_findings_table_shades_each_answer():
    from gilbench.report.data.records import Cell
    from gilbench.report.pages import html
    from gilbench.report.tables import questions
    found = questions.FindingsTable(["A", "B"], [
        questions.Finding("gil", "How much slower?",
                          {"cell": {"kind": "ratio"}},
                          [Cell("2.5x [2.1-3]", 2.5, flags="~",
                                significant=True),
                           Cell("1.0x [0.8-1.3]", 1.0, flags="?~",
                                significant=False)]),
        questions.Finding("gil", "Which wins?", {"cell": {"kind": "best"}},
                          [Cell("a, 2x ahead", None, significant=True,
                                winner="a"),
                           Cell("n/a: not run", missing=True)])])
    table = html.findings_table(found, [])
    rows = [row for what, row in table.rows if what == "finding"]
    assert [[c.css for c in row[1:]] for row in rows] == [
        ["r3", html.UNDECIDED], [html.DECIDED, "na"]]
    # ~ is left to the tip (the whole wording), in the matrix.
    assert rows[0][2].flags == [("?", "ns")]
    assert rows[0][2].tip == "1.0x [0.8-1.3] ?~"
    assert all(row[0].css == "label" for row in rows)


def test_flags_share_an_element_unless_they_differ_in_colour():
    from gilbench.report.pages.html import flag_groups
    assert flag_groups("") == []
    assert flag_groups("~^!") == [("~^!", "")]
    assert flag_groups("?~^") == [("?", "ns"), ("~^", "")]


def test_figures_are_handed_out_as_their_tables_are_made(matrix_dir,
                                                         monkeypatch):
    """render hands each declaration's figure to the workers as soon as
    its tables are made (pivot.handing_tables), not once all are; the
    page is the one drawn from the finished tables."""
    from gilbench.report.pages import figurepool, html
    events = []
    add, declared = figurepool.Drawing.add, pivot.declared_tables

    def handed(self, jobs):
        events.append(("handed", [gid for _, gid, _ in jobs]))
        return add(self, jobs)

    def made(*args, **kwargs):
        events.append(("made",))
        return declared(*args, **kwargs)

    monkeypatch.setattr(figurepool.Drawing, "add", handed)
    monkeypatch.setattr(pivot, "declared_tables", made)
    results = loader.load_results([str(matrix_dir)])
    page = render.render(results, "html")
    first = events.index(("handed", ["d1-plot"]))
    assert first < len(events) - 1 - events[::-1].index(("made",))
    # Nothing was left for the end.
    assert events[-1] == ("handed", [])
    monkeypatch.undo()
    tables = pivot.all_tables(results)
    found = questions.findings_table(results, pivot.family_order(results))
    assert page == html.page(render.environment(), render.TITLE, [
        "Rendered from %d result file(s): %s." % (
            len(results), ", ".join(r.interpreter for r in results))],
        tables, found=found)


def test_a_figure_handed_out_for_other_tables_is_drawn_again(matrix_dir):
    from gilbench.report.pages import html
    from gilbench.report.tables import layout
    results = loader.load_results([str(matrix_dir)])
    groups = declarations_of(pivot.all_tables(results))
    figures = html.Figures()
    figures.add(groups[1])  # handed out as d1, but the page's d1 is another
    blocks = layout.blocks(groups[0] + groups[1])
    shown = figures.plots(blocks)
    assert [plot.svg for plot in shown] == [
        plots.figure([t for _, t in block.tables], "d%d-plot" % number).svg
        for number, block in enumerate(blocks, 1)]


def test_only_an_html_page_warms_ahead_of_its_results():
    """gilbench report hands loader.load_results render.ahead's work:
    the figures' warm-up, with scipy for the fits, for an HTML page only."""
    from gilbench.report.pages import figurepool
    assert render.ahead(["rst", "md", "json"]) is None
    ahead = render.ahead(["rst", "html"])
    assert ahead.func is figurepool.warm and ahead.args == (True,)


def test_figure_workers_start_before_the_tables_are_computed(matrix_dir,
                                                             monkeypatch):
    """render starts (and warms) the figures' workers first, so that they
    are ready when the tables are: figurepool.Workers, then
    pivot.all_tables."""
    from gilbench.report.pages import figurepool
    events = []
    workers, all_tables = figurepool.Workers.__init__, pivot.all_tables

    def start(self, figures, fits=False):
        events.append(("workers", figures, fits))
        workers(self, figures, fits)

    def tables(results):
        events.append(("tables",))
        return all_tables(results)

    monkeypatch.setattr(figurepool.Workers, "__init__", start)
    monkeypatch.setattr(pivot, "all_tables", tables)
    results = loader.load_results([str(matrix_dir)])
    page = render.render(results, "html")
    declared = sum(len(tables) for tables, _ in
                   pivot.declarations(results).values())
    # One figure at most per declaration; the matrix has speedups over
    # threads, with scalability fits.
    assert events == [("workers", declared, True), ("tables",)]
    assert page.count("<svg") == len(re.findall(r"data-facets=", page))


def test_a_cells_note_is_a_hover_mark_in_html_and_text_elsewhere():
    """An extended answer's "(up to N processes)" keeps the HTML column
    narrow (a + with the note on hover); the text formats and JSON say
    it after the wording, before the flags."""
    from gilbench.report.data.records import Cell
    from gilbench.report.pages import html as page_html
    from gilbench.report.pages import jsonpage
    found = Cell("1.25x [1.04-1.51]", 1.25, flags="~",
                 note="(up to 4 processes)")
    assert found.display == "1.25x [1.04-1.51] (up to 4 processes) ~"
    assert jsonpage.cell(found)["text"] == \
        "1.25x [1.04-1.51] (up to 4 processes)"
    shown = page_html.html_cell(found, shaded=False)
    assert shown.text == "1.25x [1.04-1.51]"
    macro = render.environment().get_template(
        "cells.html.j2").module.flagged
    assert str(macro(shown)) == ('1.25x [1.04-1.51] <abbr title="(up to 4 '
                                 'processes)">+</abbr> <b>~</b>')
