"""CPython's cyclic garbage collector, paused while a report runs.

A report is a batch process: what it builds (the loaded results, their
draws and tables) lives until its page is written, and it makes few
reference cycles; yet every full collection walks all of it, again and
again as it grows (docs/operations.rst gives what that cost).  The
figures' workers (figurepool), where matplotlib makes a cycle of every
figure, collect as usual.
"""
from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def paused():
    """No cyclic collection inside; as it was before, after."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.freeze()
            gc.unfreeze()
            gc.enable()
