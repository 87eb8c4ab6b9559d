"""One result file read as two: the benchmarks at one value of a
dimension against those at another (``compare RESULT --sides
revision=base,head``, after ``gilbench continuous``).

Each side keeps the benchmarks at its value, with that dimension taken
out of their dimensions and of their family's axes, so the two pair as
two files' benchmarks do; benchmarks without the dimension (the
ceiling's, measured once for both) are in both.  The draws of the
benchmarks' means are made once, when the file is loaded: a block's
shift, measured for both sides at once, is one draw shared by both.
"""
from __future__ import annotations

from dataclasses import replace

from gilbench.errors import UsageError


def parse(text):
    """(dimension, base value, changed value) from ``DIM=BASE,CHANGED``."""
    dim, _, values = (text or "").partition("=")
    found = values.split(",")
    if not dim or len(found) != 2 or not all(found) or found[0] == found[1]:
        raise UsageError("--sides %r: DIM=BASE,CHANGED, two different "
                         "values of one dimension (revision=base,head)"
                         % text)
    return dim, found[0], found[1]


def _side(result, dim, value):
    records = [replace(r, dims={k: v for k, v in r.dims.items()
                                if k != dim})
               for r in result.records
               if dim not in r.dims or str(r.dims[dim]) == value]
    axes = {family: {name: axis for name, axis in found.items()
                     if name != dim}
            for family, found in result.axes.items()}
    return replace(result, records=records, axes=axes)


def split(result, dim, base, changed):
    """(base side, changed side) of a ResultFile; UsageError when it
    measured no benchmark at either value."""
    values = {str(r.dims[dim]) for r in result.records if dim in r.dims}
    missing = [v for v in (base, changed) if v not in values]
    if missing:
        raise UsageError("%s has no benchmark whose %s is %s (it has: %s)"
                         % (result.path, dim, " or ".join(missing),
                            ", ".join(sorted(values)) or "none"))
    return _side(result, dim, base), _side(result, dim, changed)


def each_side(results, dim):
    """``results`` with each file that measured several values of ``dim``
    read as one file per value (in the order first measured): what a run
    of two revisions answers is each revision's answers."""
    found = []
    for result in results:
        values = list(dict.fromkeys(str(r.dims[dim]) for r in result.records
                                    if dim in r.dims))
        found += ([_side(result, dim, value) for value in values]
                  if len(values) > 1 else [result])
    return found
