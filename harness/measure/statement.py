"""A statement and its set-up, as ``gilbench timeit`` takes them, turned
into a case's ``work(loops)``.

As in ``python -m timeit``: the set-up runs once, before any clock, and
the statement is compiled into a loop (no ``exec`` per call).  Set-up
names are the loop's globals, shared by the threads that run it; a name
the statement assigns is local to each thread's call.  Whatever fails is
a :class:`StatementError` naming the part that failed, for the one line
``timeit`` prints.

Worker side: Python 2.7-compatible.
"""
import itertools

from gilbench.model import modules

# The statement inside a loop, in a function made once per worker process:
# its names resolve in the set-up's namespace.
_TEMPLATE = """\
def _gilbench_loop(_gilbench_loops, _gilbench_repeat=_gilbench_repeat):
    for _ in _gilbench_repeat(None, _gilbench_loops):
%s
"""
_INDENT = " " * 8


class StatementError(Exception):
    """The statement or its set-up cannot run; the message says which
    part failed and how."""


def _raised(exc, when=""):
    text = str(exc).strip().splitlines()
    return "%s%s%s" % (type(exc).__name__, when,
                       ": " + text[0] if text else "")


def _compiled(source, filename, what):
    try:
        return modules.constants_as_from_bytecode(
            compile(source, filename, "exec"))
    except (SyntaxError, ValueError, TypeError) as exc:  # null bytes: Value
        where = (" (line %d)" % exc.lineno
                 if getattr(exc, "lineno", None) else "")
        raise StatementError("%s does not compile: %s%s"
                             % (what, getattr(exc, "msg", None) or exc,
                                where))


def compile_loop(stmt, namespace):
    """``loop(loops)`` running ``stmt`` ``loops`` times in ``namespace``."""
    _compiled(stmt, "<stmt>", "the statement")  # its own line numbers
    body = "\n".join(_INDENT + line for line in stmt.splitlines() or [""])
    code = _compiled(_TEMPLATE % (body + "\n" + _INDENT + "pass"),
                     "<stmt>", "the statement (inside a loop)")
    scope = {"_gilbench_repeat": itertools.repeat}
    exec(code, namespace, scope)
    return scope["_gilbench_loop"]


def set_up(setup):
    """The namespace ``setup`` leaves (a fresh module's globals)."""
    code = _compiled(setup, "<setup>", "the setup")
    namespace = {"__name__": "__gilbench_timeit__"}
    try:
        exec(code, namespace)
    except Exception as exc:
        raise StatementError("the setup raised %s" % _raised(exc))
    return namespace


def prepare(stmt, setup):
    """Set up, compile, and return the statement's ``work(loops)``."""
    namespace = set_up(setup)
    return compile_loop(stmt, namespace)


def first_call(work):
    """Run the statement once, as ``timeit`` does before measuring."""
    try:
        work(1)
    except Exception as exc:
        raise StatementError("the statement raised %s"
                             % _raised(exc, " on its first call"))
