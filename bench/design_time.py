"""The adaptive design against the fixed recipe: wall time and interval
coverage, on one interpreter, in one sitting.

Usage: python bench/design_time.py [--python PATH] [--runs 3]
           [--runs-dir DIR] [--reference] [--json FILE] [-- RUN OPTIONS...]

Runs ``gilbench run`` with ``--design fixed`` and with the default
adaptive design, interleaved (fixed, adaptive, adaptive, fixed, ...: the
machine's drift over the sitting falls on both alike), ``--runs`` of each
(every family by default; RUN OPTIONS select).  Prints each run's wall
time, the adaptive runs' time over the fixed ones' (pair by pair, and
the medians), each design's time per family (the benchmarks' own
``gilbench_seconds``), and for each design the share of re-run points
inside the other runs' 95% intervals (bench/coverage.py's count), per
family -- the adaptive design's with and without the report's correction
for looks.  With ``--reference``, one more run of ``--design fixed -p
10`` is the reference: how many of its decided answers each run (adaptive
and fixed) decides the same way, and how many it contradicts
(bench/against_reference.py).  Run it with a Python that has gilbench's
report side (the tests' env); ``--python`` is the interpreter measured
(it needs gilbench).  That Python also judges the adaptive runs'
findings between their rounds, as the main job's report env does
(GILBENCH_JUDGE_PYTHON overrides it).
The result files stay in ``--runs-dir`` (a run already there is reused).
"""
from __future__ import print_function

import itertools
import json
import os
import statistics
import subprocess
import sys
import time

from aa_noise import runs_directory, series_parser
from against_reference import against_reference
from coverage import compare_pair, derived_cells

FIXED, ADAPTIVE = "fixed", "adaptive"


def judged_environment():
    """This environment, with this script's Python judging the rounds'
    findings unless GILBENCH_JUDGE_PYTHON says otherwise: as the main job
    does (tools/matrix.sh), where the measured interpreter has no report
    side."""
    environment = dict(os.environ)
    environment.setdefault("GILBENCH_JUDGE_PYTHON", sys.executable)
    return environment


def run(python, output, options):
    """Run into ``output`` unless it is there; its wall seconds (None for
    a reused run, whose time was printed when it ran)."""
    if os.path.exists(output):
        return None
    started = time.time()
    done = subprocess.run([python, "-m", "gilbench", "run", "-o", output,
                           "-q"] + list(options), capture_output=True,
                          text=True, env=judged_environment())
    if done.returncode != 0:  # a failed benchmark costs only its result
        print("%s: exit code %d: %s" % (output, done.returncode,
                                         done.stderr.strip()[-300:]))
        if not os.path.exists(output):
            raise SystemExit(1)
    return time.time() - started


def family_seconds(path):
    """{family: its benchmarks' gilbench_seconds, summed}."""
    from gilbench.model.resultformat import SECONDS_KEY
    from gilbench.report.data import loader
    found = {}
    for record in loader.load_results([path])[0].records:
        if record.measured:
            family = record.dims.get("family")
            found[family] = found.get(family, 0.0) + record.recorded.get(
                SECONDS_KEY, 0.0)
    return found


def coverage(paths, correct_looks=True):
    """({family: [inside, cells]} over derived cells and means, overall
    share, contradictions) over every ordered pair of ``paths``."""
    from gilbench.report.numbers import intervals
    resampler = intervals.Resampler(correct_looks=correct_looks)
    with intervals.resampling(resampler):
        derived = [derived_cells(path) for path in paths]
    tally, held, shared, contradictions = {}, 0, 0, []
    for first, second in itertools.permutations(derived, 2):
        cells, inside, contradicted = compare_pair(first, second, tally)
        held += inside
        shared += cells
        contradictions += contradicted
    families = {}
    for (family, _), (hit, cells) in tally.items():
        found = families.setdefault(family, [0, 0])
        found[0] += hit
        found[1] += cells
    return families, float(held) / shared if shared else None, contradictions


