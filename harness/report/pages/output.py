"""Where a page goes: the output options ``report`` and ``compare``
share, the format from ``-o``'s suffix, and the atomic write."""
from __future__ import annotations

import os
import sys

from gilbench import atomicfile
from gilbench.errors import UsageError
from gilbench.report.pages import render

FORMAT_HELP = ("default: from -o's suffix (.rst, .md, .html, .json), "
               "else rst")
SUFFIXES = {".md": "md", ".html": "html", ".htm": "html", ".rst": "rst",
            ".json": "json"}


def output_format(args):
    """--format, else from -o's suffix, else rst."""
    if args.format:
        return args.format
    suffix = os.path.splitext(args.output or "")[1].lower()
    return SUFFIXES.get(suffix, "rst")


def write_atomically(path, text):
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise UsageError(f"output directory {directory!r} does not exist")
    if os.path.isdir(path):
        raise UsageError(f"output {path!r} is a directory")
    try:
        with atomicfile.replacing(path) as stream:
            stream.write(text)
    except OSError as exc:
        raise UsageError(f"cannot write {path!r}: "
                         f"{exc.strerror or exc}") from None


def emit(text, fmt, output):
    """Write rendered ``text`` to ``output`` (atomically) or stdout; RST
    that does not parse is a renderer bug, not bad input: fail loudly."""
    if fmt == "rst":
        problems = render.rst_problems(text)
        if problems:
            raise RuntimeError("rendered RST does not parse:\n" + problems)
    if output:
        write_atomically(output, text)
        print(f"wrote {output}")
    else:
        sys.stdout.write(text)


def add_output_options(parser):
    """``--format`` and ``-o``, as every page-writing command takes them."""
    parser.add_argument("--format", choices=sorted(render.FORMATS),
                        help=FORMAT_HELP)
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write here (atomically) instead of stdout")
