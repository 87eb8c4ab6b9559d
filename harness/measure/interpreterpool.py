"""A pool of subinterpreters with their own GIL, as a
``concurrent.futures`` executor: the stdlib's ``InterpreterPoolExecutor``
(3.14+), or :class:`InterpreterPool`, gilbench's own, over the low-level
modules of 3.13 on (``_interpreters``) and 3.12
(``_xxsubinterpreters``), with channels.

Reusable beyond the executor family: ``make_interpreter_pool(workers)``
gives an executor (``kind`` picks one of the two pools; by default the
stdlib's where there is one), ``interpreters_unavailable(kind)`` says why
there is none here, ``interpreter_pool_name(pool)`` names the one made.
Worker side: the source stays importable on Python 2.7.
"""
import pickle
import platform
import sys
import threading

try:
    import queue
except ImportError:  # Python 2.7
    import Queue as queue

PROTOCOL = pickle.HIGHEST_PROTOCOL
STDLIB = "stdlib"  # concurrent.futures.InterpreterPoolExecutor
GILBENCH = "gilbench"  # InterpreterPool, below
KINDS = (STDLIB, GILBENCH)
STDLIB_NAME = "concurrent.futures.InterpreterPoolExecutor"


def _futures():
    import concurrent.futures
    return concurrent.futures


def _stdlib_pool():
    """The stdlib's InterpreterPoolExecutor, or None."""
    try:
        return getattr(_futures(), "InterpreterPoolExecutor", None)
    except ImportError:  # Python 2.7 without the futures backport
        return None


def _low_level():
    """(interpreters module, channels module, version tag) or None."""
    try:
        import _interpchannels
        import _interpreters
        return _interpreters, _interpchannels, 13
    except ImportError:
        pass
    try:
        import _xxsubinterpreters

        import _xxinterpchannels
        if sys.version_info >= (3, 12):  # before, one GIL for all
            return _xxsubinterpreters, _xxinterpchannels, 12
    except ImportError:
        pass
    return None


def interpreters_unavailable(kind=None):
    """None, or why no pool of own-GIL subinterpreters of ``kind`` (any,
    by default) exists here."""
    if kind is None:
        return (interpreters_unavailable(STDLIB)
                and interpreters_unavailable(GILBENCH))
    _check_kind(kind)
    if kind == STDLIB:
        return _stdlib_unavailable()
    implementation = platform.python_implementation()
    if sys.version_info < (3, 12):
        return ("subinterpreters have their own GIL only from CPython 3.12 "
                "(this is %s)" % _this_python())
    if _low_level() is None:
        return "%s has no _interpreters/_xxsubinterpreters" % (
            implementation,)
    return None


def _stdlib_unavailable():
    if _stdlib_pool() is not None:
        return None
    if sys.version_info < (3, 14):
        return "%s is new in 3.14 (this is %s)" % (STDLIB_NAME,
                                                   _this_python())
    return "%s has no %s" % (_this_python(), STDLIB_NAME)


def _this_python():
    """E.g. "CPython 3.13t": a free-threaded build says so."""
    from gilbench.measure.gilguard import free_threaded_build
    return "%s %d.%d%s" % ((platform.python_implementation(),)
                           + tuple(sys.version_info[:2])
                           + ("t" if free_threaded_build() else "",))


def _check_kind(kind):
    if kind not in KINDS:
        raise ValueError("interpreter pool kind %r: one of %s"
                         % (kind, ", ".join(KINDS)))


_INIT = """
import sys
sys.path[:] = %r
import pickle
import %s as _channels
"""
_RUN = """
_fn, _args = pickle.loads(_task)
try:
    _out = (True, _fn(*_args))
except BaseException as _exc:
    _out = (False, '%%s: %%s' %% (type(_exc).__name__, _exc))
_channels.send(_cid, pickle.dumps(_out, %d)%s)
del _fn, _args, _out
"""


