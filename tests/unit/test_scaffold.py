"""``gilbench init``: the case module, tox file and workflow it writes into
a user's project, and what it refuses."""
import configparser
import os
import re
import shutil
import sys

import pytest
from helpers import FIXTURES, Completed, assert_one_line_usage_error

from gilbench.measure import workerindex
from gilbench.model import envnames
from gilbench.runner import cli, projectbuild, scaffold

PROJECT = os.path.join(FIXTURES, "fastsum_project")


@pytest.fixture
def init(capsys):
    """``gilbench init --directory ROOT ARGS...``, in this process."""
    def init(root, *args):
        argv = ["init", "--directory", str(root)] + list(args)
        try:
            code = cli.main(argv)
        except SystemExit as exc:
            code = exc.code
        said = capsys.readouterr()
        return Completed(argv, code, said.out, said.err)
    return init


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "fastsum"
    shutil.copytree(PROJECT, str(root))
    return root


def test_the_case_module_names_the_package_and_its_calls(project, init):
    done = init(project, "--held", "fastsum:spin_held",
                 "--released", "fastsum:spin_released", "--argument", "500")
    assert done.code == 0, done.stderr
    assert done.stdout == "wrote bench/gilbench_cases.py\n"
    text = (project / "bench" / "gilbench_cases.py").read_text()
    namespace = {}
    exec(compile(text, "gilbench_cases.py", "exec"), namespace)
    assert namespace["CALLS"] == {"held": "fastsum:spin_held",
                                  "released": "fastsum:spin_released",
                                  "cffi": None}
    assert namespace["ARGUMENT"] == 500
    spec, = namespace["CASES"]
    assert spec.base_name == "fastsum.call.v.native"
    assert spec.axis("argument").values == ["own", "shared"]
    found = namespace["FINDINGS"]
    assert [(f["at"]["call"], f["cell"]["kind"], f.get("contrast"))
            for f in found] == [
        ("held", "efficiency", {"argument": "shared"}),
        ("released", "efficiency", {"argument": "shared"}),
        ("held", "ratio", None), ("released", "ratio", None)]
    assert found[2]["cell"]["numerator"] == "shared"
    assert not (project / scaffold.TOX).exists()


def _module(project, init):
    assert init(project).code == 0
    namespace = {"__name__": "gilbench_cases"}
    text = (project / "bench" / "gilbench_cases.py").read_text()
    exec(compile(text, "gilbench_cases.py", "exec"), namespace)
    return namespace


def _arguments(namespace, argument, threads=2):
    """What each of ``threads`` threads passes to the call, prepared at
    ``argument`` ("own" or "shared") with ARGUMENT a list of big ints."""
    passed = {}
    namespace["ARGUMENT"] = [10 ** 6 + i for i in range(5)]
    namespace["_function"] = lambda call: lambda value: passed.setdefault(
        workerindex.worker_index(), value)
    work = namespace["prepare"]({"call": "held", "argument": argument,
                                 "threads": threads})
    for index in range(threads):
        workerindex.set_index(index)
        work(2)
    workerindex.set_index(None)
    return [passed[index] for index in range(threads)], namespace["ARGUMENT"]


def test_shared_threads_pass_one_argument_and_own_threads_a_copy_each(
        project, init):
    namespace = _module(project, init)
    shared, argument = _arguments(namespace, "shared")
    assert all(value is argument for value in shared)
    own, argument = _arguments(namespace, "own")
    assert own[0] == own[1] == argument
    # Nothing a call reads is shared, the ints inside neither: their
    # reference counts are what threads sharing them write.
    assert own[0] is not own[1] and own[0] is not argument
    assert not {id(x) for x in own[0]} & {id(x) for x in own[1] + argument}


def test_the_copy_hook_falls_back_to_deepcopy_and_can_be_replaced(
        project, init):
    namespace = _module(project, init)
    unpicklable = [lambda: None, [1, 2]]  # a lambda does not pickle
    copied = namespace["own_copy"](unpicklable)
    assert copied[0] is unpicklable[0] and copied[1] == [1, 2]
    assert copied[1] is not unpicklable[1]
    namespace["own_copy"] = lambda argument: "mine"
    own, _ = _arguments(namespace, "own")
    assert own == ["mine", "mine"]


