"""``gilbench compare BASE CHANGED``: did a change make each
benchmark of a matrix faster or slower, and is that real?

Benchmarks are paired by their dimensions (name parts and axes, read from
metadata); files by interpreter label when a side holds several.  The
change is pyperf's normalized mean (changed mean / base mean), and the
geometric mean per family is pyperf's too.  Significance is tested on
worker processes, not values (see SIGNIFICANCE): values of one process
are not independent draws, and testing them as if they were called 28%
of an A/A pair's benchmarks significant.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

import numpy

from gilbench.errors import OneLineErrorParser, UsageError
from gilbench.measure import pyperfinternals
from gilbench.report.commands import compare_answers, compare_scaling
from gilbench.report.data import loader, sides
from gilbench.report.data.lookup import identity
from gilbench.report.data.records import Cell, Table, label
from gilbench.report.kinds.base import ratio_interval
from gilbench.report.numbers import cells, intervals
from gilbench.report.pages import render
from gilbench.report.pages.output import (
    add_output_options,
    emit,
    output_format,
)

ALPHA = 0.05
# --fail-changed-answers where a busy machine hides the answer: neither
# a pass nor a fall, so a workflow can tell it from both (and re-run).
EXIT_CANNOT_TELL = 3
SIGNIFICANCE = (
    "Significant: Welch's t-test (scipy.stats.ttest_ind) on the means of "
    "each side's worker processes (a side with one process: Student's "
    "t-test on its values, as pyperf does), then Benjamini-Hochberg over "
    "every benchmark of this comparison (scipy.stats.false_discovery_"
    "control): 'yes' where the adjusted p (q) is below %g.  With pyperf's "
    "default of 2 processes a side only a change well beyond the "
    "process-to-process spread is called; run with more processes (-p N) "
    "for a sharper test.  Untested changes never fail --fail-above."
    % ALPHA)


@dataclass
class Change:
    family: str
    name: str
    base: object  # Record or None (only in the other side)
    changed: object
    norm: float | None = None  # changed mean / base mean
    significant: bool | None = None  # None: untested
    t_score: float | None = None
    p: float | None = None  # the t-test's, before adjustment
    q: float | None = None  # p adjusted over the whole comparison
    untested: str = ""  # why the t-test was not run
    pair: str = ""  # which files: "CPython 3.12" or "A -> B"

    @property
    def percent(self):
        return (self.norm - 1.0) * 100.0

    @property
    def slower(self):
        return self.significant and self.norm > 1.0

    @property
    def faster(self):
        return self.significant and self.norm < 1.0


def _samples(record):
    """The means of the record's worker processes, or its values when it
    has one process (or was written without runs); and which they are."""
    runs = [run for run in record.run_values if run]
    if len(runs) >= 2:
        return [sum(run) / len(run) for run in runs], "processes"
    return list(record.values), "values"


def t_test(base, changed):
    """(t score, p, why untested) of changed against base."""
    from scipy import stats
    (before, unit), (after, other) = _samples(base), _samples(changed)
    if unit != other:
        unit = "values"
        before, after = list(base.values), list(changed.values)
    if len(before) < 2 or len(after) < 2:
        return None, None, "untested: one value"
    # Welch's test for process means (their spread may differ between
    # sides); Student's for values, pyperf's own choice.
    t_score, p = stats.ttest_ind(after, before,
                                 equal_var=(unit == "values"))
    if not numpy.isfinite(p):
        return None, None, "untested: no spread"
    return float(t_score), float(p), ""


def adjust(found):
    """Benjamini-Hochberg over the tested changes of one comparison:
    sets each one's q and whether it is significant."""
    from scipy import stats
    tested = [c for c in found if c.p is not None]
    if not tested:
        return
    for change, q in zip(tested, stats.false_discovery_control(
            [c.p for c in tested])):
        change.q = float(q)
        change.significant = bool(q < ALPHA)


