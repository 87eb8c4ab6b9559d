"""The page's tables made on two CPUs: for the text pages, whose one
process otherwise makes them all while the second CPU waits.

The declared tables of the families at the end of the page (about half
of the cells, by each family's benchmarks times its declarations) are
made in a forked child (gilbench.report.twocpus) while this process
makes the others and the listings; the child sends back its tables
(pickled) and nothing else.
A cell is the same wherever it is computed (each benchmark's draws are
seeded from its own identity), so the page is what pivot.all_tables
makes.  The child shares, on purpose, the loaded results and imported
modules; the draws it makes are its own (the findings, computed here
afterwards, draw those families' again).
"""
from __future__ import annotations

from gilbench.report import twocpus
from gilbench.report.tables import pivot

# Below this many benchmarks (over all files), forking costs more than
# the half it saves.
SPLIT_FROM = 1000


def all_tables(results):
    """pivot.all_tables(results), made on two CPUs when there are many
    benchmarks (else here, as pivot makes them)."""
    families = pivot.declared_families(results)
    if sum(len(result.records) for result in results) < SPLIT_FROM:
        return pivot.all_tables(results)
    first, second = halves(results, families)
    if not second:
        return pivot.all_tables(results)
    tables, later = twocpus.alongside(
        lambda: pivot.family_declared_tables(results, first),
        lambda: pivot.family_declared_tables(results, second))
    return tables + later + pivot.other_tables(results)


def halves(results, families):
    """(first families, the rest): cut where the work before it, by each
    family's benchmarks times its declarations, is nearest half."""
    declared = pivot.declarations(results)
    records = {}
    for result in results:
        for record in result.records:
            family = record.dims["family"]
            records[family] = records.get(family, 0) + 1
    work = [records.get(f, 0) * len(declared[f][0]) for f in families]
    total, done, cut = sum(work), 0, 0
    for k, one in enumerate(work):
        if abs(done + one - total / 2) < abs(done - total / 2):
            done, cut = done + one, k + 1
        else:
            break
    return families[:cut], families[cut:]
