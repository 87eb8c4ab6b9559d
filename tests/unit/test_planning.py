"""Counts from the machine (gilbench.model.machine, axes.machine_counts):
the usable CPUs after affinity and a cgroup quota, read in one place and
faked with GILBENCH_PLAN_CPUS; the counts a family asks on 2 to 64 CPUs;
and findings "at N" answered at each file's N."""
import json
import sys

import pytest
from helpers import dims, write_result

from gilbench.errors import UsageError
from gilbench.model import axes, machine
from gilbench.model.findings import USABLE, finding
from gilbench.model.resultformat import FINDINGS_KEY, PLANNED_CPUS_KEY
from gilbench.model.tables import speedup
from gilbench.runner import timeitcmd


def _cgroup(tmp_path, line, files):
    """A fake /proc/self/cgroup and cgroup tree: ``files`` maps paths
    under the root to their text."""
    root = tmp_path / "cgroup"
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    proc = tmp_path / "proc-cgroup"
    proc.write_text(line + "\n")
    return str(root), str(proc)


def test_a_cgroup_v2_quota_of_one_and_a_half_cpus_is_one(tmp_path):
    root, proc = _cgroup(tmp_path, "0::/box/job", {
        "box/job/cpu.max": "150000 100000\n", "box/cpu.max": "max 100000\n",
        "cpu.max": "max 100000\n"})
    allowed = machine.quota(root, proc)
    assert allowed == 1.5
    assert machine.usable(list(range(8)), allowed) == 1


def test_a_parent_cgroups_quota_caps_its_children(tmp_path):
    root, proc = _cgroup(tmp_path, "0::/box/job", {
        "box/job/cpu.max": "max 100000\n", "box/cpu.max": "400000 100000\n"})
    assert machine.usable(list(range(16)), machine.quota(root, proc)) == 4


def test_a_cgroup_v1_quota(tmp_path):
    root, proc = _cgroup(tmp_path, "4:cpu,cpuacct:/docker/abc", {
        "cpu,cpuacct/docker/abc/cpu.cfs_quota_us": "300000\n",
        "cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n",
        "cpu,cpuacct/cpu.cfs_quota_us": "-1\n",
        "cpu,cpuacct/cpu.cfs_period_us": "100000\n"})
    assert machine.quota(root, proc) == 3.0


def test_no_quota_and_an_affinity_mask_of_three(tmp_path):
    root, proc = _cgroup(tmp_path, "0::/", {"cpu.max": "max 100000\n"})
    assert machine.quota(root, proc) is None
    assert machine.quota(str(tmp_path / "none"), str(tmp_path / "x")) is None
    assert machine.usable([0, 5, 9], None) == 3
    # SMT siblings count as the kernel lists them; pinning then places
    # threads on distinct cores first (gilbench.measure.pinning).
    assert machine.usable(list(range(64)), None) == 64


def test_the_plan_is_for_the_cpus_told(monkeypatch):
    monkeypatch.setenv(machine.PLAN_ENVIRONMENT, "16")
    assert machine.planned() == 16
    monkeypatch.delenv(machine.PLAN_ENVIRONMENT)
    assert machine.planned() == machine.usable()
    for bad in ("0", "x", "2000"):
        monkeypatch.setenv(machine.PLAN_ENVIRONMENT, bad)
        with pytest.raises(UsageError):
            machine.planned()


@pytest.mark.parametrize("cpus, gil, pyops, executor, ceiling", [
    (2, [1, 2, 3, 4, 5], [1, 2], [1, 4], [1, 2, 3, 4, 5]),
    (4, [1, 2, 3, 4, 5], [1, 2, 4], [1, 4], [1, 2, 3, 4, 5]),
    (8, [1, 2, 3, 4, 5, 8], [1, 2, 4, 8], [1, 4, 8], [1, 2, 3, 4, 5, 8, 9]),
    (16, [1, 2, 3, 4, 5, 8, 16], [1, 2, 4, 8, 16], [1, 4, 8, 16],
     [1, 2, 3, 4, 5, 8, 16, 17]),
    (64, [1, 2, 3, 4, 5, 16, 64], [1, 2, 16, 64], [1, 4, 16, 64],
     [1, 2, 3, 4, 5, 16, 64, 65]),
])
def test_counts_up_to_the_usable_cpus(cpus, gil, pyops, executor, ceiling):
    assert axes.machine_counts((1, 2, 3, 4, 5), (1, 2), cpus)[0] == gil
    assert axes.machine_counts((1, 2), (1, 2), cpus)[0] == pyops
    assert axes.machine_counts((1, 4), (1, 2), cpus)[0] == executor
    assert axes.machine_counts((1, 2, 3, 4, 5), (1, 2), cpus,
                               beyond=True)[0] == ceiling
    # --quick: 1, 2 and the usable count.
    quick = axes.machine_counts((1, 2), (1, 2), cpus)[1]
    assert quick == ([1, 2] if cpus <= 2 else [1, 2, cpus])


def test_timeit_counts_to_the_usable_cpus_and_one_more(monkeypatch):
    monkeypatch.setenv(machine.PLAN_ENVIRONMENT, "2")
    assert timeitcmd.default_counts() == [1, 2, 3]
    monkeypatch.setenv(machine.PLAN_ENVIRONMENT, "16")
    assert timeitcmd.default_counts() == [1, 2, 4, 8, 16, 17]


def test_a_question_saying_n_must_read_a_count_at_usable():
    with pytest.raises(UsageError):
        finding("at {N} threads?", speedup(over="threads", baseline=1),
                at={"threads": 2})


@pytest.mark.skipif(sys.version_info < (3, 9), reason="report side")
def test_at_n_reads_each_files_planned_count(tmp_path):
    from gilbench.report.data import loader
    from gilbench.report.tables import pivot, questions
    declared = [finding("Speedup at {N} threads?",
                        speedup(over="threads", baseline=1, scaled=True),
                        at={"threads": USABLE})]
    times = [(dims("syn", "call", "v", "cython", threads=count),
              [1e-6 * count / min(count, 2)] * 3) for count in (1, 2, 8)]
    for name, planned in (("a", 2), ("b", 8)):
        write_result(tmp_path / name, "py311.json", "3.11.7", times,
                     tables=[], extra={FINDINGS_KEY: json.dumps(declared),
                                       PLANNED_CPUS_KEY: planned})

    def table(*names):
        results = loader.load_results([str(tmp_path / n) for n in names])
        return questions.findings_table(results,
                                        pivot.family_order(results))
    one = table("a")
    assert [row.question for row in one.rows] == ["Speedup at 2 threads?"]
    assert one.headers == one.interpreters
    assert one.rows[0].answers[0].value == pytest.approx(2.0)
    both = table("a", "b")
    assert [row.question for row in both.rows] == ["Speedup at N threads?"]
    assert [h.split(" (N=")[1] for h in both.headers] == ["2)", "8)"]
    # Read at 8 threads on a 2-CPU machine: the question needs real CPUs.
    assert both.rows[0].answers[1].text == (
        "n/a: the question reads 8 workers at once; this machine has 2 "
        "usable CPUs")


def test_the_last_level_cache_is_the_largest_cache_linux_lists(tmp_path):
    for index, size in (("index0", "48K"), ("index2", "1024K"),
                        ("index3", "32M"), ("index4", "odd")):
        (tmp_path / index).mkdir()
        (tmp_path / index / "size").write_text(size + "\n")
    assert machine.last_level_cache(str(tmp_path)) == 32 << 20
    assert machine.last_level_cache(str(tmp_path / "none")) is None
