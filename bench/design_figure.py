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
    from matplotlib.lines import Line2D
    figure, axes = pyplot.subplots(figsize=(6.4, 4.0))
    # Points crowd where designs cost alike: colour names the selection,
    # the marker the design, and a legend says which (no labels to overlap).
    names = []
    for index, item in enumerate(argv[1:]):
        name, _, path = item.partition("=")
        colour = "C%d" % index
        names.append(Line2D([], [], color=colour, marker="o",
                            linestyle="", label=name))
        with open(path) as stream:
            for label, design, seconds, coverage in points(
                    name, json.load(stream)):
                print("%-30s %6.0f s  %5.1f%%" % (label, seconds,
                                                  100 * coverage))
                axes.scatter([seconds], [100 * coverage],
                             marker=MARKERS.get(design, "x"), color=colour,
                             facecolors=("none" if "uncorrected" in design
                                         else colour))
    designs = [Line2D([], [], color="k", marker=marker, linestyle="",
                      markerfacecolor=("none" if "uncorrected" in design
                                       else "k"), label=design)
               for design, marker in MARKERS.items()]
    axes.legend(handles=names + designs, fontsize=7, loc="center right")
    axes.set_ylim(80, 100)
    axes.axhline(83, linestyle="--", color="grey", linewidth=0.8)
    axes.set_xlabel("wall time of a run (median, s)")
    axes.set_ylabel("re-run points inside the 95% intervals (%)")
    figure.tight_layout()
    figure.savefig(argv[0], metadata={"Date": None})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
