"""``worker_index()``: which of the driver's N threads or processes is
calling, 0..N-1, so a case can give workers different roles (readers and
writers, as JMH's @Group does).  None outside a driver's worker."""
import threading

_local = threading.local()


def set_index(index):
    _local.index = index


def worker_index():
    return getattr(_local, "index", None)
