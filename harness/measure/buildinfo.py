"""How this interpreter was built and where it came from, as metadata of
a result file (pyperf records ``python_compiler`` and ``python_cflags``
already): ``python_origin``, ``python_optimizations`` and ``python_libc``.

Two builds of one version can differ by 10-30% (PGO, LTO, a newer
compiler), so a report comparing versions or builds says when theirs
differ.  gilbench's own installs (tools/provide_debian_python.sh,
tools/build_free_threaded.sh) leave a ``gilbench-origin.json`` in the
prefix saying where they came from; otherwise the origin is read from
the install's place (pyenv, a Debian package).  Worker side: Python
2.7-compatible.
"""
import json
import os
import platform
import subprocess
import sys

ORIGIN_FILE = "gilbench-origin.json"
UNKNOWN = "unknown"
# What tools/provide_debian_python.sh writes for its PyPy, too.
PYPY_OPTIMIZATIONS = "PyPy's translation (RPython, JIT)"


def base_prefix():
    """The installation a venv or virtualenv was made from."""
    return getattr(sys, "real_prefix", None) or getattr(
        sys, "base_prefix", sys.prefix)


def origin_file(prefix):
    """The origin file's contents, or {} (absent or unreadable)."""
    try:
        with open(os.path.join(prefix, ORIGIN_FILE)) as stream:
            found = json.load(stream)
    except (IOError, OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def debian_package(path):
    """"Debian package NAME VERSION" owning ``path``, or None."""
    try:
        with open(os.devnull, "w") as quiet:
            owner = subprocess.check_output(
                ["dpkg-query", "-S", path], stderr=quiet)
            name = owner.decode().split(":", 1)[0].strip()
            version = subprocess.check_output(
                ["dpkg-query", "-W", "-f", "${Version}", name],
                stderr=quiet).decode().strip()
    except (OSError, subprocess.CalledProcessError, ValueError):
        return None
    return "Debian package %s %s" % (name, version) if name else None


def origin(prefix, executable):
    """Where the interpreter came from, in words."""
    declared = origin_file(prefix).get("origin")
    if declared:
        return str(declared)
    parts = os.path.realpath(prefix).split(os.sep)
    if "versions" in parts and any("pyenv" in part for part in parts):
        return "pyenv (%s)" % parts[parts.index("versions") + 1]
    if executable and os.path.realpath(executable).startswith("/usr/"):
        package = debian_package(os.path.realpath(executable))
        if package:
            return package
    return "%s (%s)" % (UNKNOWN, prefix)


def optimizations(prefix):
    """"PGO, LTO", "PGO", "LTO" or "none" (configure's options), or what
    the origin file says (a distribution's build rules add them without
    configure options)."""
    declared = origin_file(prefix).get("optimizations")
    if declared:
        return str(declared)
    if platform.python_implementation() == "PyPy":
        return PYPY_OPTIMIZATIONS  # no configure: RPython translates it
    try:
        import sysconfig
        args = sysconfig.get_config_var("CONFIG_ARGS")
    except ImportError:
        args = None
    if not args:
        return "%s (no configure options recorded)" % UNKNOWN
    found = [name for option, name in (("--enable-optimizations", "PGO"),
                                       ("--with-lto", "LTO"))
             if option in args]
    return ", ".join(found) or "none"


def libc():
    """"glibc 2.36": the C library this process runs on (2.7's
    platform.libc_ver reads the newest symbol version the executable
    links, not the library it loaded), or unknown."""
    try:
        running = os.confstr("CS_GNU_LIBC_VERSION")
    except (AttributeError, ValueError, OSError):
        running = None
    if not running:
        running = _gnu_libc_version()
    if running:
        return running
    name, version = platform.libc_ver()
    return "%s %s" % (name, version) if name else UNKNOWN


def _gnu_libc_version():
    try:
        import ctypes
        call = ctypes.CDLL(None).gnu_get_libc_version
        call.restype = ctypes.c_char_p
        return "glibc " + str(call().decode())
    except (ImportError, OSError, AttributeError):
        return None


_facts = []


def facts():
    """The build's metadata (computed once per process)."""
    if not _facts:
        prefix = base_prefix()
        executable = getattr(sys, "_base_executable", None) or sys.executable
        _facts.append({"python_origin": origin(prefix, executable),
                       "python_optimizations": optimizations(prefix),
                       "python_libc": libc()})
    return dict(_facts[0])
