"""``.. gilbench-family:: NAME``: a family's cases, axes, tables and
findings, rendered from gilbench's own registry at build time.

The page's prose says why a family exists; everything that can drift
from the code (names, axes and their defaults, declarations) comes from
``gilbench.registry.load_specs``, the same source ``gilbench list --json``
and the result files use.  The directive writes reStructuredText and
parses it, so the output is what a hand-written page would be.
"""
import json
import os

from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

# The family ``gilbench timeit`` generates from a statement it is handed in
# the environment; the docs show it for this statement and these counts.
TIMEIT_EXAMPLE = {"name": "stmt", "stmt": "sum(range(10000))", "setup": "",
                  "threads": [1, 2, 3], "processes": [1, 2]}


def _module_names(family):
    from gilbench import modules, timeitspec
    if family == "timeit":
        os.environ[timeitspec.ENVIRONMENT] = timeitspec.encode(
            *[TIMEIT_EXAMPLE[k] for k in ("name", "stmt", "setup",
                                         "threads", "processes")])
        return ["gilbench.timeitcase"]
    return [n for n in modules.default_module_names()
            if n.rsplit(".", 1)[-1] == family]


def load_family(family):
    """[(spec, Declared)] of one family, from the registry."""
    from gilbench import registry
    names = _module_names(family)
    if not names:
        raise ValueError("no case module for family %r" % family)
    return [(spec, declared) for spec, declared in registry.load_specs(names)
            if spec.family == family]


def _literal(value):
    return "``%s``" % value if value not in ("", None) else ""


def _values(values):
    return ", ".join(str(v) for v in values) or "--"


def _axis_line(axis):
    facts = axis.describe()
    text = "``%s`` (%s%s): %s; quick: %s" % (
        facts["name"], facts["type"],
        ", " + facts["unit"] if facts["unit"] else "",
        _values(facts["values"]), _values(facts["quick"]))
    if facts["extra"]:
        text += "; with ``--param`` also: %s" % _values(facts["extra"])
    if facts["open"]:
        text += "; open (any count)"
    if facts["log"]:
        text += "; log-spaced"
    return text


def _indent(lines, prefix="     "):
    return [prefix + line if line else "" for line in lines]


def _case_rows(specs):
    rows = []
    for spec, _ in specs:
        axes = [_axis_line(a) for a in spec.axes] or ["none"]
        cells = [_literal(spec.base_name), spec.driver,
                 spec.description, spec.value_means or "",
                 axes]
        rows.append(cells)
    return rows


def _list_table(title, header, rows, widths):
    lines = [".. list-table:: %s" % title, "   :header-rows: 1",
             "   :widths: %s" % " ".join(str(w) for w in widths), ""]
    for row in [header] + rows:
        first = True
        for cell in row:
            cell_lines = cell if isinstance(cell, list) else [cell]
            bullet = "   * - " if first else "     - "
            first = False
            if len(cell_lines) > 1:
                lines.append(bullet + "* " + _escape(cell_lines[0]))
                lines.extend("       * " + _escape(c) for c in cell_lines[1:])
            else:
                lines.append(bullet + (_escape(cell_lines[0]) or "\\ "))
    return lines + [""]


def _escape(text):
    """Leave RST we wrote alone; make a registry string's stray markup
    (``*``, ``|``, a trailing ``_``) plain text."""
    text = str(text)
    if text.startswith("``") and text.endswith("``"):
        return text
    if "``" in text:
        return text
    for char in ("\\", "*", "|", "`"):
        text = text.replace(char, "\\" + char)
    return text


def _cell_text(cell):
    kind = cell["kind"]
    rest = dict((k, v) for k, v in sorted(cell.items()) if k != "kind")
    return "*%s* %s" % (kind, _literal(json.dumps(rest, sort_keys=True))
                        if rest else "")


def _table_rows(declared):
    rows = []
    for decl in declared.tables:
        layout = ["rows: ``%s``" % decl["rows"],
                  "columns: ``%s``" % decl["columns"]]
        if decl["per"]:
            layout.append("one table per: ``%s``" % ", ".join(decl["per"]))
        if decl["where"]:
            layout.append("where: ``%s``" % json.dumps(decl["where"],
                                                         sort_keys=True))
        rows.append([decl["title"], layout, _cell_text(decl["cell"]),
                     decl["note"] or ""])
    return rows


def _finding_rows(declared):
    rows = []
    for decl in declared.findings:
        at = json.dumps(decl["at"], sort_keys=True) if decl["at"] else ""
        rows.append([decl["question"], _cell_text(decl["cell"]),
                     _literal(at), decl["evidence"] or "(first matching "
                     "table)"])
    return rows


def family_rst(family):
    """The generated part of a family page, as reStructuredText lines."""
    specs = load_family(family)
    declared = specs[0][1]
    lines = ["Cases", "^^^^^", "",
             "%d case(s), in run order; the family's ``ORDER`` on the "
             "page is %s." % (len(specs), declared.order), ""]
    lines += _list_table("", ["case", "driver", "what it runs",
                              "a value is", "axes (default; quick)"],
                         _case_rows(specs), [18, 8, 25, 22, 27])
    lines += ["Declared tables", "^^^^^^^^^^^^^^^", ""]
    if declared.tables:
        lines += _list_table("", ["title", "layout", "cell", "note"],
                             _table_rows(declared), [25, 25, 25, 25])
    else:
        lines += ["None: the report shows the raw tables only.", ""]
    lines += ["Declared findings", "^^^^^^^^^^^^^^^^^", ""]
    if declared.findings:
        lines += _list_table("", ["question", "cell", "at", "evidence"],
                             _finding_rows(declared), [35, 30, 15, 20])
    else:
        lines += ["None.", ""]
    return lines


class FamilyDirective(SphinxDirective):
    required_arguments = 1
    has_content = False
    option_spec = {"debug": directives.flag}

    def run(self):
        text = "\n".join(family_rst(self.arguments[0]))
        if "debug" in self.options:
            print(text)
        return self.parse_text_to_nodes(text, allow_section_headings=True)


def setup(app):
    app.add_directive("gilbench-family", FamilyDirective)
    return {"version": "1", "parallel_read_safe": True,
            "parallel_write_safe": True}