def changes(base_file, changed_file):
    """A Change per benchmark in either file, base order first."""
    found = {}
    for side, result in (("base", base_file), ("changed", changed_file)):
        for record in result.records:
            slot = found.setdefault(identity(record), {})
            if side not in slot or record.measured:
                slot[side] = record
    result = []
    for slot in found.values():
        base, changed = slot.get("base"), slot.get("changed")
        some = base or changed
        change = Change(some.dims["family"], some.name, base, changed,
                        pair=_pair_label(base_file, changed_file))
        if base and changed and base.measured and changed.measured \
                and base.unit == changed.unit and base.mean > 0:
            change.norm = changed.mean / base.mean
            change.t_score, change.p, change.untested = t_test(base,
                                                               changed)
        result.append(change)
    return result


def pair_files(base, changed):
    """[(base file, changed file)]: the only file of each side, else the
    files whose interpreter labels match."""
    if len(base) == 1 and len(changed) == 1:
        return [(base[0], changed[0])]
    by_label = {r.interpreter: r for r in changed}
    pairs = [(r, by_label[r.interpreter]) for r in base
             if r.interpreter in by_label]
    if not pairs:
        raise UsageError(
            "no interpreter in common: base has %s; changed has %s" % (
                ", ".join(r.interpreter for r in base),
                ", ".join(r.interpreter for r in changed)))
    return pairs


def _side(record, other_reason):
    if record is None:
        return cells.missing(other_reason)
    if not record.measured:
        return cells.missing(record.reason)
    return cells.raw(record)


def _change_cell(change):
    """The change with the bootstrap interval of changed / base mean as
    percentages; flagged not significant (?) when that interval holds 0%
    (the significant column is the t-test, which --fail-above uses)."""
    format_normalized_mean, _ = pyperfinternals.compare_helpers()
    if change.norm is None:
        return cells.missing("n/a: not measured on both sides")
    interval = ratio_interval(change.changed, change.base)
    text = cells.spaced(cells.percent_change(change.norm, interval),
                        "(%s)" % format_normalized_mean(change.norm))
    significant = intervals.excludes(interval)
    return Cell(text, change.norm, interval=interval,
                significant=significant,
                flags=cells.flags(change.base, change.changed,
                                  significant=significant))


def _significance_cell(change):
    if change.norm is None:
        return label("")
    if change.significant is None:
        return label(change.untested)
    return label("%s (t=%.2f, q=%s)" % (
        "yes" if change.significant else "no", change.t_score,
        cells.significant(change.q, 2)))


def _pair_label(base_file, changed_file):
    if base_file.interpreter == changed_file.interpreter:
        return base_file.interpreter
    return "%s -> %s" % (base_file.interpreter, changed_file.interpreter)


def family_table(family, base_file, changed_file, family_changes):
    rows = [[label(c.name), _side(c.base, "n/a: not in base"),
             _side(c.changed, "n/a: not in changed"), _change_cell(c),
             _significance_cell(c)] for c in family_changes]
    return Table(
        title="%s: %s" % (family, _pair_label(base_file, changed_file)),
        note="Change: changed mean / base mean - 1 (pyperf's normalized "
        "mean); + is slower; in brackets its 95%% confidence interval, by "
        "%s (? where it holds 0%%)." % intervals.METHOD,
        header=[label(h) for h in (
            "Benchmark", "base: " + base_file.interpreter,
            "changed: " + changed_file.interpreter, "change",
            "significant")],
        rows=rows, family=family, shaded=True)


def _summary_row(pair_label, family, family_changes):
    format_normalized_mean, geometric_mean = pyperfinternals.compare_helpers()
    norms = [c.norm for c in family_changes if c.norm is not None]
    slower = [c for c in family_changes if c.slower]
    faster = [c for c in family_changes if c.faster]
    worst = max(slower, key=lambda c: c.norm, default=None)
    if norms:
        mean = geometric_mean(norms)
        geo = Cell("%+.1f%% (%s)" % ((mean - 1) * 100,
                                      format_normalized_mean(mean)), mean)
    else:
        geo = cells.missing("n/a: nothing measured on both sides")
    return [label(pair_label), label(family), label(len(norms)), geo,
            label(len(slower)), label(len(faster)),
            label("%s (%+.1f%%)" % (worst.name, worst.percent)
                  if worst else "-")]


