"""Each family's block-shift prior, fitted on A/A runs.

Usage: python bench/fit_shift_prior.py [--runs DIR]... [--check]

Each ``--runs`` directory (default: every directory under
bench/aa_shifts/) holds result files of default runs.  Each file is
fitted as the report fits it (gilbench.report.numbers.variance), without
a prior: per family, its blocks' shifts give a standard deviation with
(blocks - 1) degrees of freedom -- one from a first look's two blocks.
Per family, those are pooled over the files: the variance is their mean
weighted by degrees of freedom, and the degrees of freedom add up.  That
is the prior the report moderates each file's own shift spread with
(variance.moderated_shift), as limma moderates a residual variance by
its family's.

Prints each file's shift spread per family, then the pooled prior as
gilbench.report.numbers.variance.SHIFT_PRIOR holds it.  ``--check``:
exit 1 where SHIFT_PRIOR is not this fit (sd rounded to ROUNDED): the
prior in the report is this script's output on the files kept here, not
chosen by hand.  bench/aa_shifts/3.11 and bench/aa_shifts/3.13t: three
default runs each at 3181bea (the main job's adaptive design, its judge
and duets), 2026-12-01 03:50-04:01 UTC, this project's 2-core VM.  Its
coverage is checked on other runs (out of sample: bench/coverage.py on
A/A runs made after them; docs/reading.rst gives the figures).
"""
import argparse
import glob
import math
import os
import sys

from gilbench.report.data import loader
from gilbench.report.numbers import variance

HERE = os.path.dirname(os.path.abspath(__file__))
KEPT = os.path.join(HERE, "aa_shifts")
# What SHIFT_PRIOR keeps of a fitted standard deviation (log terms).
ROUNDED = 0.0001


def files_in(folders):
    found = []
    for folder in folders:
        found += sorted(glob.glob(os.path.join(folder, "*.json"))
                        + glob.glob(os.path.join(folder, "*.json.gz")))
    return found


def shift_spreads(path):
    """{family: (sd, df)} of one file's block shifts, without a prior."""
    result = loader.load_results([path])[0]
    found = {}
    fitted = variance.fit(result.records, split=lambda record: record.split,
                          shift_priors={})
    for record in result.records:
        spread = fitted.get(variance.identity(record))
        if spread is not None and spread.shift_df:
            found[record.dims.get("family")] = (spread.shift_sd,
                                                spread.shift_df)
    return found


def fit(paths):
    """({family: (sd, df)} pooled over ``paths``, unrounded; {path: that
    file's})."""
    each = dict((path, shift_spreads(path)) for path in paths)
    sums = {}
    for spreads in each.values():
        for family, (sd, df) in spreads.items():
            total = sums.setdefault(family, [0.0, 0])
            total[0] += df * sd * sd
            total[1] += df
    prior = dict((family, (math.sqrt(squares / df), df))
                 for family, (squares, df) in sorted(sums.items()))
    return prior, each


def rounded(prior):
    return dict((family, (round(round(sd / ROUNDED) * ROUNDED, 6), df))
                for family, (sd, df) in prior.items())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", action="append", default=[],
                        metavar="DIR")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 where variance.SHIFT_PRIOR is not "
                        "this fit")
    args = parser.parse_args()
    folders = args.runs or sorted(
        path for path in glob.glob(os.path.join(KEPT, "*"))
        if os.path.isdir(path))
    prior, each = fit(files_in(folders))
    for path, spreads in sorted(each.items()):
        for family, (sd, df) in sorted(spreads.items()):
            print("%s %-10s shift sd %.4f, %d df" % (
                os.path.relpath(path, HERE), family, sd, df))
    prior = rounded(prior)
    print("SHIFT_PRIOR = %r" % (prior,))
    if args.check and prior != rounded(variance.SHIFT_PRIOR):
        print("variance.SHIFT_PRIOR is not this fit: %r"
              % (variance.SHIFT_PRIOR,), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
