"""README's "Writing a case" example runs as written, and README keeps
the front door's promises: the two commands, one click to the manual."""
import os
import re

import pyperf
from helpers import MINIMAL_PYPERF, ROOT, run_harness

README = os.path.join(ROOT, "README.rst")


def readme_example():
    """The literal block of "Writing a case"."""
    text = open(README).read()
    section = text.split("Writing a case\n==============")[1]
    (body,) = re.findall(r"::\n\n((?:    .*\n|\n)+)", section)[:1]
    return "\n".join(line[4:] for line in body.splitlines())


def test_the_example_runs_and_answers_its_question(tmp_path):
    module = tmp_path / "readme_cases.py"
    module.write_text(readme_example())
    output = tmp_path / "out.json"
    result = run_harness("run", "--module", module, "--quick", "-o", output,
                         *MINIMAL_PYPERF)
    assert result.code == 0, result
    benchmarks = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()
    assert benchmarks and all(b.mean() > 0 for b in benchmarks)
    report = run_harness("report", output, "--format", "md")
    assert report.code == 0, report
    findings = report.stdout.index("## Findings")
    assert findings < report.stdout.index("## process scaling")
    assert "speedup at 2 processes?" in report.stdout


def test_readme_is_a_short_front_door():
    text = open(README).read()
    assert len(text.splitlines()) <= 220
    # Its first screen reaches a first answer: install, then timeit on
    # two interpreters, with where a free-threaded one comes from.
    first = "\n".join(text.splitlines()[:50])
    assert "pip install './gilbench[report]'" in first
    assert "gilbench timeit --python" in first and "3.13t" in first
    assert "docs/glossary.rst" in text
    assert "    bash tools/matrix.sh\n" in text
    assert "    bash tools/test.sh\n" in text
    for page in ("getting-started", "reading", "writing-cases"):
        assert "docs/%s.rst" % page in text
        assert os.path.isfile(os.path.join(ROOT, "docs", page + ".rst"))
