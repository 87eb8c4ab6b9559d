"""``gilbench report FILE_OR_DIR ... [--format rst|md|html]
[-o FILE]``."""
from __future__ import annotations

import os
import sys
import tempfile

from gilbench.errors import UsageError
from gilbench.report import loader, render


def _parser():
    from gilbench.cli import OneLineErrorParser
    parser = OneLineErrorParser(
        prog="gilbench report",
        description="Render the declared tables of every family, then raw, "
        "CPU and runs tables, from result JSON (format 2); HTML adds plots.")
    parser.add_argument("paths", nargs="+", metavar="FILE_OR_DIR",
                        help="result JSON files, or directories of them")
    parser.add_argument("--format", choices=sorted(render.FORMATS),
                        help=FORMAT_HELP)
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write here (atomically) instead of stdout")
    return parser


FORMAT_HELP = "default: from -o's suffix (.rst, .md, .html), else rst"
SUFFIXES = {".md": "md", ".html": "html", ".htm": "html", ".rst": "rst"}


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
    # A temporary name of this writer's own: two reports writing one -o
    # at once each replace it whole, the last one winning.
    partial = None
    try:
        handle, partial = tempfile.mkstemp(
            dir=directory, prefix=os.path.basename(path) + ".",
            suffix=".partial")
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.chmod(partial, 0o666 & ~_umask())
        os.replace(partial, path)
    except OSError as exc:
        if partial and os.path.isfile(partial):
            os.unlink(partial)
        raise UsageError(f"cannot write {path!r}: "
                         f"{exc.strerror or exc}") from None


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


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


def main(argv):
    args = _parser().parse_args(argv)
    fmt = output_format(args)
    emit(render.render(loader.load_results(args.paths), fmt), fmt,
         args.output)
    return 0
