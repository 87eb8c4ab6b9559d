"""One piece of the report's work done in a forked child while this
process does another: the report is one process, and its machines have
two CPUs or more.

The child is forked, not spawned: it shares, on purpose, everything this
process holds (the loaded results, imported modules, caches such as
intervals' judged splits) without pickling any of it, and sends back
only its answer, pickled through a pipe.  It must not share a running
thread (the report starts none before it forks).  Where fork does not
exist, or the child fails in any way (killed, out of memory, an answer
that cannot be pickled), the piece is done here instead, so a failure
surfaces here with its own traceback.
"""
from __future__ import annotations

import multiprocessing


def alongside(here, there):
    """``(here(), there())``, ``there`` called in a forked child while
    this process calls ``here``."""
    try:
        context = multiprocessing.get_context("fork")
        receiving, sending = context.Pipe(duplex=False)
        child = context.Process(target=_answer, args=(there, sending))
        child.start()
    # No fork here, no resources for it, or this is a daemonic process
    # (multiprocessing asserts it has no children).
    except (OSError, ValueError, AssertionError):
        return here(), there()
    sending.close()
    try:
        first = here()
    except BaseException:
        child.terminate()  # its answer is not wanted
        child.join()
        receiving.close()
        raise
    try:
        ok, answer = receiving.recv()
    except (EOFError, OSError):  # it died before it answered
        ok, answer = False, None
    finally:
        receiving.close()
        child.join()
    return first, (answer if ok else there())


def _answer(there, sending):
    try:
        answer = (True, there())
    except BaseException:  # reported as a failure: done again here
        answer = (False, None)
    try:
        sending.send(answer)
    except Exception:  # e.g. it cannot be pickled: done again here
        sending.send((False, None))
