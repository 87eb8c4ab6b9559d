"""Bad input: exit code 2, one line 'gilbench: error: ...', no traceback,
and an existing output file left exactly as it was."""
import fcntl
import json
import os
import subprocess
import sys

import pyperf
import pytest
from helpers import (
    MINIMAL_PYPERF,
    ROOT,
    assert_one_line_usage_error,
    write_result,
)

# Prepended to every bad `run` so that, should the harness wrongly accept
# the bad part, it runs one tiny benchmark into tmp_path (never results/).
# Later options override these (argparse: last one wins; --case appends).
SAFE_RUN = ["--threads", "1", "--case", "gil.trivial.gil.python"] + \
    MINIMAL_PYPERF

ORIGINAL = b'{"precious": "do not touch", "bytes": "\\u00e9"}\n'


@pytest.fixture
def existing(tmp_path):
    """A pre-existing output file with known bytes."""
    path = tmp_path / "existing.json"
    path.write_bytes(ORIGINAL)
    return path


def assert_untouched(path):
    assert path.read_bytes() == ORIGINAL
    leftovers = [p.name for p in path.parent.iterdir()
                 if p.name.startswith(path.name) and p != path]
    assert leftovers == []


BAD_RUN_ARGS = [
    ["--case", "nosuch"],
    ["--threads", "0"],
    ["--threads", "x-y"],
    ["--threads", "3-1"],
    ["--timeout", "0"],
    ["--timeout", "-5"],
    ["--timeout", "soon"],
    ["--append", "foo"],
    ["--append=foo"],
    ["--worker"],
    ["--bench", "x"],
    ["--processes", "notanumber"],
    ["--module", "no_such_case_module_xyz"],
    ["--no-such-option-xyz"],
    ["--param", "colour=red"],
    ["--param", "threads"],
    ["--param", "=1"],
    ["--param", "threads="],
    ["--param", "threads=two"],
    ["--param", "threads=2"],  # SAFE_RUN's --threads is the same axis
    ["--param", "kind=spin", "--param", "kind=mutex"],
    ["--quick", "--case", "gil.trivial.gil.python/t4"],
    ["--quick", "--threads", "0"],
    ["--bench-case", "gil.trivial.gil.python"],
]


@pytest.mark.parametrize("bad", BAD_RUN_ARGS, ids=" ".join)
def test_bad_run_input_is_one_line_and_leaves_output(harness, existing, bad):
    result = harness("run", *(SAFE_RUN + ["-o", existing] + bad))
    assert_one_line_usage_error(result)
    assert_untouched(existing)


def test_run_unknown_case_names_the_case(harness, existing):
    result = harness("run", "--case", "nosuch", "-o", existing)
    assert_one_line_usage_error(result)
    assert "'nosuch'" in result.stderr
    assert_untouched(existing)


def test_run_output_in_missing_directory(harness):
    result = harness("run", *(SAFE_RUN + ["-o", "/nonexistent/dir/x.json"]))
    assert_one_line_usage_error(result)
    assert "/nonexistent/dir" in result.stderr
    assert not os.path.exists("/nonexistent/dir")


def test_run_output_is_a_directory(harness, tmp_path):
    result = harness("run", *(SAFE_RUN + ["-o", tmp_path]))
    assert_one_line_usage_error(result)
    assert os.listdir(str(tmp_path)) == []


def test_run_nan_timeout_is_refused(harness, existing):
    """BUG: harness/cli.py cmd_run checks ``args.timeout <= 0``, which is
    False for NaN, so ``--timeout nan`` is accepted and silently disables
    the timeout (child._wait compares ``time.time() > nan``: never true)."""
    result = harness("run", *(SAFE_RUN + ["-o", existing,
                                          "--timeout", "nan"]))
    assert_one_line_usage_error(result)
    assert_untouched(existing)