class InterpreterPool(object):
    """A minimal ``concurrent.futures.Executor`` over subinterpreters with
    their own GIL (3.12 on; the stdlib has its own from 3.14, which the
    executor family measures beside this one).

    One host thread per worker owns one subinterpreter and runs each task
    there: the task is pickled by reference (so it must be importable: a
    function defined in ``__main__`` is refused, as the pep-734 backport
    hangs on one), the result comes back pickled through a channel.
    """

    def __init__(self, max_workers):
        self._modules = _low_level()
        self._queue = queue.Queue()
        self._shutdown = False
        self._threads = []
        self._errors = []
        for _ in range(max_workers):
            thread = threading.Thread(target=self._worker)
            thread.daemon = True  # never blocks exit; close() joins them
            thread.start()
            self._threads.append(thread)

    def submit(self, fn, *args):
        futures = _futures()
        if getattr(fn, "__module__", None) == "__main__":
            raise ValueError("%r is defined in __main__, which a "
                             "subinterpreter cannot import" % (fn,))
        if self._shutdown:
            raise RuntimeError("cannot submit after shutdown")
        future = futures.Future()
        self._queue.put((future, pickle.dumps((fn, args), PROTOCOL)))
        return future

    def shutdown(self, wait=True):
        if not self._shutdown:
            self._shutdown = True
            for _ in self._threads:
                self._queue.put(None)
        if wait:
            for thread in self._threads:
                thread.join()
        if self._errors:
            raise RuntimeError("subinterpreter worker failed: %s"
                               % self._errors[0])

    def _worker(self):
        interpreters, channels, version = self._modules
        if version == 12:
            interp = interpreters.create(isolated=True)
            channel = channels.create()
        else:
            interp = interpreters.create("isolated")
            channel = channels.create(1)  # unboundop: remove the item
        try:
            self._serve(interp, channel)
        except BaseException as exc:  # reported by shutdown()
            self._errors.append(repr(exc))
            self._fail_queued(exc)
        finally:
            interpreters.destroy(interp)
            channels.destroy(channel)

    def _serve(self, interp, channel):
        interpreters, channels, version = self._modules
        run = self._runner(interpreters, version)
        run(interp, _INIT % (list(sys.path), channels.__name__), {})
        script = _RUN % (PROTOCOL, "" if version == 12 else
                         ", blocking=False")
        while True:
            item = self._queue.get()
            if item is None:
                return
            future, task = item
            if not future.set_running_or_notify_cancel():
                continue
            run(interp, script, {"_task": task, "_cid": int(channel)})
            received = channels.recv(channel)
            ok, result = pickle.loads(received if version == 12
                                      else received[0])
            if ok:
                future.set_result(result)
            else:
                future.set_exception(RuntimeError(
                    "in a subinterpreter: %s" % result))

    @staticmethod
    def _runner(interpreters, version):
        if version == 12:
            return interpreters.run_string

        run_code = getattr(interpreters, "exec")  # a keyword on 2.7

        def run(interp, script, shared):
            failure = run_code(interp, script, shared)
            if failure is not None:
                raise RuntimeError("subinterpreter: %s" % (failure,))
        return run

    def _fail_queued(self, exc):
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if item is not None:
                item[0].set_exception(exc)


def make_interpreter_pool(workers, kind=None):
    """An executor of ``workers`` own-GIL subinterpreters: the stdlib's
    (``kind="stdlib"``), gilbench's ``InterpreterPool``
    (``kind="gilbench"``) or, by default, the stdlib's where there is one;
    check interpreters_unavailable(kind) first."""
    if kind is None:
        kind = GILBENCH if _stdlib_pool() is None else STDLIB
    _check_kind(kind)
    if kind == STDLIB:
        return _stdlib_pool()(max_workers=workers)
    return InterpreterPool(workers)


def interpreter_pool_name(pool):
    """The qualified class name of a pool make_interpreter_pool made (the
    stdlib's by its public name, not its private module's)."""
    cls = type(pool)
    if cls is _stdlib_pool():
        return STDLIB_NAME
    return "%s.%s" % (cls.__module__, cls.__name__)
