"""CPython's Tools (lockbench, ftscalingbench, ...) from Debian unstable's
``python3.14-examples`` package, fetched once with a private apt (as
tools/provide_debian_python.sh fetches interpreters) and unpacked into a
cache directory: peers to compare against, never copied into the
project.  ``fetch(cache)`` returns the directory holding the examples
(``lockbench/lockbench.py``, ``ftscalingbench/ftscalingbench.py``); its
``ORIGIN`` file names the package it came from.
"""
import os
import shutil
import subprocess
import tempfile

PACKAGE = "python3.14-examples"
EXAMPLES = "usr/share/doc/python3.14/examples"
MIRROR = os.environ.get("GILBENCH_DEBIAN_MIRROR",
                        "http://deb.debian.org/debian")


def private_apt(work):
    """apt-get reading only ``work``'s sources, lists and cache."""
    return ["apt-get", "-q",
            "-o", "Dir::Etc::SourceList=/dev/null",
            "-o", "Dir::Etc::SourceParts=" + os.path.join(work, "sources"),
            "-o", "Dir::State::Lists=" + os.path.join(work, "lists"),
            "-o", "Dir::State::status=/dev/null",
            "-o", "Dir::Cache=" + os.path.join(work, "cache"),
            "-o", "Dir::Cache::pkgcache=", "-o", "Dir::Cache::srcpkgcache=",
            "-o", "Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false",
            "-o", "APT::Sandbox::User=root"]


def fetch(cache):
    """The directory of the examples, fetched and unpacked once."""
    examples = os.path.join(cache, "examples")
    if os.path.exists(os.path.join(cache, "ORIGIN")):
        return examples
    work = tempfile.mkdtemp(prefix="gilbench-examples.")
    try:
        for sub in ("sources", "lists/partial", "cache/archives/partial",
                    "debs", "stage"):
            os.makedirs(os.path.join(work, sub))
        with open(os.path.join(work, "sources", "unstable.sources"),
                  "w") as sources:
            sources.write("Types: deb\nURIs: %s\nSuites: unstable\n"
                          "Components: main\nSigned-By: /usr/share/keyrings/"
                          "debian-archive-keyring.gpg\n" % MIRROR)
        apt = private_apt(work)
        quiet = {"stdout": subprocess.DEVNULL}
        subprocess.check_call(apt + ["update"], **quiet)
        debs = os.path.join(work, "debs")
        subprocess.check_call(apt + ["download", PACKAGE], cwd=debs, **quiet)
        (deb,) = os.listdir(debs)
        subprocess.check_call(["dpkg-deb", "-x", os.path.join(debs, deb),
                               os.path.join(work, "stage")])
        shutil.rmtree(examples, ignore_errors=True)
        shutil.copytree(os.path.join(work, "stage", EXAMPLES), examples)
        with open(os.path.join(cache, "ORIGIN"), "w") as origin:
            origin.write("Debian unstable %s\n" % deb)
    finally:
        shutil.rmtree(work)
    return examples
