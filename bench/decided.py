"""How many answers decide something, and how wide their intervals are.

Usage: python bench/decided.py FILE_OR_DIR... [--json FILE]

Reads result files as ``gilbench report`` does and counts, over the
findings' answers that compare something (ratios, speedups,
efficiencies, best-ofs, builds; n/a answers, throughputs, crossovers
and fits left out), those decided: above or below their reference (a
best-of's winner), or the same within the margin (a best-of's tie).  Per
family, per kind, per interpreter and per family on each interpreter
(the matrix a step's note gives before and after); and the quartiles of the
intervals' high end over their low end.  What issue #64 measures the main
job by; run it with a Python that has gilbench's report side.
"""
import argparse
import json
import statistics

COMPARING = ("ratio", "speedup", "efficiency", "best", "builds")


def answers(paths):
    """[(family, kind, interpreter, Cell)] of the comparing answers."""
    from gilbench.report.data import loader
    from gilbench.report.tables import pivot, questions
    results = loader.load_results(paths)
    table = questions.findings_table(results, pivot.family_order(results))
    found = []
    for row in table.rows:
        kind = row.declaration["cell"]["kind"]
        if kind not in COMPARING:
            continue
        for interpreter, cell in zip(table.interpreters, row.answers):
            if not cell.missing:
                found.append((row.family, kind, interpreter, cell))
    return found


def decided(cell):
    return bool(cell.significant) or cell.same is not None


def tally(found, key):
    counts = {}
    for item in found:
        pair = counts.setdefault(key(item), [0, 0])
        pair[0] += decided(item[3])
        pair[1] += 1
    return counts


def widths(found):
    """The high end over the low end of each positive interval."""
    return sorted(cell.interval[1] / cell.interval[0]
                  for _, _, _, cell in found
                  if cell.interval and cell.interval[0] > 0)


def summary(found):
    spans = widths(found)
    quartiles = (statistics.quantiles(spans, n=4) if len(spans) > 1
                 else spans * 3)
    return {"decided": sum(decided(item[3]) for item in found),
            "answers": len(found),
            "by_family": tally(found, lambda item: item[0]),
            "by_kind": tally(found, lambda item: item[1]),
            "by_interpreter": tally(found, lambda item: item[2]),
            "by_family_interpreter": dict(
                (family, tally([item for item in found
                                if item[0] == family], lambda item: item[2]))
                for family in sorted(set(item[0] for item in found))),
            "width_quartiles": [round(q, 3) for q in quartiles]}


def lines(said):
    def share(pair):
        return "%d of %d (%d%%)" % (pair[0], pair[1],
                                    round(100.0 * pair[0] / pair[1])
                                    if pair[1] else 0)
    out = ["decided: %s" % share([said["decided"], said["answers"]]),
           "interval high/low, quartiles: %s" % ", ".join(
               "%.2f" % q for q in said["width_quartiles"])]
    for title in ("by_family", "by_kind", "by_interpreter"):
        out.append(title.replace("_", " ") + ":")
        out.extend("  %-28s %s" % (name, share(pair))
                   for name, pair in sorted(said[title].items()))
    out.append("by family and interpreter (decided/answers):")
    interpreters = sorted(said["by_interpreter"])
    out.append("  %-22s %s" % ("", " ".join(
        "%-9s" % short(name) for name in interpreters)))
    for family, row in sorted(said["by_family_interpreter"].items()):
        out.append("  %-22s %s" % (family[:22], " ".join(
            "%-9s" % ("%d/%d" % tuple(row[name]) if name in row else "-")
            for name in interpreters)))
    return out


def short(interpreter):
    """A column's label: "3.13t+G" for "CPython 3.13t (GIL on)"."""
    return interpreter.replace("CPython ", "").replace(
        " (GIL on)", "+G").replace("PyPy ", "pp")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", metavar="FILE_OR_DIR")
    parser.add_argument("--json", metavar="FILE",
                        help="also write the counts here")
    args = parser.parse_args()
    said = summary(answers(args.paths))
    for line in lines(said):
        print(line)
    if args.json:
        with open(args.json, "w") as stream:
            json.dump(said, stream, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
