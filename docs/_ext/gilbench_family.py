"""``.. gilbench-family:: NAME``: a family's cases, axes, tables and
findings, rendered from gilbench's own registry at build time.

The page's prose says why a family exists; everything that can drift
from the code (names, axes and their defaults, declarations) comes from
``gilbench.model.registry.load_specs``, the same source ``gilbench list
--json`` and the result files use.  The directive writes reStructuredText and
parses it, so the output is what a hand-written page would be.
"""
import json
import os

from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

# The family ``gilbench timeit`` generates from a statement it is handed in
# the environment; the docs show it for this statement and these counts.
TIMEIT_EXAMPLE = {"name": "stmt", "stmt": "sum(range(10000))", "setup": "",
                  "threads": [1, 2, 3], "processes": [1, 2],
                  "objects": ["own", "shared"]}


def _module_names(family):
    from gilbench.model import modules, timeitspec
    if family == "timeit":
        os.environ[timeitspec.ENVIRONMENT] = timeitspec.encode(
            *[TIMEIT_EXAMPLE[k] for k in ("name", "stmt", "setup",
                                         "threads", "processes", "objects")])
        return ["gilbench.measure.timeitcase"]
    return [n for n in modules.default_module_names()
            if n.rsplit(".", 1)[-1] == family]


def load_family(family):
    """[(spec, Declared)] of one family, from the registry."""
    from gilbench.model import registry
    names = _module_names(family)
    if not names:
        raise ValueError("no case module for family %r" % family)
    return [(spec, declared) for spec, declared in registry.load_specs(names)
            if spec.family == family]


def _source_files(family):
    import sys
    return [sys.modules[name].__file__ for name in _module_names(family)]


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
    if facts["log"]:
        text += "; log-spaced"
    return text


def _indent(lines, prefix="     "):
    return [prefix + line if line else "" for line in lines]


def _case_rows(specs, shared_meaning):
    rows = []
    for spec, _ in specs:
        axes = [_axis_line(a) for a in spec.axes] or ["none"]
        cells = [_literal(spec.base_name), spec.driver, spec.description]
        if not shared_meaning:
            cells.append(spec.value_means or "")
        rows.append(cells + [axes])
    return rows


def _meanings(specs):
    """The distinct value_means, in case order."""
    found = []
    for spec, _ in specs:
        if spec.value_means not in found:
            found.append(spec.value_means)
    return found


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


def _pairs(mapping):
    return ", ".join("%s=%s" % item for item in sorted(mapping.items()))


def _ratio_words(cell):
    text = "``%s=%s`` / ``%s=%s``" % (cell["over"], cell["numerator"],
                                    cell["over"], cell["denominator"])
    if cell.get("fallback"):
        text += " (no twin: the one with ``%s``)" % _pairs(cell["fallback"])
    return text


def _speedup_words(cell):
    text = "over ``%s``, against ``%s=%s``" % (cell["over"], cell["over"],
                                               cell["baseline"])
    return text + (", x N (work grows with N)" if cell["scaled"] else "")


# How each cell kind's declaration reads in words; keys are
# gilbench.model.tables' cell dicts (a kind missing here falls back to its
# JSON).
_CELL_WORDS = {
    "value": lambda c: "mean" + (" per operation" if c["per_op"] else
                                 " per loop"),
    "ratio": _ratio_words,
    "speedup": _speedup_words,
    "efficiency": lambda c: _speedup_words(c) + "; against the %s"
    % ("ideal (N)" if c["against"] == "ideal" else "ceiling family"),
    "scaling": lambda c: "scalability-law fit, " + _speedup_words(c),
    "throughput": lambda c: "%s/s" % c["unit"],
    "recorded": lambda c: "``%s``%s" % (
        c["key"], " (%s)" % c["unit"] if c["unit"] else ""),
    "crossover": lambda c: "along ``%s``, where %s %s 1%s" % (
        c["along"], _ratio_words(c), "rises to" if c["rises"] else
        "falls to", " (%s)" % c["unit"] if c["unit"] else ""),
    "best": lambda c: "the %s %s over ``%s``%s" % (
        c["pick"], c["of"]["kind"] if c["of"]["kind"] != "recorded"
        else c["of"]["key"], c["over"],
        " among %s" % ", ".join(map(str, c["among"])) if c["among"] else ""),
}


def _cell_text(cell):
    words = _CELL_WORDS.get(cell["kind"])
    if words is None:
        rest = dict((k, v) for k, v in cell.items() if k != "kind")
        return "*%s* %s" % (cell["kind"], _literal(json.dumps(
            rest, sort_keys=True)))
    return "*%s*: %s" % (cell["kind"], words(cell))


def _table_rows(declared):
    rows = []
    for decl in declared.tables:
        layout = ["rows: ``%s``" % decl["rows"],
                  "columns: ``%s``" % decl["columns"]]
        if decl["per"]:
            layout.append("one table per: ``%s``" % ", ".join(decl["per"]))
        if decl["where"]:
            layout.append("only ``%s``" % _pairs(decl["where"]))
        rows.append([decl["title"], layout, _cell_text(decl["cell"]),
                     decl["note"] or ""])
    return rows


def _finding_rows(declared):
    rows = []
    for decl in declared.findings:
        rows.append([decl["question"], _cell_text(decl["cell"]),
                     _literal(_pairs(decl["at"])), decl["evidence"]
                     or "(the first table with this computation)"])
    return rows


def family_rst(family):
    """The generated part of a family page, as reStructuredText lines."""
    specs = load_family(family)
    declared = specs[0][1]
    meanings = _meanings(specs)
    shared = len(meanings) == 1
    lines = ["Cases", "^^^^^", "",
             "%d case(s), in run order; the family's ``ORDER`` on the "
             "page is %s.  The count axes are open: ``--param`` takes any "
             "count." % (len(specs), declared.order), ""]
    if shared:
        lines += ["A value, for every case: %s." % _escape(meanings[0]), ""]
        header, widths = ["case", "driver", "what it runs",
                          "axes (default; quick)"], [22, 10, 34, 34]
    else:
        header, widths = ["case", "driver", "what it runs", "a value is",
                          "axes (default; quick)"], [18, 8, 25, 22, 27]
    lines += _list_table("", header, _case_rows(specs, shared), widths)
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
        family = self.arguments[0]
        text = "\n".join(family_rst(family))
        # An incremental build re-reads the page when the family's module
        # (or this renderer) changes, so the page cannot go stale.
        for path in _source_files(family) + [__file__]:
            self.env.note_dependency(os.path.abspath(path))
        if "debug" in self.options:
            print(text)
        return self.parse_text_to_nodes(text, allow_section_headings=True)


def setup(app):
    app.add_directive("gilbench-family", FamilyDirective)
    return {"version": "1", "parallel_read_safe": True,
            "parallel_write_safe": True}