def summary_table(rows):
    return Table(
        title="Summary", note="Geometric mean of the changes of the "
        "benchmarks measured on both sides (pyperf's geometric_mean), and "
        "how many changed significantly.",
        header=[label(h) for h in (
            "Interpreter", "Family", "Benchmarks", "Geometric mean",
            "Significantly slower", "Significantly faster",
            "Largest significant slowdown")],
        rows=rows, family="Summary", shaded=True)


@dataclass
class Comparison:
    tables: list
    changes: list
    intro: list
    scaling: list = field(default_factory=list)  # ScalingChanges
    answers: list = field(default_factory=list)  # ChangedAnswers
    # Scaling answers a busy machine hides (compare_answers.cannot_tell)
    blind: list = field(default_factory=list)


def compare(base_paths, changed_paths, split=None):
    """The Comparison of two sets of result files; or, with ``split``
    (sides.parse's), of each file of ``base_paths`` at one value of a
    dimension against the other (``changed_paths`` unused)."""
    if split is None:
        base = loader.load_results(base_paths)
        changed = loader.load_results(changed_paths)
        pairs = pair_files(base, changed)
    else:
        pairs = [sides.split(result, *split)
                 for result in loader.load_results(base_paths)]
        base, changed = [b for b, _ in pairs], [c for _, c in pairs]
    found = [(base_file, changed_file, changes(base_file, changed_file),
              compare_scaling.changes(base_file, changed_file,
                                      _pair_label(base_file, changed_file)))
             for base_file, changed_file in pairs]
    every = [c for _, _, time_changes, _ in found for c in time_changes]
    scaling = [c for _, _, _, curves in found for c in curves]
    # Significance is decided over the whole comparison before any table.
    adjust(every)
    compare_scaling.back(scaling, every)
    tables, summary = [], []
    answers, compared, blind = [], 0, []
    for base_file, changed_file in pairs:
        found_answers = compare_answers.changes(
            base_file, changed_file, _pair_label(base_file, changed_file))
        answers += found_answers.changed
        compared += found_answers.compared
        blind += found_answers.blind
    if answers:
        tables.append(compare_answers.table(answers))
    if blind:
        tables.append(compare_answers.table(
            blind, compare_answers.BLIND_TITLE, compare_answers.BLIND_NOTE))
    for base_file, changed_file, time_changes, curves in found:
        pair = _pair_label(base_file, changed_file)
        if curves:
            tables.append(compare_scaling.table(curves, pair))
        for family in sorted({c.family for c in time_changes}):
            of_family = [c for c in time_changes if c.family == family]
            tables.append(family_table(family, base_file, changed_file,
                                       of_family))
            summary.append(_summary_row(pair, family, of_family))
    unpaired = ([r.interpreter for r in base
                 if all(r is not b for b, _ in pairs)]
                + [r.interpreter for r in changed
                   if all(r is not c for _, c in pairs)])
    intro = ["Base: %s. Changed: %s." % (
        ", ".join(r.interpreter for r in base),
        ", ".join(r.interpreter for r in changed)), SIGNIFICANCE]
    if unpaired:
        intro.append("Without a partner (not compared): %s."
                     % ", ".join(unpaired))
    intro.append("Answers changed: %d of the %d findings both sides "
                 "answer%s." % (len(answers), compared,
                                " (table below)" if answers else ""))
    if blind:
        intro.append("Cannot tell: %d speedup or efficiency answer(s) "
                     "measured on a busy machine (!; table below)."
                     % len(blind))
    return Comparison([summary_table(summary)] + tables, every, intro,
                      scaling, answers, blind)


def slowdowns_above(comparison, percent):
    return [c for c in comparison.changes
            if c.slower and c.percent > percent]


def render_comparison(comparison, fmt):
    return render.render_tables(comparison.tables, fmt, "gilbench compare",
                                comparison.intro)