def test_run_abbreviated_reserved_option_is_refused(harness, existing,
                                                    tmp_path):
    """BUG: harness/bench.py check_pyperf_options only refuses the exact
    spellings of reserved options, but pyperf's argparse accepts unique
    prefixes: ``--app FILE`` (= --append) passes the check and the child
    pyperf program writes FILE, outside the harness's atomic output."""
    sneaky = tmp_path / "sneaky.json"
    result = harness("run", *(SAFE_RUN + ["-o", existing,
                                          "--app", sneaky]))
    assert_one_line_usage_error(result)
    assert_untouched(existing)
    assert not sneaky.exists()


@pytest.fixture
def bad_results(tmp_path):
    """Files that `report` must refuse, by name."""
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text('{"benchmarks": [1, 2')
    not_pyperf = tmp_path / "not_pyperf.json"
    not_pyperf.write_text(json.dumps({"a": 1}))
    empty = tmp_path / "empty.json"
    empty.write_text("")
    foreign = tmp_path / "foreign.json"
    run = pyperf.Run([1e-3, 1.1e-3], metadata={"name": "timeit",
                                               "unit": "second"},
                     collect_metadata=False)
    pyperf.BenchmarkSuite([pyperf.Benchmark([run])]).dump(str(foreign))
    return {"missing": tmp_path / "does-not-exist.json", "corrupt": corrupt,
            "not_pyperf": not_pyperf, "empty": empty, "foreign": foreign,
            "empty_dir": tmp_path / "empty_dir"}


@pytest.mark.parametrize("which", ["missing", "corrupt", "not_pyperf",
                                   "empty", "foreign", "empty_dir"])
def test_bad_report_input(harness, bad_results, which):
    if which == "empty_dir":
        bad_results[which].mkdir()
    result = harness("report", bad_results[which])
    assert_one_line_usage_error(result)
    assert result.stdout == ""


def test_report_of_missing_file_says_so(harness):
    result = harness("report", "/tmp/does-not-exist.json")
    assert_one_line_usage_error(result)
    assert "does not exist" in result.stderr


def test_report_of_foreign_pyperf_file_says_not_gilbench(harness,
                                                        bad_results):
    result = harness("report", bad_results["foreign"])
    assert_one_line_usage_error(result)
    assert "not a gilbench result" in result.stderr


@pytest.mark.parametrize("which", ["missing", "corrupt", "not_pyperf",
                                   "foreign"])
def test_bad_report_input_leaves_output(harness, bad_results, existing,
                                        which):
    result = harness("report", bad_results[which], "-o", existing)
    assert_one_line_usage_error(result)
    assert_untouched(existing)


def test_report_bad_file_among_good_leaves_output(harness, bad_results,
                                                  existing, tmp_path):
    rst = tmp_path / "existing.rst"
    rst.write_bytes(ORIGINAL)
    result = harness("report", bad_results["corrupt"], "-o", rst)
    assert_one_line_usage_error(result)
    assert rst.read_bytes() == ORIGINAL


def test_report_bad_format(harness, bad_results):
    result = harness("report", "--format", "pdf", bad_results["foreign"])
    assert_one_line_usage_error(result)


def test_report_without_paths(harness):
    assert_one_line_usage_error(harness("report"))


def test_report_gilbench_file_missing_dimensions_is_a_usage_error(
        harness, tmp_path):
    """BUG: harness/report/loader.py load_result only checks for 'family';
    a file with 'family' but without case/variant/backend/threads metadata
    (an older or hand-edited result) dies with KeyError in _measurement
    (line 59-60) instead of a one-line usage error."""
    run = pyperf.Run([1e-3], metadata={"name": "gil.x", "family": "gil",
                                       "unit": "second"},
                     collect_metadata=False)
    path = tmp_path / "partial_meta.json"
    pyperf.BenchmarkSuite([pyperf.Benchmark([run])]).dump(str(path))
    assert_one_line_usage_error(harness("report", path))


def test_report_output_is_a_directory(harness, tmp_path):
    """``-o DIR`` is one line and exit 2, and leaves nothing behind (it
    once wrote DIR.partial, then failed in os.replace with a traceback)."""
    good = write_result(tmp_path / "in", "py39.json", "3.9.18")
    target = tmp_path / "out_dir"
    target.mkdir()
    result = harness("report", good, "-o", target)
    assert_one_line_usage_error(result)
    assert os.listdir(str(target)) == []
    assert not list(tmp_path.glob("*.partial"))


