"""Installed like a user installs it: ``pip install <clone>[report]`` into a
fresh venv gives a ``gilbench`` command that lists, runs, reports and
compares from another directory, with the extensions built and only the
``gilbench`` import name added; a free-threaded interpreter installs
``gilbench[report]`` from the sdist with its own dependencies (no cffi on
3.13t).

The installs come from PyPI (the build requirements in an isolated build,
the dependencies from setup.py), as a user's would; they take a minute or
two each.
"""
import json
import os
import pathlib
import subprocess
import sys

import pytest
from helpers import ROOT
from test_free_threading import ft_python  # noqa: F401  (fixture)

if sys.version_info < (3, 9):
    pytest.skip("the report side needs Python >= 3.9",
                allow_module_level=True)

# Every family at the smallest pyperf sizing: proves each installed
# extension imports and runs, not what it measures.
TINY = ["-p", "1", "-n", "1", "-w", "0", "--min-time", "0.001"]


def requirement_lines(name):
    """A requirements file's requirements, ``-r`` followed, normalised."""
    from packaging.requirements import Requirement
    lines = []
    with open(os.path.join(ROOT, name)) as stream:
        for line in stream:
            line = line.split(" #")[0].strip()
            if line.startswith("-r "):
                lines.extend(requirement_lines(line[3:].strip()))
            elif line and not line.startswith("#"):
                lines.append(str(Requirement(line)))
    return lines


def test_build_requirements_match_pyproject():
    tomllib = pytest.importorskip("tomllib")
    from packaging.requirements import Requirement
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as stream:
        declared = tomllib.load(stream)["build-system"]["requires"]
    assert ([str(Requirement(r)) for r in declared]
            == requirement_lines("requirements-build.txt"))


