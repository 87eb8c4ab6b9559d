"""Facts about the process and interpreter recorded with every result."""
import platform
import resource
import sys
import sysconfig
import time

import psutil

_PROCESS = psutil.Process()


def process_cpu_seconds():
    """User + system CPU time of this process, all threads.

    Not psutil's cpu_times(): on Linux it counts 10 ms clock ticks, too
    coarse for a 50 ms value.  process_time() reads the process CPU clock;
    2.7 lacks it, and getrusage() has microseconds there.
    """
    if hasattr(time, "process_time"):
        return time.process_time()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cpu_affinity():
    """CPUs this process may run on, else all of the machine's."""
    try:
        return sorted(_PROCESS.cpu_affinity())
    except (AttributeError, NotImplementedError, psutil.Error):
        return list(range(psutil.cpu_count() or 1))


def gil_state():
    """How the interpreter treats the GIL, as metadata.

    ``python_gil`` is "enabled" or "disabled" where the interpreter can say
    (sys._is_gil_enabled, 3.13+), else what the implementation implies.
    """
    is_enabled = getattr(sys, "_is_gil_enabled", None)
    if is_enabled is not None:
        state = "enabled" if is_enabled() else "disabled"
    elif platform.python_implementation() in ("CPython", "PyPy"):
        state = "enabled"  # neither had a GIL-free build before 3.13
    else:
        state = "unknown"
    disabled_build = sysconfig.get_config_var("Py_GIL_DISABLED")
    return {"python_gil": state,
            "py_gil_disabled_build": int(bool(disabled_build))}


def process_facts():
    """Metadata for every run: GIL state and the CPUs the run could use."""
    cpus = cpu_affinity()
    facts = gil_state()
    facts["cpus_usable"] = len(cpus)
    facts["cpu_affinity_effective"] = ",".join(str(cpu) for cpu in cpus)
    return facts