def test_tox_file_has_an_env_per_interpreter_found(project, tmp_path, init,
                                                  monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("python2.7", "python3.11", "python3.13t", "pypy3.11"):
        (bin_dir / name).write_text("#!/bin/sh\n")
        (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert init(project, "--tox").code == 0
    ini = configparser.ConfigParser(interpolation=None)
    ini.read(str(project / scaffold.TOX))
    assert [e.strip() for e in ini["tox"]["envlist"].split(",")] == [
        "py27", "py311", "pypy311", "py313t", "py313t-gil", "report"]
    assert ini["testenv:py313t"]["basepython"] == "python3.13t"
    assert "requirements-freethreaded.txt" in ini["testenv:py313t"]["deps"]
    assert ini["testenv:py313t-gil"]["setenv"] == "PYTHON_GIL = 1"
    assert ini["testenv:py27"]["basepython"] == "python2.7"
    assert "download" not in ini["testenv:py27"]
    assert ini["testenv:pypy311"]["download"] == "true"
    # gilbench run, unless GILBENCH_COMMAND says (the pull request
    # check's "continuous BASE HEAD").
    assert ("gilbench {env:GILBENCH_COMMAND:run} --module "
            "bench/gilbench_cases.py") in ini["testenv"]["commands"]
    # Where gilbench's source is: this clone (an editable install).
    assert ini["gilbench"]["source"] == "{env:GILBENCH_SOURCE:%s}" % (
        os.path.dirname(os.path.dirname(FIXTURES)))
    assert "gilbench refine" in ini["testenv:report"]["commands"]
    # The project is installed in one place, after its own build
    # requirements (projectbuild), for every env.
    text = (project / scaffold.TOX).read_text()
    installs = [line.strip() for line in text.splitlines()
                if "pip install" in line and "{toxinidir}" in line]
    assert installs == [
        "python -m gilbench.runner.projectbuild {toxinidir} -- python -m "
        "pip install --no-build-isolation --no-deps -q {toxinidir}"]
    assert not any("commands_pre" in ini[section] for section in ini
                   if section.startswith("testenv:py"))


def test_a_project_s_build_requirements_are_read_as_declared(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[build-system]\nrequires = [\n  "setuptools >= 77",  # PEP 639\n'
        '  "Cython>=3.1; python_version >= \'3\'",\n]\n'
        '[project]\nname = "intpack"\nlicense = "Apache-2.0"\n')
    (tmp_path / "setup.cfg").write_text(
        "[options]\nsetup_requires =\n    cffi>=1.15\n    setuptools >= 77\n")
    assert projectbuild.declared(str(tmp_path)) == (
        "intpack", ["setuptools >= 77", "Cython>=3.1; python_version >= '3'",
                    "cffi>=1.15"])
    (tmp_path / "setup.cfg").write_text(
        "[options]\nsetup_requires = cffi; wheel\n")
    (tmp_path / "pyproject.toml").unlink()
    assert projectbuild.declared(str(tmp_path)) == (
        tmp_path.name, ["cffi", "wheel"])
    (tmp_path / "pyproject.toml").write_text("[build-system\n")
    with pytest.raises(ValueError, match="does not parse"):
        projectbuild.declared(str(tmp_path))


def test_a_project_not_built_here_says_why_its_import_failed(
        tmp_path, monkeypatch):
    from gilbench.model import shadowing
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    missing = ImportError("No module named 'intpack'")
    missing.name = "intpack"
    assert shadowing.explained(missing, typed=False) == (
        "No module named 'intpack'")
    with open(shadowing.unbuilt_note_path(), "w") as note:
        note.write("%s\nintpack's build requires setuptools >= 77, which "
                   "does not install on CPython 2.7\n" % tmp_path)
    assert shadowing.explained(missing, typed=False) == (
        "No module named 'intpack'; intpack's build requires setuptools "
        ">= 77, which does not install on CPython 2.7")
    other = ImportError("No module named 'json.nothere'")
    other.name = "json.nothere"  # found, and not in the project's tree
    assert shadowing.explained(other, typed=False) == (
        "No module named 'json.nothere'")


def test_an_existing_file_is_never_overwritten(project, init):
    cases = project / "bench" / "gilbench_cases.py"
    cases.parent.mkdir()
    cases.write_text("# mine\n")
    done = init(project, "--ci", "--gilbench-source", "acme/gilbench")
    assert done.code == 0, done.stderr
    assert cases.read_text() == "# mine\n"
    assert done.stdout.splitlines() == [
        "kept bench/gilbench_cases.py: it exists (delete it to have it "
        "written again)", "wrote tox-gilbench.ini",
        "wrote .github/workflows/gilbench.yml"]


def _sections(path):
    ini = configparser.ConfigParser(interpolation=None)
    ini.read(str(path))
    return {name.split(":", 1)[1]: ini[name] for name in ini.sections()
            if name.startswith("testenv:")}


def test_every_env_the_workflow_runs_has_its_tox_section(project, init):
    """One list makes both: each matrix env has a section naming its
    interpreter, a GIL-on twin sets PYTHON_GIL=1, 2.7 runs in a
    container, and gilbench comes from the repository init was given."""
    done = init(project, "--ci", "--gilbench-source", "acme/gilbench@v2")
    assert done.code == 0, done.stderr
    workflow = (project / scaffold.WORKFLOW).read_text()
    matrix = re.findall(r"- \{env: ([\w-]+), (python|container): "
                        r'"([^"]+)"\}', workflow)
    sections = _sections(project / scaffold.TOX)
    assert [env for env, _, _ in matrix] == [
        i.name for i in envnames.KNOWN]
    for env, how, what in matrix:
        assert "basepython" in sections[env], env
        twin = env.endswith("-gil")
        assert ("PYTHON_GIL = 1" in sections[env].get("setenv", "")) == twin
        assert what.endswith("t") == envnames.named(env).free_threaded
    assert ("py27", "container", "python:2.7") in matrix
    assert ("py313t-gil", "python", "3.13t") in matrix
    assert "repository: acme/gilbench\n" in workflow
    assert "ref: v2\n" in workflow
    assert "vars.GILBENCH_REPOSITORY" not in workflow


@pytest.mark.parametrize("args, said", [
    (["--ci"], "--ci needs --gilbench-source OWNER/NAME[@REF]"),
    (["--ci", "--gilbench-source", "no-slash"], "is not OWNER/NAME[@REF]"),
])
def test_the_workflow_needs_where_gilbench_comes_from(project, init, args,
                                                      said):
    done = init(project, *args)
    assert_one_line_usage_error(done)
    assert said in done.stderr
    assert not (project / scaffold.WORKFLOW).exists()


@pytest.mark.parametrize("args, said", [
    (["--held", "fastsum.spin_held"], "is not MODULE:FUNCTION"),
    (["--directory", "/no/such/dir"], "is not a directory"),
])
def test_bad_input_is_one_line(project, init, args, said):
    done = init(project, *args)
    assert_one_line_usage_error(done)
    assert said in done.stderr


def test_a_project_with_two_packages_must_name_one(project, init):
    (project / "other").mkdir()
    (project / "other" / "__init__.py").write_text("")
    done = init(project)
    assert_one_line_usage_error(done)
    assert "fastsum, other" in done.stderr
    assert init(project, "--package", "other").code == 0
    assert "import" in (project / "bench" / "gilbench_cases.py").read_text()


@pytest.fixture
def env(tmp_path, monkeypatch):
    """An env's prefix in tmp_path, and projectbuild's pip calls recorded
    (pip's answer given by ``env.answers``, None: it succeeded)."""
    class Env(object):
        prefix = tmp_path / "env"
        ran = []
        answers = {}
    Env.prefix.mkdir()
    monkeypatch.setattr(sys, "prefix", str(Env.prefix))

    def run(command, log=None):
        Env.ran.append(command[-1] if command[:3] == [
            sys.executable, "-m", "pip"] else " ".join(command))
        return Env.answers.get(command[-1])
    monkeypatch.setattr(projectbuild, "_run", run)
    return Env


def _modern(tmp_path):
    root = tmp_path / "intpack"
    shutil.copytree(os.path.join(FIXTURES, "intpack_project"), str(root))
    return str(root)


def test_a_build_requirement_that_cannot_install_is_one_line_and_n_a(
        tmp_path, env, capsys):
    from gilbench.model import shadowing
    root = _modern(tmp_path)
    env.answers["setuptools >= 77"] = ("No matching distribution found for "
                                       "setuptools>=77")
    assert projectbuild.main([root, "--", "build", "it"]) == 0
    said = capsys.readouterr().err
    assert said == (
        "gilbench: n/a: intpack's build requires setuptools >= 77, which "
        "does not install on %s (pip: No matching distribution found for "
        "setuptools>=77)\n" % projectbuild._interpreter())
    # Not built, and an earlier build gone; the reason left for the runs.
    assert env.ran == ["setuptools >= 77", "intpack"]
    assert shadowing.unbuilt() == (root, said[len("gilbench: n/a: "):-1])


def test_a_project_builds_after_its_requirements_and_forgets_the_note(
        tmp_path, env, capsys):
    from gilbench.model import shadowing
    root = _modern(tmp_path)
    with open(shadowing.unbuilt_note_path(), "w") as note:
        note.write("%s\nan earlier env's reason\n" % root)
    assert projectbuild.main([root, "--", "build", "it"]) == 0
    assert env.ran == ["setuptools >= 77", "Cython >= 3.1", "build it"]
    assert shadowing.unbuilt() is None and capsys.readouterr().err == ""
    env.answers["it"] = "error: command 'gcc' failed"
    assert projectbuild.main([root, "--", "build", "it"]) == 1
    said = capsys.readouterr().err
    assert said.startswith(
        "gilbench: error: intpack did not build with its build requirements "
        "(setuptools >= 77, Cython >= 3.1) installed: error: command 'gcc' "
        "failed (the whole output: ") and said.count("\n") == 1


def test_projectbuild_without_a_command_is_a_usage_error(capsys):
    assert projectbuild.main(["."]) == 2
    assert capsys.readouterr().err.count("\n") == 1
