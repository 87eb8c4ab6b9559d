"""How many of a reference run's decided answers other runs decide the
same way, and how many they contradict.

Usage: python bench/against_reference.py REFERENCE.json RUN.json...

REFERENCE is a run with many processes (``--design fixed -p 10``;
``bench/design_time.py --reference`` makes one beside its runs).  Its
answers that compare something (bench/decided.py's) and are decided --
above, below or the same within the margin -- are looked up in each RUN
(the same question, the same interpreter): decided the same way, left
undecided, or contradicted (decided another way: above against below or
"the same").  Per run and per family.  Issue #64 asks that each default
run decide at least 95% of the reference's decided answers the same way.
Run it with a Python that has gilbench's report side.
"""
from __future__ import print_function

import argparse

from coverage import side
from decided import COMPARING, decided


def comparing_answers(path):
    """{(family, question): Cell} of ``path``'s comparing answers (its
    one interpreter's column), n/a left out."""
    from gilbench.report.data import loader
    from gilbench.report.tables import pivot, questions
    results = loader.load_results([path])
    table = questions.findings_table(results, pivot.family_order(results))
    found = {}
    for row in table.rows:
        if row.declaration["cell"]["kind"] not in COMPARING:
            continue
        cell = row.answers[0]
        if not cell.missing:
            found[(row.family, row.question)] = cell
    return found


def against_reference(reference, path, families=None):
    """(the reference's decided answers, of them decided the same way in
    ``path``, contradicted there); ``families``, if given a dict, gets
    the same three counts per family."""
    theirs = comparing_answers(reference)
    ours = comparing_answers(path)
    totals = [0, 0, 0]
    for key, answer in theirs.items():
        if not decided(answer):
            continue
        counts = ([totals] if families is None else
                  [totals, families.setdefault(key[0], [0, 0, 0])])
        mine = ours.get(key)
        verdict = None
        if mine is not None and decided(mine):
            verdict = 1 if side(mine) == side(answer) else 2
        for count in counts:
            count[0] += 1
            if verdict is not None:
                count[verdict] += 1
    return tuple(totals)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference")
    parser.add_argument("runs", nargs="+", metavar="RUN")
    args = parser.parse_args()
    for path in args.runs:
        families = {}
        decided_there, same, contradicted = against_reference(
            args.reference, path, families)
        print("%s: %d of the reference's %d decided answers decided the "
              "same way (%.0f%%), %d contradicted" % (
                  path, same, decided_there,
                  100.0 * same / max(decided_there, 1), contradicted))
        for family, (count, alike, against) in sorted(families.items()):
            print("  %-10s %d of %d, %d contradicted" % (
                family, alike, count, against))


if __name__ == "__main__":
    main()
