"""How an interpreter was built (gilbench.measure.buildinfo): an origin
file written by gilbench's own installs wins; otherwise the install's
place and configure options tell."""
import json
import os

from gilbench.measure import buildinfo


def test_the_origin_file_of_gilbench_installs_wins(tmp_path):
    (tmp_path / buildinfo.ORIGIN_FILE).write_text(json.dumps(
        {"origin": "Debian unstable package python3.14 3.14.10-1",
         "optimizations": "PGO, LTO (Debian's build rules)"}))
    assert buildinfo.origin(str(tmp_path), None) == (
        "Debian unstable package python3.14 3.14.10-1")
    assert buildinfo.optimizations(str(tmp_path)) == (
        "PGO, LTO (Debian's build rules)")


def test_a_pyenv_install_is_named_by_its_version(tmp_path):
    prefix = tmp_path / ".pyenv" / "versions" / "3.11.7"
    prefix.mkdir(parents=True)
    assert buildinfo.origin(str(prefix), None) == "pyenv (3.11.7)"


def test_an_unreadable_origin_file_is_ignored(tmp_path):
    (tmp_path / buildinfo.ORIGIN_FILE).write_text("{not json")
    assert buildinfo.origin(str(tmp_path), None) == (
        "unknown (%s)" % tmp_path)


def test_configure_options_tell_pgo_and_lto(monkeypatch, tmp_path):
    import sysconfig
    for args, expected in (("'--enable-optimizations' '--with-lto'",
                            "PGO, LTO"),
                           ("'--prefix=/x' '--with-lto'", "LTO"),
                           ("'--prefix=/x'", "none")):
        monkeypatch.setattr(sysconfig, "get_config_var",
                            lambda name, args=args: args)
        assert buildinfo.optimizations(str(tmp_path)) == expected


def test_a_pypy_without_an_origin_file_is_translated_not_configured(
        monkeypatch, tmp_path):
    import platform
    monkeypatch.setattr(platform, "python_implementation", lambda: "PyPy")
    assert buildinfo.optimizations(str(tmp_path)) == (
        "PyPy's translation (RPython, JIT)")


def test_this_process_facts_are_one_line_strings():
    facts = buildinfo.facts()
    assert set(facts) == {"python_origin", "python_optimizations",
                          "python_libc"}
    assert all(value and "\n" not in value for value in facts.values())
    if os.path.exists("/lib/x86_64-linux-gnu/libc.so.6"):
        assert facts["python_libc"].startswith("glibc 2.")