def _percent(pair):
    return "%3.0f%%" % (100.0 * pair[0] / pair[1]) if pair[1] else "  - "


def main():
    parser = series_parser(__doc__, runs=3)
    parser.add_argument("--reference", action="store_true")
    args = parser.parse_args()
    if args.runs < 2:
        parser.error("--runs must be 2 or more")
    directory = runs_directory(args.runs_dir, "gilbench-design-")
    order = [(FIXED, ADAPTIVE), (ADAPTIVE, FIXED)]
    paths = {FIXED: [], ADAPTIVE: []}
    walls = {FIXED: [], ADAPTIVE: []}
    for index in range(args.runs):
        for design in order[index % 2]:
            path = os.path.join(directory, "%s%d.json" % (design, index))
            wall = run(args.python, path, ["--design", design]
                       + list(args.run_options))
            if wall is not None:
                print("%s %d: %.0f s" % (design, index, wall))
                walls[design].append(wall)
            paths[design].append(path)
    figures = {"walls": walls}
    if walls[FIXED] and len(walls[FIXED]) == len(walls[ADAPTIVE]):
        ratios = [a / f for a, f in zip(walls[ADAPTIVE], walls[FIXED])]
        figures["ratios"] = ratios
        print("adaptive / fixed wall time, pair by pair: %s; medians "
              "%.0f s / %.0f s = %.2f" % (
                  ", ".join("%.2f" % r for r in ratios),
                  statistics.median(walls[ADAPTIVE]),
                  statistics.median(walls[FIXED]),
                  statistics.median(walls[ADAPTIVE])
                  / statistics.median(walls[FIXED])))
    seconds = dict((design, [family_seconds(p) for p in paths[design]])
                   for design in paths)
    families = sorted(set(f for runs in seconds.values() for found in runs
                          for f in found))
    print("median seconds per family (the benchmarks' own):")
    for family in families:
        print("  %-10s fixed %6.1f  adaptive %6.1f" % (family, *[
            statistics.median(found.get(family, 0.0)
                              for found in seconds[design])
            for design in (FIXED, ADAPTIVE)]))
    figures["family_seconds"] = seconds
    covered = {FIXED: coverage(paths[FIXED]),
               ADAPTIVE: coverage(paths[ADAPTIVE]),
               "adaptive, uncorrected": coverage(paths[ADAPTIVE], False)}
    print("re-run points inside the other runs' 95% intervals:")
    print("  %-10s %s" % ("family", "  ".join(
        "%-22s" % name for name in covered)))
    for family in families:
        print("  %-10s %s" % (family, "  ".join(
            "%-22s" % _percent(covered[name][0].get(family, (0, 0)))
            for name in covered)))
    for name, (_, overall, contradictions) in covered.items():
        print("  %s: %.0f%% overall, %d contradicting findings" % (
            name, 100 * (overall or 0), len(contradictions)))
        figures.setdefault("coverage", {})[name] = {
            "overall": overall, "contradictions": contradictions,
            "families": covered[name][0]}
    if args.reference:
        reference = os.path.join(directory, "reference.json")
        wall = run(args.python, reference, ["--design", FIXED, "-p", "10"]
                   + list(args.run_options))
        if wall is not None:
            print("reference (fixed, 10 processes): %.0f s" % wall)
        figures["reference"] = []
        # The fixed runs too: what the recipe decides in twice the time.
        for path in paths[ADAPTIVE] + paths[FIXED]:
            decided, same, contradicted = against_reference(reference, path)
            figures["reference"].append([os.path.basename(path), decided,
                                         same, contradicted])
            print("%s: %d of the reference's %d decided answers decided "
                  "the same way (%.0f%%), %d contradicted" % (
                      os.path.basename(path), same, decided,
                      100.0 * same / decided if decided else 0,
                      contradicted))
    if args.json:
        with open(args.json, "w") as stream:
            json.dump(figures, stream, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
