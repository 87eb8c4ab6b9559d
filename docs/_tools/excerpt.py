"""Cut one family's findings, or one table section, out of a report.

The worked examples in docs/examples/ are excerpts of real reports
(``gilbench report FILES --format rst --width 0``: the full-width
layout), pasted rather than committing result files, which are too big
for the repository::

    python docs/_tools/excerpt.py REPORT.rst findings gil > docs/examples/gil-findings.rst
    python docs/_tools/excerpt.py REPORT.rst section "nogil/gil slowdown: case=trivial, backend=cython"
"""
import re
import sys

FOOTNOTE = re.compile(r"^\| \[(\d+)\] ")


def _grid_rows(lines):
    """The findings grid: header lines, then one list of lines per row."""
    start = lines.index("Findings") + 3
    while not lines[start].startswith("+"):
        start += 1
    end = start
    while end < len(lines) and lines[end].startswith(("+", "|")):
        end += 1
    grid = lines[start:end]
    head_end = next(i for i, text in enumerate(grid) if text.startswith("+="))
    header, rows, row = grid[:head_end + 1], [], []
    for line in grid[head_end + 1:]:
        if line.startswith("+"):
            rows.append(row)
            row = []
        else:
            row.append(line)
    return header, rows, grid[-1], lines[end:]


def _family_of(row):
    return row[0].split("|")[1].strip()


def findings(lines, family):
    header, rows, rule, after = _grid_rows(lines)
    out, current = list(header), None
    for row in rows:
        current = _family_of(row) or current
        if current == family:
            out += row + [rule]
    return out + [""] + _footnotes(out, after)


def _footnotes(used, after):
    wanted = set(re.findall(r"\[(\d+)\]", "\n".join(used)))
    notes = [text for text in after[:40] if FOOTNOTE.match(text)
             and FOOTNOTE.match(text).group(1) in wanted]
    return notes + [""] if notes else []


def section(lines, title):
    """The table under a heading: from the heading to the next one."""
    start = lines.index(title) + 2
    end = start
    while end < len(lines) and not (end + 1 < len(lines) and lines[end + 1]
                                    and set(lines[end + 1]) <= set("-~=^")
                                    and len(lines[end + 1]) >= len(lines[end])
                                    and lines[end]):
        end += 1
    body = [text for text in lines[start:end]]
    return body


def main(argv):
    path, what, name = argv
    with open(path) as handle:
        lines = handle.read().splitlines()
    out = findings(lines, name) if what == "findings" else section(lines, name)
    print("\n".join(out).rstrip() + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
