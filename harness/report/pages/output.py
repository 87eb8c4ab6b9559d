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


def output_format(args, output=None):
    """--format, else from the suffix of ``output`` (-o's by default),
    else rst."""
    if args.format:
        return args.format
    output = args.output if output is None else output
    suffix = os.path.splitext(output or "")[1].lower()
    return SUFFIXES.get(suffix, "rst")


def outputs(args):
    """[(format, path or None for stdout)] of a command taking several
    -o (``add_output_options(several=True)``); one format a page."""
    paths = args.output or [None]
    if len(paths) > 1 and args.format:
        raise UsageError("--format names one page's format; with several "
                         "-o, each output's suffix names its own")
    wanted = [(output_format(args, path), path) for path in paths]
    for _, path in wanted:
        if path:  # before any page is rendered
            check_writable(path)
    formats = [fmt for fmt, _ in wanted]
    if len(set(formats)) < len(formats):
        raise UsageError("two -o outputs of one format (%s): give each "
                         "format once" % ", ".join(sorted(
                             {f for f in formats if formats.count(f) > 1})))
    return wanted


def check_writable(path):
    """Refuse, in one line, an output that could never be written."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise UsageError(f"output directory {directory!r} does not exist")
    if os.path.isdir(path):
        raise UsageError(f"output {path!r} is a directory")


def write_atomically(path, text):
    check_writable(path)
    try:
        with atomicfile.replacing(path) as stream:
            stream.write(text)
    except OSError as exc:
        raise UsageError(f"cannot write {path!r}: "
                         f"{exc.strerror or exc}") from None


def emit(text, fmt, output):
    """Write rendered ``text`` to ``output`` (atomically) or stdout; RST
    that does not parse is a renderer bug, not bad input: fail loudly."""
    emit_all({fmt: text}, [(fmt, output)])


def emit_all(pages, wanted):
    """Write each of ``pages`` ({format: text}) where ``wanted`` (as
    ``outputs`` gives) says, once every RST page is known to parse, so
    that a renderer bug leaves every earlier page as it was."""
    for fmt, _ in wanted:
        if fmt == "rst":
            problems = render.rst_problems(pages[fmt])
            if problems:
                raise RuntimeError("rendered RST does not parse:\n"
                                   + problems)
    for fmt, output in wanted:
        if output:
            write_atomically(output, pages[fmt])
            print(f"wrote {output}")
        else:
            sys.stdout.write(pages[fmt])


def add_output_options(parser, several=False):
    """``--format`` and ``-o``, as every page-writing command takes them;
    ``several``: -o may be given once per format (``outputs``)."""
    parser.add_argument("--format", choices=sorted(render.FORMATS),
                        help=FORMAT_HELP)
    if several:
        parser.add_argument(
            "-o", "--output", metavar="FILE", action="append",
            help="write here (atomically) instead of stdout; give it once "
            "per page to render several from one reading of the results "
            "(e.g. -o report.rst -o report.md -o report.html), each in "
            "the format its suffix names")
        return
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write here (atomically) instead of stdout")
