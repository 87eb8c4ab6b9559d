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
from gilbench.report.tables import pivot

NETWORK = re.compile(r"(?i)\b(?:https?|wss?|ftp):|(?<![\w/])//[\w.-]")
ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "h4",
    "p",
    "div", "span", "nav", "ul", "li", "a", "section", "details", "summary",
    "table", "thead",
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
    ticks = [float(x) for x in re.findall(
        r'<g id="xtick_\d+">.*?<text[^>]* x="([\d.]+)"', drawn.svg, re.S)]
    assert len(ticks) == 4
    gaps = [b - a for a, b in zip(ticks, ticks[1:])]
    assert max(gaps) / min(gaps) < 3


def test_ratio_cells_are_shaded_with_a_legend(matrix_page):
    _, page = matrix_page
    assert re.search(r'<td class="r[-0-9]+">\d', page)
    for css in ("r-3", "r0", "r3"):
        assert 'class="swatch %s"' % css in page
    assert "shaded by their distance from 1" in page


def test_flags_reasons_runs_and_toc(matrix_page):
    _, page = matrix_page
    assert '<b class="flag noisy">~</b>' in page
    # Reasons are numbered notes under their table.
    assert re.search(r'<td class="na">n/a \[\d\]</td>', page)
    assert re.search(r"<li>\[\d\] n/a: gilbench.extensions._gil_cffi not "
                     "built", page)
    assert '<nav class="toc"' in page
    for family in ("gil", "pool", "work"):
        assert re.search(r'<li><a href="#f-\d+">%s</a>' % family, page)
    assert "Synthetic CPU @ 3.0GHz x 8" in page
    assert "CPython 3.13t (GIL on)" in page
    assert '<th>pinned</th>' in page and '<th>load</th>' in page


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
    # Two declared tables and three listings drawn; a plot for the one
    # with a number.
    assert page.count("<table>") == 2 + 3
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


def test_plot_coordinates_have_at_most_two_decimals(matrix_page):
    _, page = matrix_page
    svgs = re.findall(r"<svg.*?</svg>", page, re.S)
    numbers = [n for svg in svgs for n in attribute_numbers(svg)]
    assert len(numbers) > 1000
    assert [n for n in numbers if re.search(r"\.\d{3}", n)] == []
    assert any(re.search(r"\.\d\d$", n) for n in numbers)  # still precise


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
        '<path d="M45.12 175.1L332.64 0z" style="stroke-width: 0.8"/>'
        '<use x="87.66" y="1.5" transform="scale(0.015625)"/>'
        '<text style="font-size: 9px; text-anchor: middle" x="87.66" '
        'y="188.94">1.234567 a  b</text>'
        '<text style="font-size: 8px" transform="rotate(-20 10.12 5)">x'
        '</text></g></svg>')


def test_svg_trim_leaves_differing_fonts_on_their_texts():
    from gilbench.report.pages import svgtrim
    mixed = SVG.replace("8px; font-family: 'DejaVu Sans'", "8px; "
                        "font-family: 'Other'")
    trimmed = svgtrim.trim(mixed)
    assert trimmed.startswith('<svg xmlns=')
    assert trimmed.count("font-family:") == 2
