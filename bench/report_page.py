"""What the report's HTML page weighs and costs, rendered from a results
directory (the main job's ``results/``): size, gzipped size, figures,
facets, tables, findings, and the wall time of whole ``gilbench report``
processes (min / median / max over ``--repeat`` renders).

Usage: python bench/report_page.py results/ [--repeat 3]

The issue's budget for the default ten-interpreter main job: at most
about 60 figures, 2 MB, and 8 s on a 2-core machine; the script prints the
figures and whether each is within it, and exits 0 either way (a
benchmark reports; CI does not time it).
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


def render(results, out):
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "gilbench", "report", results,
                    "-o", out], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


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
    args = parser.parse_args()
    out = os.path.join(tempfile.mkdtemp(prefix="gilbench-page-"),
                       "report.html")
    times = sorted(render(args.results, out) for _ in range(args.repeat))
    with open(out, encoding="utf-8") as page:
        found = facts(page.read())
    print("page: %(bytes)d bytes (%(gzipped)d gzipped), %(figures)d figures "
          "(%(facets)d facets), %(tables)d tables, %(findings)d findings"
          % found)
    print("render: min %.1f s, median %.1f s, max %.1f s over %d"
          % (times[0], statistics.median(times), times[-1], len(times)))
    for key, value in (("figures", found["figures"]),
                       ("bytes", found["bytes"]),
                       ("seconds", statistics.median(times))):
        print("%s: %s (budget %s): %s" % (
            key, value, BUDGET[key],
            "within" if value <= BUDGET[key] else "OVER"))


if __name__ == "__main__":
    main()