def _parser():
    parser = OneLineErrorParser(
        prog="gilbench compare",
        description="Compare two sets of result JSON (format 2): each "
        "benchmark's change and whether pyperf finds it significant, and "
        "the geometric mean per family.")
    parser.add_argument("base", metavar="BASE",
                        help="result JSON file or directory (before)")
    parser.add_argument("changed", metavar="CHANGED", nargs="?",
                        help="result JSON file or directory (after; none "
                        "with --sides)")
    parser.add_argument("--sides", metavar="DIM=BASE,CHANGED",
                        help="compare within each file of BASE: its "
                        "benchmarks whose dimension DIM is BASE against "
                        "those where it is CHANGED, measured in one run "
                        "(gilbench continuous: revision=base,head)")
    add_output_options(parser)
    parser.add_argument("--fail-above", type=float, metavar="PCT",
                        help="exit 1 when a significant slowdown exceeds "
                        "PCT percent")
    parser.add_argument("--fail-efficiency-drop", type=float, metavar="PCT",
                        help="exit 1 when a scaling curve's efficiency at "
                        "its largest common count drops by more than PCT "
                        "percent and the drop is significant")
    parser.add_argument("--fail-changed-answers", action="store_true",
                        help="exit 1 when a speedup or efficiency answer "
                        "fell beyond its margin (its change's interval "
                        "wholly below it), or an answer became n/a; each "
                        "is named on stderr (other changed answers are "
                        "listed in the output, not failed); exit 3, "
                        "naming each, when a speedup or efficiency was "
                        "measured on a busy machine (!) and did not fall: "
                        "the check cannot tell")
    return parser


def main(argv):
    args = _parser().parse_args(argv)
    for option in ("fail_above", "fail_efficiency_drop"):
        value = getattr(args, option)
        if value is not None and not value >= 0:
            raise UsageError("--%s must be 0 or more (a percentage)"
                             % option.replace("_", "-"))
    if (args.changed is None) == (args.sides is None):
        raise UsageError("give CHANGED, or --sides DIM=BASE,CHANGED to "
                         "compare within BASE (not both)")
    split = sides.parse(args.sides) if args.sides is not None else None
    fmt = output_format(args)
    comparison = compare([args.base], [args.changed], split)
    emit(render_comparison(comparison, fmt), fmt, args.output)
    status = 0
    if args.fail_changed_answers:
        status = _gate_answers(comparison)
    if args.fail_efficiency_drop is not None:
        status = _gate_scaling(comparison, args.fail_efficiency_drop) or status
    if args.fail_above is None:
        return status
    worse = slowdowns_above(comparison, args.fail_above)
    if worse:
        worse.sort(key=lambda c: -c.norm)
        named = ", ".join("%s [%s] %+.1f%%" % (c.name, c.pair, c.percent)
                          for c in worse[:3])
        more = " and %d more" % (len(worse) - 3) if len(worse) > 3 else ""
        print("gilbench: %d significant slowdown(s) above %g%%: %s%s"
              % (len(worse), args.fail_above, named, more), file=sys.stderr)
        return 1
    return status


def _gate_answers(comparison):
    """1, and a line naming each, when answers scale worse beyond their
    margins or became n/a (compare_answers.stopped_scaling); else
    EXIT_CANNOT_TELL, naming each, when a busy machine hides whether
    some did (compare_answers.cannot_tell); else 0."""
    moved = [a for a in comparison.answers
             if compare_answers.stopped_scaling(a)]
    if moved:
        print("gilbench: %d answer(s) scale worse beyond their margin, or "
              "became n/a:" % len(moved), file=sys.stderr)
        for found in moved:
            print("  " + compare_answers.said(found), file=sys.stderr)
    if comparison.blind:
        print("gilbench: cannot tell whether %d answer(s) scale worse: "
              "measured on a busy machine (!), run the check again:"
              % len(comparison.blind), file=sys.stderr)
        for found in comparison.blind:
            print("  " + compare_answers.said(found), file=sys.stderr)
    if moved:
        return 1
    return EXIT_CANNOT_TELL if comparison.blind else 0


def _gate_scaling(comparison, percent):
    """1 (and one line naming the worst) when efficiency dropped."""
    worse = compare_scaling.drops_above(comparison.scaling, percent)
    if not worse:
        return 0
    worse.sort(key=lambda c: c.percent)
    named = ", ".join("%s: %s at N=%s %+.1f%%" % (
        c.family, c.curve, cells.significant(c.count), c.percent)
        for c in worse[:3])
    more = " and %d more" % (len(worse) - 3) if len(worse) > 3 else ""
    print("gilbench: %d significant efficiency drop(s) above %g%%: %s%s"
          % (len(worse), percent, named, more), file=sys.stderr)
    return 1
