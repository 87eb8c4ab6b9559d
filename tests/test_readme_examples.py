"""README's "Adding a case" examples, one per driver, run as written."""
import json
import os
import re

import pyperf
import pytest

from helpers import MINIMAL_PYPERF, ROOT, run_harness


def readme_examples():
    """The literal blocks of "Adding a case", by the driver they follow."""
    text = open(os.path.join(ROOT, "README.rst")).read()
    section = text.split("Adding a case\n=============")[1]
    blocks = re.findall(r"^\*(\w+)\*[\s\S]*?::\n\n((?:    .*\n|\n)+)",
                        section, re.M)
    return {driver: "\n".join(line[4:] for line in body.splitlines())
            for driver, body in blocks}


def test_there_is_one_example_per_driver():
    assert sorted(readme_examples()) == ["custom", "processes", "threads"]


@pytest.mark.parametrize("driver", ["threads", "processes", "custom"])
def test_example_lists_and_runs(tmp_path, driver):
    module = tmp_path / ("readme_%s_cases.py" % driver)
    module.write_text(readme_examples()[driver])
    listing = run_harness("list", "--json", "--module", module)
    assert listing.code == 0, listing
    (case,) = json.loads(listing.stdout)["cases"]
    assert case["driver"] == driver
    output = tmp_path / "out.json"
    result = run_harness("run", "--module", module, "--quick", "-o", output,
                         *MINIMAL_PYPERF)
    if driver == "threads":  # needs a library nobody has: n/a, reasoned
        assert result.code == 1, result
        assert "n/a: mylib not built" in result.stdout, result
        return
    assert result.code == 0, result
    benchmarks = pyperf.BenchmarkSuite.load(str(output)).get_benchmarks()
    assert benchmarks and all(b.mean() > 0 for b in benchmarks)
    report = run_harness("report", output, "--format", "md")
    assert report.code == 0, report
    if driver == "processes":  # it declares a finding: the page opens so
        findings = report.stdout.index("## Findings")
        assert findings < report.stdout.index("## process scaling")
        assert "speedup at 2 processes?" in report.stdout
