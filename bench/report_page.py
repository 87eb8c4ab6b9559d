"""What the report's HTML page weighs and what each page costs, rendered
from a results directory (the main job's ``results/``): the page's size,
gzipped size, figures, facets, tables, findings, and the wall time of
whole ``gilbench report`` processes per format, and of one process
writing every format (``-o`` once per format, as the main job does; min /
median / max over ``--repeat`` renders, taking turns).

Usage: python bench/report_page.py results/ [--repeat 3]
       [--formats html,rst,md]

The budget for the main job's thirteen interpreters (#34, #48): at most
about 60 figures, a page under 2 MB, and each format within 8 s on a
2-core machine; the script prints the figures and whether each is within
it, and exits 0 either way (a benchmark reports; CI does not time it).
Time it alone on the machine (the team's lock); bench/wide_results.py
makes thirteen files from three interpreters' when the main job's are
not at hand.
"""
from __future__ import print_function

import argparse
import gzip
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

BUDGET = {"figures": 60, "bytes": 2_000_000, "seconds": 8.0}


def render(results, *outs):
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "gilbench", "report", results]
                   + [part for out in outs for part in ("-o", out)],
                   check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def spread(times):
    return "min %.1f s, median %.1f s, max %.1f s over %d" % (
        min(times), statistics.median(times), max(times), len(times))


def facts(page):
    data = page.encode("utf-8")
    figures = re.findall(r'data-facets="(\d+)"', page)
    section = page.partition('<section id="findings">')[2]
    return {
        "bytes": len(data),
        "gzipped": len(gzip.compress(data)),
        "figures": len(figures),
        "facets": sum(int(n) for n in figures),
        "tables": page.count("<table"),
        "findings": section.partition("</section>")[0].count(
            '<td class="label">'),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--formats", default="html,rst,md",
                        help="comma-separated (default: %(default)s)")
    args = parser.parse_args()
    formats = args.formats.split(",")
    where = tempfile.mkdtemp(prefix="gilbench-page-")
    times = {fmt: [] for fmt in formats + ["all"]}
    for _ in range(args.repeat):
        for fmt in formats:
            times[fmt].append(render(args.results, os.path.join(
                where, "report." + fmt)))
        times["all"].append(render(args.results, *[os.path.join(
            where, "all." + fmt) for fmt in formats]))
    if "html" in formats:
        with open(os.path.join(where, "report.html"),
                  encoding="utf-8") as page:
            found = facts(page.read())
        print("page: %(bytes)d bytes (%(gzipped)d gzipped), %(figures)d "
              "figures (%(facets)d facets), %(tables)d tables, %(findings)d "
              "findings" % found)
        for key in ("figures", "bytes"):
            print("%s: %s (budget %s): %s" % (
                key, found[key], BUDGET[key],
                "within" if found[key] <= BUDGET[key] else "OVER"))
    for fmt in formats:
        median = statistics.median(times[fmt])
        print("render %s: %s (budget %s s): %s" % (
            fmt, spread(times[fmt]), BUDGET["seconds"],
            "within" if median <= BUDGET["seconds"] else "OVER"))
    print("render %s in one process: %s (the %s one by one: %.1f s by "
          "their medians)" % (",".join(formats), spread(times["all"]),
                              ",".join(formats), sum(
                                  statistics.median(times[fmt])
                                  for fmt in formats)))


if __name__ == "__main__":
    main()
