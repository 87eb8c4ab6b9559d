"""The pyops family: every operation runs through its threads driver in
this process; a shared variant really shares one object between the
threads and a private one gives each its own; the declarations ask what
issue #33 asks (efficiency against the ceiling, shared over private)."""
import threading

import pytest
from helpers import drive

from gilbench.api import USABLE
from gilbench.cases import pyops
from gilbench.measure.workerindex import set_index

SPECS = {spec.base_name: spec for spec in pyops.CASES}


def test_ftscalingbench_operations_and_shared_objects_are_cases():
    scaling = [s for s in pyops.CASES if s.case in pyops._SCALING_CASES]
    assert len(scaling) == 13
    assert {s.variant for s in scaling} == {pyops.PRIVATE}
    for case in ("dict_item", "list_append", "attribute", "counter"):
        variants = {s.variant for s in pyops.CASES if s.case == case}
        assert variants == {pyops.PRIVATE, pyops.SHARED}


@pytest.mark.parametrize("name", sorted(SPECS))
@pytest.mark.parametrize("threads", [1, 2])
def test_every_operation_runs_through_its_driver(name, threads):
    drive(SPECS[name], {"threads": threads}, 200)


def objects_of(name, threads):
    """Each thread's Objects as prepare() made them."""
    work = SPECS[name].prepare({"threads": threads})
    return work.objects


@pytest.mark.parametrize("case", ["dict_item", "list_append", "attribute",
                                  "counter"])
def test_shared_means_one_object_private_one_each(case):
    shared = objects_of("pyops.%s.shared.python" % case, 3)
    private = objects_of("pyops.%s.private.python" % case, 3)
    assert len({id(o.chosen) for o in shared}) == 1
    assert len({id(o.chosen) for o in private}) == 3


def test_the_dict_threads_write_their_own_keys():
    work = SPECS["pyops.dict_item.shared.python"].prepare({"threads": 2})
    objects = work.objects
    for index in range(2):
        set_index(index)
        work(5)
    set_index(None)
    assert objects[0].chosen == {"thread-0": 5, "thread-1": 5}


def test_a_thread_local_is_read_in_each_thread():
    work = SPECS["pyops.thread_local.private.python"].prepare({"threads": 2})
    seen = []

    def worker(index):
        set_index(index)
        work(3)
        seen.append(work.objects[index].shared.value)
    threads = [threading.Thread(target=worker, args=(i,)) for i in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [1, 1]


def test_declarations_ask_for_efficiency_and_sharing():
    kinds = [f["cell"]["kind"] for f in pyops.FINDINGS]
    assert kinds[:2] == ["best", "best"]
    assert all(f["cell"]["of"]["kind"] == "efficiency"
               and f["cell"]["of"]["against"] == "ceiling"
               for f in pyops.FINDINGS[:2])
    sharing = [f for f in pyops.FINDINGS if f["cell"]["kind"] == "ratio"]
    assert sorted(f["at"]["case"] for f in sharing) == sorted(
        pyops._SHARING_CASES)
    assert all(f["at"]["threads"] == USABLE for f in sharing)
