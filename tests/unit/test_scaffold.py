"""``gilbench init``: the case module, tox file and workflow it writes into
a user's project, and what it refuses."""
import configparser
import os
import shutil

import pytest
from helpers import FIXTURES, Completed, assert_one_line_usage_error

from gilbench.runner import cli, scaffold

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
    assert [f["at"]["call"] for f in namespace["FINDINGS"]] == [
        "held", "released"]
    assert not (project / scaffold.TOX).exists()


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
    assert "gilbench run --module bench/gilbench_cases.py" in (
        ini["testenv"]["commands"])
    # Where gilbench's source is: this clone (an editable install).
    assert ini["gilbench"]["source"] == "{env:GILBENCH_SOURCE:%s}" % (
        os.path.dirname(os.path.dirname(FIXTURES)))
    assert "gilbench refine" in ini["testenv:report"]["commands"]


def test_an_existing_file_is_never_overwritten(project, init):
    cases = project / "bench" / "gilbench_cases.py"
    cases.parent.mkdir()
    cases.write_text("# mine\n")
    done = init(project, "--ci")
    assert done.code == 0, done.stderr
    assert cases.read_text() == "# mine\n"
    assert done.stdout.splitlines() == [
        "kept bench/gilbench_cases.py: it exists (delete it to have it "
        "written again)", "wrote tox-gilbench.ini",
        "wrote .github/workflows/gilbench.yml"]
    workflow = (project / scaffold.WORKFLOW).read_text()
    assert '- {env: py313t-gil, python: "3.13t"}' in workflow
    assert "py27" not in workflow.split("include:")[1]


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
