"""--pin-threads puts threads on distinct physical cores first, from
Linux's CPU topology (a fake sysfs tree here), and says which cores."""
import sys

import pytest

from gilbench.measure import pinning


def topology(root, cores):
    """cores: {cpu: (package, core)} as sysfs would tell them."""
    for cpu, (package, core) in cores.items():
        folder = root / ("cpu%d" % cpu) / "topology"
        folder.mkdir(parents=True)
        (folder / "physical_package_id").write_text("%d\n" % package)
        (folder / "core_id").write_text("%d\n" % core)
    return str(root)


# Two cores with two SMT siblings each, numbered as Linux usually does:
# cpu0 and cpu2 share core 0, cpu1 and cpu3 core 1.
SMT = {0: (0, 0), 1: (0, 1), 2: (0, 0), 3: (0, 1)}


def test_distinct_cores_come_first(tmp_path):
    root = topology(tmp_path, SMT)
    assert pinning.by_core([0, 1, 2, 3], root) == [0, 1, 2, 3]
    # numbered the other way (siblings adjacent): 0 and 1 share a core
    adjacent = topology(tmp_path / "b", {0: (0, 0), 1: (0, 0), 2: (0, 1),
                                         3: (0, 1)})
    assert pinning.by_core([0, 1, 2, 3], adjacent) == [0, 2, 1, 3]


def test_packages_one_after_the_other(tmp_path):
    root = topology(tmp_path, {0: (1, 0), 1: (0, 0), 2: (1, 1),
                               3: (0, 1)})
    assert pinning.by_core([0, 1, 2, 3], root) == [1, 3, 0, 2]


def test_an_untold_topology_keeps_the_order(tmp_path):
    root = topology(tmp_path, {0: (0, 0)})  # cpu1 has no topology
    assert pinning.by_core([1, 0], root) == [1, 0]
    assert pinning.core_of(1, root) is None


@pytest.mark.skipif(not sys.platform.startswith("linux"),
                    reason="pinning is Linux only")
def test_pinning_describes_cpus_and_cores(tmp_path):
    root = topology(tmp_path, {0: (0, 0), 1: (0, 0), 2: (0, 1), 3: (0, 1)})
    pin = pinning.Pinning([0, 1, 2, 3], root)
    assert pin.describe(3) == "0,2,1"
    assert pin.cores(3) == "0:0,0:1,0:0"


def test_a_run_pins_by_default_wherever_it_can():
    assert pinning.pin_by_default("linux")
    assert not pinning.pin_by_default("darwin")
    assert not pinning.pin_by_default("win32")


def test_the_run_options_settle_pinning_from_the_platform(monkeypatch):
    from gilbench.runner import cli, runoptions
    for linux in (True, False):
        monkeypatch.setattr(pinning, "pin_by_default", lambda: linux)
        args, _ = cli.run_parser().parse_known_args([])
        runoptions.check_run_options(args)
        assert args.pin_threads is linux
        for flag, pinned in (("--pin-threads", True),
                             ("--no-pin-threads", False)):
            args, _ = cli.run_parser().parse_known_args([flag])
            runoptions.check_run_options(args)
            assert args.pin_threads is pinned


def test_pinning_and_not_pinning_at_once_is_bad_input():
    from gilbench.errors import UsageError
    from gilbench.runner import cli
    with pytest.raises(UsageError, match="--no-pin-threads: not allowed"):
        cli.run_parser().parse_known_args(["--pin-threads",
                                           "--no-pin-threads"])