def make_venv(python, directory):
    """A fresh venv made by ``python``; returns its bin directory."""
    subprocess.run([python, "-m", "venv", directory], check=True,
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return os.path.join(directory, "bin")


def pip_install(bin_dir, *requirements):
    process = subprocess.run(
        [os.path.join(bin_dir, "python"), "-m", "pip", "install", "-q",
         "--disable-pip-version-check"] + list(requirements),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        universal_newlines=True, timeout=900)
    assert process.returncode == 0, process.stdout[-4000:]


def gilbench(bin_dir, cwd, *args, **kwargs):
    return subprocess.run(
        [os.path.join(bin_dir, "gilbench")] + [str(a) for a in args],
        cwd=str(cwd), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True, timeout=kwargs.get("timeout", 600))


def installed_metadata(bin_dir, expression):
    """``expression`` (of importlib.metadata as ``m``) in the venv, run
    outside the project (whose gilbench.egg-info would answer instead)."""
    code = ("import importlib.metadata as m, json; print(json.dumps(%s))"
            % expression)
    return json.loads(subprocess.check_output(
        [os.path.join(bin_dir, "python"), "-c", code], cwd=bin_dir,
        universal_newlines=True))


def installed_files(bin_dir):
    """The installed distribution's files, relative to site-packages."""
    return installed_metadata(bin_dir,
                              "[str(f) for f in m.files('gilbench')]")


def declared_requirements(bin_dir):
    return installed_metadata(bin_dir, "m.requires('gilbench')")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A fresh venv of this Python with ``pip install <clone>[report]``."""
    bin_dir = make_venv(sys.executable,
                        str(tmp_path_factory.mktemp("venv") / "venv"))
    pip_install(bin_dir, ROOT + "[report]")
    return bin_dir


def test_only_the_gilbench_import_name_is_installed(installed):
    tops = set(f.split("/")[0] for f in installed_files(installed)
               if not f.startswith("..") and "/" in f)
    assert tops == {"gilbench", "gilbench-0.1.0.dist-info"}, tops
    files = installed_files(installed)
    for module in ("gil", "lock", "grwl", "service", "executor", "ceiling"):
        assert any(f.startswith("gilbench/extensions/_%s_cy." % module)
                   and f.endswith(".so") for f in files), module
    assert "gilbench/templates/report.html.j2" in files


FAMILIES = {"ceiling", "gil", "pyops", "lock", "grwl", "executor",
            "service"}


def test_dependencies_come_from_the_requirements_files(installed):
    declared = declared_requirements(installed)
    runtime = [r for r in declared if "extra ==" not in r]
    # importlib.metadata gives markers as packaging normalises them.  The
    # GIL builds' list: free-threaded ones are checked below.
    assert sorted(runtime) == sorted(requirement_lines("requirements.txt"))
    report = [r for r in declared if 'extra == "report"' in r]
    assert len(report) == len(requirement_lines("requirements-report.txt"))
    assert any(r.startswith("jinja2") for r in report), report


def test_list_run_report_compare_from_another_directory(installed, tmp_path):
    listed = gilbench(installed, tmp_path, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    cases = json.loads(listed.stdout)["cases"]
    assert {c["family"] for c in cases} == FAMILIES
    not_built = [(c["name"], n["reason"]) for c in cases
                 for n in c["not_runnable"] if "not built" in n["reason"]]
    assert not_built == []

    run = gilbench(installed, tmp_path, "run", "--quick", "--quiet",
                   "-o", "r.json", *TINY)
    assert run.returncode == 0, run.stderr[-4000:]
    results = json.loads((tmp_path / "r.json").read_text())
    families = {b["metadata"]["family"] for b in results["benchmarks"]
                if "family" in b["metadata"]}
    assert families == FAMILIES

    report = gilbench(installed, tmp_path, "report", "r.json", "-o",
                      "r.html")
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "r.html").read_text()
    assert page.count("<svg") >= 5

    compare = gilbench(installed, tmp_path, "compare", "r.json", "r.json")
    assert compare.returncode == 0, compare.stderr
    assert "gil" in compare.stdout

    module = subprocess.run(
        [os.path.join(installed, "python"), "-m", "gilbench", "list"],
        cwd=str(tmp_path), stdout=subprocess.PIPE, universal_newlines=True)
    assert module.returncode == 0
    listed = module.stdout.split("\nplan for ")  # a line per case, the plan
    assert listed[0].count("\n") + 1 == len(cases)
    assert listed[1].splitlines()[-2].startswith("  total: first looks ")


def test_a_dotted_case_module_resolves_from_the_working_directory(
        installed, tmp_path):
    (tmp_path / "mine_cases.py").write_text(
        "from gilbench.api import CaseSpec\n"
        "def prepare(params):\n"
        "    return lambda loops: None\n"
        "CASES = [CaseSpec('mine', 'noop', 'gil', 'python', prepare,\n"
        "                  'does nothing')]\n")
    listed = gilbench(installed, tmp_path, "list", "--module", "mine_cases")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith("mine.noop.gil.python ")


@pytest.fixture(scope="module")
def sdist(tmp_path_factory):
    directory = str(tmp_path_factory.mktemp("sdist"))
    subprocess.run([sys.executable, "setup.py", "-q", "sdist", "-d",
                    directory], cwd=ROOT, check=True,
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    (name,) = os.listdir(directory)
    return os.path.join(directory, name)


def test_free_threaded_install_from_the_sdist(ft_python, sdist,  # noqa: F811
                                              tmp_path):
    bin_dir = make_venv(ft_python, str(tmp_path / "venv"))
    pip_install(bin_dir, "gilbench[report] @ " + pathlib.Path(sdist).as_uri())
    runtime = [r for r in declared_requirements(bin_dir)
               if "extra ==" not in r]
    assert sorted(runtime) == sorted(
        requirement_lines("requirements-freethreaded.txt"))
    listed = gilbench(bin_dir, tmp_path, "list", "--json", "--case", "gil.*")
    assert listed.returncode == 0, listed.stderr
    status = {}
    for case in json.loads(listed.stdout)["cases"]:
        reasons = {n["reason"] for n in case["not_runnable"]}
        status[case["name"]] = reasons
    assert status["gil.trivial.nogil.cython"] == set()
    version = subprocess.check_output(
        [os.path.join(bin_dir, "python"), "-c",
         "import sys; print('%d.%d' % sys.version_info[:2])"],
        universal_newlines=True).strip()
    if version == "3.13":
        (reason,) = status["gil.trivial.nogil.cffi"]
        assert reason.endswith(
            "not built (cffi does not support free-threaded CPython 3.13)")

    # The report extra installs there too (matplotlib included).
    run = gilbench(bin_dir, tmp_path, "run", "--case", "gil.trivial.*",
                   "--threads", "1", "-o", "r.json", *TINY)
    assert run.returncode == 0, run.stderr[-4000:]
    report = gilbench(bin_dir, tmp_path, "report", "r.json", "-o", "r.html")
    assert report.returncode == 0, report.stderr
    assert "<svg" in (tmp_path / "r.html").read_text()


@pytest.mark.parametrize("command", ["report", "compare"])
def test_report_side_without_the_extra_names_it(command, tmp_path):
    """An install without ``[report]``: jinja2 missing (None in
    sys.modules makes its import fail) is one line naming the extra."""
    code = ("import sys; sys.modules['jinja2'] = None\n"
            "from gilbench.runner.cli import main\n"
            "sys.exit(main(sys.argv[1:]))")
    process = subprocess.run(
        [sys.executable, "-c", code, command, "a.json", "b.json"],
        cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True)
    assert process.returncode == 2, process.stderr
    assert process.stderr == (
        "gilbench: error: %s needs jinja2, which is not installed: pip "
        "install 'gilbench[report]'\n" % command)


def test_the_extensions_compile_on_every_usable_cpu():
    """setup.py's build_ext compiles its extensions at once on the CPUs
    this process may use (an install builds afresh each time), and a
    ``-j`` given keeps its count."""
    script = (
        "import os, sys\n"
        "from distutils.core import run_setup\n"
        "dist = run_setup('setup.py', sys.argv[1:],\n"
        "                 stop_after='commandline')\n"
        "command = dist.get_command_obj('build_ext')\n"
        "command.ensure_finalized()\n"
        "print(command.parallel, len(os.sched_getaffinity(0)))\n")
    told = []
    for args in (["build_ext"], ["build_ext", "-j", "1"]):
        done = subprocess.run([sys.executable, "-c", script] + args,
                              cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        told.append(done.stdout.split()[-2:])
    (default, usable), (given, _) = told
    assert int(default) == int(usable) and int(given) == 1, told
