"""How many CPUs a run may use, read in one place: the CPUs this process
may run on (its affinity mask; SMT siblings count as the kernel lists
them), capped by the CPU quota of its cgroup (a container's
``--cpus=1.5`` is one usable CPU: two threads would be throttled).

``GILBENCH_PLAN_CPUS=N`` makes the plan -- the count axes' default
values, ``gilbench list`` and ``run --dry-run`` -- be made for N usable
CPUs instead: for planning a bigger machine's run, and for tests.  What a
run records as ``cpus_usable`` is always this machine's.
Worker side: Python 2.7-compatible."""
import os

from gilbench.errors import UsageError

PLAN_ENVIRONMENT = "GILBENCH_PLAN_CPUS"
CGROUP_ROOT = "/sys/fs/cgroup"
PROC_CGROUP = "/proc/self/cgroup"


def affinity():
    """The CPUs this process may run on, sorted."""
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    import psutil  # Python 2.7
    try:
        return sorted(psutil.Process().cpu_affinity())
    except (AttributeError, NotImplementedError, psutil.Error):
        return list(range(psutil.cpu_count() or 1))


def quota(root=CGROUP_ROOT, proc_cgroup=PROC_CGROUP):
    """The CPUs' worth of time this process's cgroup (or an ancestor)
    allows per period, or None when unlimited or unknown.  cgroup v2's
    ``cpu.max`` ("150000 100000": 1.5 CPUs), else v1's
    ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``."""
    found = []
    for directory in _cgroup_directories(root, proc_cgroup):
        allowed = _v2_quota(directory)
        if allowed is None:
            allowed = _v1_quota(directory)
        if allowed is not None:
            found.append(allowed)
    return min(found) if found else None


def usable(cpus=None, allowed=None):
    """The usable CPU count: the affinity mask's size (``cpus``), capped
    by the whole CPUs a quota (``allowed``) gives, at least 1.  With no
    arguments, this process's."""
    if cpus is None:
        cpus, allowed = affinity(), quota()
    count = len(cpus)
    if allowed is not None:
        count = min(count, int(allowed))
    return max(1, count)


def planned():
    """The usable CPU count a plan is made for: GILBENCH_PLAN_CPUS if
    set, else this machine's."""
    told = os.environ.get(PLAN_ENVIRONMENT)
    if told is None or told == "":
        return usable()
    try:
        count = int(told)
    except ValueError:
        count = 0
    if not 1 <= count <= 1024:
        raise UsageError("%s=%r: a whole number of CPUs from 1 to 1024"
                         % (PLAN_ENVIRONMENT, told))
    return count


def _cgroup_directories(root, proc_cgroup):
    """The process's cgroup directories, from its own up to the root."""
    try:
        with open(proc_cgroup) as stream:
            lines = stream.read().splitlines()
    except (IOError, OSError):
        return []
    paths = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3 and (parts[1] == "" or "cpu" in
                                parts[1].split(",")):
            # v2 ("0::/x"): under root; v1 ("4:cpu,cpuacct:/x"): under
            # root/cpu (or root/cpu,cpuacct).
            bases = [root] if parts[1] == "" else [
                os.path.join(root, parts[1]), os.path.join(root, "cpu")]
            for base in bases:
                path = parts[2].strip("/")
                while True:
                    paths.append(os.path.join(base, path) if path else base)
                    if not path:
                        break
                    path = os.path.dirname(path)
    return [p for p in paths if os.path.isdir(p)]


CACHES = "/sys/devices/system/cpu/cpu0/cache"


def last_level_cache(root=CACHES):
    """Bytes of the largest CPU cache Linux lists for cpu0 (the last
    level, shared or not), or None where it lists none."""
    sizes = []
    try:
        names = os.listdir(root)
    except OSError:
        return None
    for name in names:
        said = _read(os.path.join(root, name, "size"))
        text = said[0] if said else ""
        if text[:-1].isdigit() and text[-1:] in ("K", "M", "G"):
            sizes.append(int(text[:-1]) << {"K": 10, "M": 20, "G": 30}[
                text[-1]])
    return max(sizes) if sizes else None


def _read(path):
    try:
        with open(path) as stream:
            return stream.read().split()
    except (IOError, OSError):
        return None


def _v2_quota(directory):
    said = _read(os.path.join(directory, "cpu.max"))
    if not said or said[0] == "max":
        return None
    period = int(said[1]) if len(said) > 1 else 100000
    return int(said[0]) / float(period)


def _v1_quota(directory):
    limit = _read(os.path.join(directory, "cpu.cfs_quota_us"))
    period = _read(os.path.join(directory, "cpu.cfs_period_us"))
    if not limit or not period or int(limit[0]) <= 0:
        return None
    return int(limit[0]) / float(period[0])
