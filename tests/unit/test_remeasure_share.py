"""Which share of the CPUs other processes took a measurement reads as,
for measuring a busy benchmark again: a measurement whose values were too
short to tell one is unknown, never quiet (it replaced a busy measurement
that way, and the busy flag went with it)."""
import pyperf

from gilbench.runner import remeasure


def saved(tmp_path, shares):
    runs = [pyperf.Run((), warmups=((4, 0.01),),
                       metadata={"name": "b", "loops": 4},
                       collect_metadata=False)]
    for share in shares:
        metadata = {"name": "b", "loops": 4}
        if share is not None:
            metadata["foreign_cpu"] = share
        runs.append(pyperf.Run((0.01, 0.011), warmups=(),
                               metadata=metadata, collect_metadata=False))
    path = str(tmp_path / "b.json")
    pyperf.Benchmark(runs).dump(path)
    return path


def test_the_busiest_measured_run_speaks_for_the_benchmark(tmp_path):
    assert remeasure.busiest_share(saved(tmp_path, [0.1, 0.45])) == 0.45


def test_runs_that_could_not_tell_are_left_out(tmp_path):
    assert remeasure.busiest_share(saved(tmp_path, [None, 0.3])) == 0.3


def test_a_measurement_that_could_not_tell_at_all_is_unknown(tmp_path):
    assert remeasure.busiest_share(saved(tmp_path, [None, None])) is None


def test_runs_each_too_short_to_tell_tell_together(tmp_path):
    path = saved(tmp_path, [None, None])
    bench = pyperf.Benchmark.load(path)
    runs = [pyperf.Run(run.values, warmups=run.warmups, metadata=dict(
        run.get_metadata(), foreign_seconds=0.06, foreign_capacity=0.12),
        collect_metadata=False) for run in bench.get_runs() if run.values]
    assert remeasure.share_of(runs) == 0.5
    assert remeasure.share_of(runs[:1]) is None  # 0.12 CPU-s cannot tell
