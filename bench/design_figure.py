"""Wall time against A/A coverage, per design: the figure of
docs/reading.rst ("How much each answer is measured").

Usage: python bench/design_figure.py OUT.svg NAME=FIGURES.json ...

Each FIGURES.json is what ``bench/design_time.py --json`` wrote for one
interpreter (and selection); NAME labels its points (e.g. ``3.11``,
``3.13t``, ``3.11 quick``).  Every design it measured is a point: the
median wall time of its runs, and the share of re-run points inside the
other runs' 95% intervals (derived cells and means) -- for the adaptive
design with and without the report's correction for looks.  Also prints
the points as a table.
"""
from __future__ import print_function

import json
import statistics
import sys

MARKERS = {"fixed": "s", "adaptive": "o", "adaptive, uncorrected": "^"}


def points(name, figures):
    """[(label, design, seconds, coverage)] of one design_time JSON."""
    found = []
    for design, covered in figures["coverage"].items():
        walls = figures["walls"].get(design.split(",")[0], [])
        if walls and covered["overall"] is not None:
            found.append(("%s %s" % (name, design), design,
                          statistics.median(walls), covered["overall"]))
    return found


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot
    figure, axes = pyplot.subplots(figsize=(6.4, 4.0))
    for item in argv[1:]:
        name, _, path = item.partition("=")
        with open(path) as stream:
            for label, design, seconds, coverage in points(
                    name, json.load(stream)):
                print("%-30s %6.0f s  %5.1f%%" % (label, seconds,
                                                  100 * coverage))
                axes.scatter([seconds], [100 * coverage],
                             marker=MARKERS.get(design, "x"), color="k")
                axes.annotate(label, (seconds, 100 * coverage),
                              textcoords="offset points", xytext=(5, 3),
                              fontsize=7)
    axes.axhline(83, linestyle="--", color="grey", linewidth=0.8)
    axes.set_xlabel("wall time of a run (median, s)")
    axes.set_ylabel("re-run points inside the 95% intervals (%)")
    figure.tight_layout()
    figure.savefig(argv[0], metadata={"Date": None})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