@pytest.mark.parametrize("argv", [["frobnicate"], ["frobnicate", "--x"],
                                  ["Run"]])
def test_unknown_command(harness, argv):
    result = harness(*argv)
    assert_one_line_usage_error(result)
    assert "unknown command" in result.stderr
    assert result.stdout == ""


def test_list_bad_threads(harness):
    assert_one_line_usage_error(harness("list", "--threads", "0"))


def test_list_unknown_case(harness):
    assert_one_line_usage_error(harness("list", "--case", "nosuch"))


@pytest.mark.parametrize("bad", [["--param", "colour=red"],
                                 ["--param", "threads=x"],
                                 ["--quick", "--case", "gil.*/t5"]])
def test_list_bad_params(harness, bad):
    assert_one_line_usage_error(harness("list", "--json", *bad))


def test_quick_case_error_names_the_profile(harness, existing):
    result = harness("run", "--quick", "--case", "gil.trivial.gil.python/t4",
                     "-o", existing)
    assert_one_line_usage_error(result)
    assert "quick profile" in result.stderr


def test_help_exits_zero(harness):
    result = harness("--help")
    assert result.code == 0
    assert "run" in result.stdout and "report" in result.stdout


@pytest.mark.parametrize("body", ["raise RuntimeError('broken at import')\n",
                                  "CASES = 'not a list'\n",
                                  "CASES = [object()]\n"])
def test_bad_case_module_is_one_line(harness, existing, tmp_path, body):
    module = tmp_path / "bad_case_module_for_cli.py"
    module.write_text(body)
    result = harness("run", "--module", module, "-o", existing,
                     *MINIMAL_PYPERF)
    assert_one_line_usage_error(result)
    assert_untouched(existing)


def test_a_reader_that_goes_away_is_no_traceback():
    """``gilbench list --json | head -1``: the rest of the listing has
    nowhere to go; gilbench stops quietly with SIGPIPE's status.  The pipe
    is shrunk to one page so the ~80 KB listing cannot fit in it before the
    reader goes away."""
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, 1031, 4096)  # F_SETPIPE_SZ (Linux)
    process = subprocess.Popen(
        [sys.executable, "-m", "gilbench", "list", "--json"], cwd=ROOT,
        stdout=write_end, stderr=subprocess.PIPE)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reader:
        assert reader.readline().strip() == b"{"
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=60) == 141, stderr
    assert stderr == ""


@pytest.mark.parametrize("outputs, problem", [
    (["a.rst", "b.rst"], "two -o outputs of one format"),
    (["--format", "md", "a.md", "b.html"], "--format names one"),
    (["a.md", "missing/b.html"], "does not exist"),
])
def test_several_outputs_that_cannot_all_be_written_write_none(
        harness, tmp_path, outputs, problem):
    """Several -o are checked before any page is rendered: a wrong one is
    one line, and the pages already there stay as they were."""
    good = write_result(tmp_path / "in", "py39.json", "3.9.18")
    args = []
    for item in outputs:
        if item.endswith((".rst", ".md", ".html")):
            path = tmp_path / item
            if path.parent.is_dir():
                path.write_bytes(ORIGINAL)
            args += ["-o", path]
        else:
            args.append(item)
    result = harness("report", good, *args)
    assert_one_line_usage_error(result)
    assert problem in result.stderr
    for item in outputs:
        path = tmp_path / item
        if path.exists():
            assert path.read_bytes() == ORIGINAL


def test_several_outputs_write_every_page(harness, tmp_path):
    good = write_result(tmp_path / "in", "py39.json", "3.9.18")
    pages = [tmp_path / ("report" + suffix)
             for suffix in (".rst", ".md", ".html")]
    result = harness("report", good, *sum((["-o", p] for p in pages), []))
    assert result.code == 0, result
    for page in pages:
        assert "wrote %s" % page in result.stdout
        assert "CPython 3.9" in page.read_text()
    assert pages[2].read_text().startswith("<!DOCTYPE html>")
