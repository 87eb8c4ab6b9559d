"""What a tox env name (``py313t``, ``pypy311``, ``py313t-gil``) says about
its interpreter, and the interpreters tox envs are named after: what
``gilbench init`` writes envs for, and what ``run`` checks the running
interpreter against (a ``py313t`` env whose tox resolved another Python).
Worker side: Python 2.7-compatible."""
import os
import re
import sys

# A factor as tox names interpreters: py/pypy, then major and minor digits,
# then "t" for a free-threaded build.
_FACTOR = re.compile(r"^(py|pypy)(\d)(\d*)(t?)$")


class Named(object):
    """An interpreter as a name claims it: the implementation ("PyPy", or
    None: py names any), (major,) or (major, minor), free-threaded."""

    def __init__(self, factor, pypy, version, free_threaded):
        self.factor = factor
        self.pypy = pypy
        self.version = version
        self.free_threaded = free_threaded

    def describe(self):
        return "%s %s%s" % ("PyPy" if self.pypy else "Python",
                            ".".join(str(part) for part in self.version),
                            "t" if self.free_threaded else "")


def named(name):
    """The interpreter ``name`` (an env name or a file's stem) claims, or
    None when no factor of it names one."""
    for factor in re.split(r"[-_.]", os.path.basename(name)):
        found = _FACTOR.match(factor.lower())
        if found:
            prefix, major, minor, free = found.groups()
            version = (int(major), int(minor)) if minor else (int(major),)
            return Named(factor, prefix == "pypy", version, bool(free))
    return None


def mismatch(claim, pypy, version, free_threaded):
    """How the interpreter (PyPy or not, its (major, minor), a
    free-threaded build or not) is not what ``claim`` names; "" if it is."""
    wrong = []
    if claim.pypy and not pypy:
        wrong.append("not PyPy")
    if tuple(version[:len(claim.version)]) != claim.version:
        wrong.append("version %d.%d" % tuple(version[:2]))
    if claim.free_threaded and not free_threaded:
        wrong.append("not a free-threaded build")
    return ", ".join(wrong)


def free_threaded_build():
    """True on an interpreter built with --disable-gil (Py_GIL_DISABLED)."""
    import sysconfig
    return bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def this_interpreter():
    """(PyPy or not, (major, minor), a free-threaded build or not)."""
    return (hasattr(sys, "pypy_version_info"), tuple(sys.version_info[:2]),
            free_threaded_build())


def misnamed(output):
    """One line saying how this interpreter is not what its tox env
    (``TOX_ENV_NAME``) or the output file's name says, or ""."""
    claims = {}  # what is claimed -> the names claiming it
    for what, name in (("tox env", os.environ.get("TOX_ENV_NAME")),
                       ("output file", output and os.path.basename(output))):
        claim = name and named(os.path.splitext(name)[0])
        wrong = claim and mismatch(claim, *this_interpreter())
        if wrong:
            claims.setdefault((claim.describe(), wrong), []).append(
                "%s %s" % (what, name))
    return "; ".join(
        "%s named %s, but this is %s (%s: %s)"
        % (" and ".join(names), claimed, _running(), sys.executable, wrong)
        for (claimed, wrong), names in sorted(claims.items()))


def _running():
    pypy, version, free = this_interpreter()
    return "%s %d.%d%s" % ("PyPy" if pypy else "CPython", version[0],
                           version[1], "t" if free else "")


class Interpreter(object):
    """A tox env ``name`` and the ``basepython`` that makes it the build it
    names; ``gil_on`` for a free-threaded build's twin run with
    PYTHON_GIL=1; ``seed_current`` where virtualenv 20.21 (the last that
    makes 2.7 envs) seeds a pip too old for the interpreter."""

    def __init__(self, name, basepython, gil_on=False, seed_current=False):
        self.name = name
        self.basepython = basepython
        self.gil_on = gil_on
        self.seed_current = seed_current
        self.free_threaded = named(name).free_threaded


def _known():
    known = [Interpreter("py27", "python2.7")]
    known += [Interpreter("py3%d" % minor, "python3.%d" % minor,
                          seed_current=minor >= 14)
              for minor in range(8, 16)]
    known += [Interpreter("pypy3", "pypy3"),
              Interpreter("pypy311", "pypy3.11", seed_current=True)]
    for minor in (13, 14, 15):
        built = "python3.%dt" % minor
        known += [Interpreter("py3%dt" % minor, built, seed_current=True),
                  Interpreter("py3%dt-gil" % minor, built, gil_on=True,
                              seed_current=True)]
    return known


# In the order tox runs them and the report sorts them, roughly.
KNOWN = _known()
