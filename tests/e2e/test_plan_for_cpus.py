"""The plan a default run makes from the usable CPUs, for this machine and
for bigger ones faked with GILBENCH_PLAN_CPUS: the counts per family, the
longest adaptive run (its budget, first looks included) bounded at about
twice a 2-CPU plan's, and a family run end to end at a faked 8-CPU
machine's counts on this one."""
import json
import os

from helpers import MINIMAL_PYPERF, run_harness

from gilbench.model import machine


def _plan(cpus=None):
    env = dict(os.environ)
    env.pop(machine.PLAN_ENVIRONMENT, None)
    if cpus is not None:
        env[machine.PLAN_ENVIRONMENT] = str(cpus)
    listed = run_harness("list", "--json", env=env)
    assert listed.code == 0, listed
    return json.loads(listed.stdout)["plan"]


def _longest(plan):
    """The longest an adaptive run of the plan takes: its budget, which
    counts its first looks, unless the first looks alone take longer."""
    assert plan["design"] == "adaptive"
    return max(plan["estimated_seconds"], plan["budget_seconds"])


def test_plans_for_2_16_and_64_cpus():
    plans = {cpus: _plan(cpus) for cpus in (2, 16, 64)}
    assert _plan()["families"] == _plan(machine.usable())["families"]
    two = plans[2]["families"]
    assert two["gil"]["counts"] == {"threads": [1, 2, 3, 4, 5]}
    assert two["pyops"]["counts"] == {"threads": [1, 2]}
    assert two["executor"]["counts"] == {"workers": [1, 4]}
    for cpus in (16, 64):
        families = plans[cpus]["families"]
        for family in ("ceiling", "gil", "pyops"):
            assert cpus in families[family]["counts"]["threads"], family
        assert max(families["pyops"]["counts"]["threads"]) == cpus
        ratio = _longest(plans[cpus]) / _longest(plans[2])
        assert 1.0 < ratio <= 2.0, (cpus, ratio)


def test_dry_run_prints_the_plan_and_runs_nothing(tmp_path):
    env = dict(os.environ, **{machine.PLAN_ENVIRONMENT: "16"})
    said = run_harness("run", "--dry-run", "--case", "gil.*", "-o",
                       tmp_path / "x.json", env=env)
    assert said.code == 0, said
    lines = said.stdout.splitlines()
    assert lines[0] == ("plan for 16 usable CPUs (GILBENCH_PLAN_CPUS=16), "
                        "adaptive design:")
    assert "threads=1,2,3,4,5,8,16" in lines[1]
    assert lines[-2].startswith("  total: first looks about ")
    assert "within a budget of" in lines[-2]
    fixed = run_harness("run", "--dry-run", "--case", "gil.*", "-o",
                        tmp_path / "x.json", "--design", "fixed", env=env)
    assert fixed.stdout.splitlines()[-2].startswith("  total: about ")
    told = run_harness("run", "--dry-run", "--case", "gil.*", "-o",
                       tmp_path / "x.json", "--budget", "42", env=env)
    assert "within a budget of 42 s (--time SECONDS)" in told.stdout
    assert not os.listdir(str(tmp_path))


def test_a_faked_8_cpu_plan_runs_here_oversubscribed(tmp_path):
    env = dict(os.environ, **{machine.PLAN_ENVIRONMENT: "8"})
    output = tmp_path / "py.json"
    ran = run_harness("run", "--case", "ceiling.spin.threads.cython*", "-o",
                      output, *MINIMAL_PYPERF, env=env)
    assert ran.code == 0, ran
    report = run_harness("report", output, "--format", "md", "--width", "0")
    assert report.code == 0, report
    text = report.stdout
    # The finding reads N = 8, which this 2-CPU machine cannot give.
    assert ("speedup of a perfectly parallel C loop at 8 threads?" in text)
    assert ("n/a: the question reads 8 workers at once; this machine has "
            "%d usable CPUs" % machine.usable()) in text
    table = text.split("## Ceiling: speedup over 1 worker, threads")[1]
    rows = [line for line in table.splitlines() if line.startswith("| 8 ")]
    assert rows and "^" in rows[0]
