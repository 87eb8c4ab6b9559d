"""report.collector: the report's pause of the cyclic collector."""
import gc
import weakref

from gilbench.report import collector


class Node:
    pass


def test_what_a_paused_report_built_is_old_not_young_after_it():
    """Re-enabled, the collector must not find the report's objects in its
    youngest generation (its next allocation would walk them all); they
    stay collectable."""
    if not gc.isenabled():
        gc.enable()
    gc.collect()
    with collector.paused():
        built = [[k] for k in range(50_000)]
        cycle = Node()
        cycle.self = cycle
        gone = weakref.ref(cycle)
        del cycle
    assert gc.isenabled()
    oldest = {id(obj) for obj in gc.get_objects(generation=2)}
    assert id(built[0]) in oldest and id(built[-1]) in oldest
    gc.collect()
    assert gone() is None
