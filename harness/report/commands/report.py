"""``gilbench report FILE_OR_DIR ... [--format rst|md|html|json]
[-o FILE ...] [--width N]``: several -o render several pages from one
reading of the results."""
from __future__ import annotations

from gilbench.errors import OneLineErrorParser, UsageError
from gilbench.report import collector
from gilbench.report.data import loader
from gilbench.report.pages import render
from gilbench.report.pages.output import (
    add_output_options,
    emit_all,
    outputs,
)


def _parser():
    parser = OneLineErrorParser(
        prog="gilbench report",
        description="Render the findings, the declared tables of every "
        "family, then raw, CPU and runs tables, from result JSON (format "
        "2); HTML adds a figure per declared table.")
    loader.add_paths_argument(parser)
    add_output_options(parser, several=True)
    parser.add_argument("--docs-url", metavar="URL",
                        help="HTML: link each built-in family's heading to "
                        "its page of the manual built at URL (relative, "
                        "e.g. docs/_build/html/, or absolute); off by "
                        "default, so the page stays self-contained")
    parser.add_argument("--width", type=int, default=render.WIDTH,
                        metavar="N",
                        help="RST and Markdown: no line wider than N "
                        "characters (tables split into groups of "
                        "interpreter columns, paragraphs folded); 0 for "
                        "the full width (default: %(default)s)")
    return parser


def main(argv):
    args = _parser().parse_args(argv)
    if args.width < 0:
        raise UsageError("--width must be 0 (no limit) or more")
    wanted = outputs(args)
    formats = [fmt for fmt, _ in wanted]
    with collector.paused():
        results = loader.load_results(args.paths,
                                      meanwhile=render.ahead(formats))
        pages = render.render_pages(results, formats,
                                    docs_url=args.docs_url, width=args.width)
        emit_all(pages, wanted)
    return 0
