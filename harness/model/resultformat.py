"""The metadata contract between the worker side and the report side.

A gilbench result file is a pyperf BenchmarkSuite.  Every benchmark
carries, as pyperf metadata (typed: int, float or str):

``gilbench_format``
    :data:`FORMAT_VERSION`; the report refuses other versions.
``family``, ``case``, ``variant``, ``backend``
    the name parts (str).
one key per axis, e.g. ``threads`` (int), ``kind`` (str), ``cs_ns`` (int)
    the axis value with its declared type.
``gilbench_axes``
    JSON list of ``{"name", "unit", "log"}``, one per axis of the case, in
    declaration order: which keys are axes, their unit, and whether their
    values are log-spaced (plots and crossovers read this).
``driver``
    ``threads``, ``processes`` or ``custom``.
``ops_per_loop`` (int) and ``concurrency`` (int)
    how many operations one loop is (a threads case: one call per thread)
    and how many threads or processes run at once (the report flags cells
    whose concurrency exceeds ``cpus_usable``).
``value_means``, ``description``
    what one value is (e.g. wall seconds per loop), and the case in words.
``gilbench_outliers``
    ``interruptions`` where the case declares that only an interruption
    makes its values slower (``CaseSpec(outliers=INTERRUPTIONS)``): the
    report leaves out values beyond the benchmark's median by more than
    its fence; pyperf's own commands keep every value.  Absent: every
    value counts.
``gilbench_tables``
    JSON list of the family's table declarations (``gilbench.model.tables``).
``gilbench_findings``
    JSON list of the family's finding declarations
    (``gilbench.model.findings``), when it declares any.
``gilbench_order`` (int or float)
    where the family goes on the page, when it declares ``ORDER``.
``gilbench_reference``
    JSON object ``{count axis: {"case", "variant", "backend"}}``: the
    benchmarks the family offers as this machine's ceiling, when it
    declares ``REFERENCE`` (the ceiling family does); under ``"memory"``,
    the same for its memory ceiling.  Files written
    before this key read the ceiling family's of that time
    (``LEGACY_REFERENCE``).

Per run (pyperf worker) it adds ``cpu_utilisation`` (CPU seconds of the
process, or process tree, over the timed window / wall seconds),
``foreign_cpu`` (the share of the usable CPUs other processes took while
the values were measured, over all of them, where they last long enough
for the ticks to tell; Linux only) with the CPU seconds it is the share
of, ``foreign_seconds`` over ``foreign_capacity``, ``worker_start``
(``fork``, ``fresh interpreter``, or ``calibration fork``: the fork that
calibrated the loops, measuring on; its ``duration`` holds no set-up,
which the calibration did), for a renewing fork
``worker_heap_objects`` (objects of random sizes and number it kept
before loading the case) and ``worker_reimported`` (case modules it
imported again), ``cpus_usable``,
``cpu_affinity_effective``, ``python_gil``, ``py_gil_disabled_build``,
``machine_probe_ns`` (the machine's state: a fixed Python loop's ns per
iteration around the values, gilbench.measure.probe),
``pinned_cpus`` and ``pinned_cores`` (package:core of each; with
``--pin-threads``), with ``--why`` in a benchmark's first program
``why_gil``, ``why_lock``, ``why_alloc``, ``why_running`` (the shares of
py-spy's samples of the work's threads: waiting for the GIL, on a lock,
in the allocator or reference counting, running the call) and
``why_samples`` (their count), or ``why_unavailable`` (why none was
taken; gilbench.measure.whysampler), and whatever the case records
with ``gilbench.api.record``.  A finding declaration may carry
``oversubscribed`` (true: its question is about more workers than CPUs),
``margin`` (the smallest difference that matters, a share) and
``precision`` (a share: the rounds measure it until its interval lies
within that of its point).

A benchmark that produced no value is listed in the file's
``gilbench_missing`` metadata (stored once, as pyperf hoists metadata
common to all benchmarks): a JSON list of ``{"name", "reason",
"metadata"}`` where ``reason`` starts with ``n/a:``, ``failed:`` or
``hung:`` and ``metadata`` holds the same benchmark-level keys as above,
so the report places the reason in the right cell without parsing names.

Every benchmark also carries ``gilbench_run`` (stored once): a JSON object
saying how the run was made -- its case ``modules`` (a path made
absolute), ``params``, ``quick``, ``pin_threads``, ``fresh_workers``,
``timeout``, ``memory_limit``, ``pyperf_options`` and the measured
``settings`` (environment), its ``design`` (``adaptive`` or ``fixed``)
and told ``budget`` -- which ``gilbench extend`` repeats to append more
worker processes.  A run it appended carries ``gilbench_extended`` (int
1).

What each benchmark's measurement cost (gilbench.model.design): every run
of it carries ``gilbench_looks`` (int: its first look, and each round
that added worker processes), ``gilbench_decision_looks`` (int: those
looks at which an undecided finding kept it going; the report widens its
interval for them), ``gilbench_seconds`` (float: the wall time of its
benchmark programs, first look and rounds) and ``gilbench_stopped`` (why
it stopped: ``narrow``, ``decided``, ``budget``, ``busy``, ``limit``,
``failed`` or ``fixed``);
a run a round added carries ``gilbench_round`` (int, from 1).  Files
written before them lack them: one look, stopped ``fixed``.

Every benchmark also carries how its interpreter was built
(``gilbench.measure.buildinfo``; pyperf adds ``python_compiler`` and
``python_cflags``): ``python_origin`` (where it came from: "pyenv
(3.13.0)", "Debian package pypy3 7.3.11+dfsg-2", or what gilbench's own
install wrote), ``python_optimizations`` ("PGO, LTO", "none", ...) and
``python_libc`` ("glibc 2.36").  Files written before them lack them.
On PyPy, ``pypy_gc_nursery`` says the runner's nursery as its GC states
it ("16.0MB"; gilbench.measure.pypynursery), which its forks share.
Where the tox env (``TOX_ENV_NAME``) or the file's name names another
interpreter than the one that ran (a ``py313t`` env tox resolved to 3.11),
every benchmark carries ``python_misnamed``: one line saying how.
``gilbench_planned_cpus`` (int) is the usable CPU count the run's plan was
made for (``GILBENCH_PLAN_CPUS``, else the machine's): a finding "at N
threads" reads that N.

A benchmark's child program writes its family's ``gilbench_tables``,
``gilbench_findings``, ``gilbench_order`` and ``gilbench_reference``
with every benchmark, and
``gilbench_axes``, ``value_means`` and ``description`` are the same for
every benchmark of a case.  The merged result file holds them once instead, in
``gilbench_declarations``: a JSON object ``{family: {key: value, "cases":
{"case variant backend": {key: value}}}}``, the same on every benchmark
(so pyperf stores it once, in the file's common metadata); a benchmark or
entry keeps a case constant of its own only where it differs, and a
benchmark with values keeps ``value_means`` beside them.  The
report reads both layouts.

Nothing ever parses a benchmark name; names are for people (see
``gilbench.model.registry``).
"""

FORMAT_VERSION = 2
FORMAT_KEY = "gilbench_format"
AXES_KEY = "gilbench_axes"
TABLES_KEY = "gilbench_tables"
FINDINGS_KEY = "gilbench_findings"
ORDER_KEY = "gilbench_order"
# A result file holds each family's declarations, and each case's
# constants, once under this key.
DECLARATIONS_KEY = "gilbench_declarations"
# A family's REFERENCE (gilbench.model.tables.reference), JSON.
REFERENCE_KEY = "gilbench_reference"
DECLARATION_KEYS = (TABLES_KEY, FINDINGS_KEY, ORDER_KEY, REFERENCE_KEY)
# How the file's run was made (its case modules, selection, sizing and
# harness options), so ``gilbench extend`` measures more of the same.
RUN_KEY = "gilbench_run"
# How the interpreter was built (gilbench.measure.buildinfo), stored once.
BUILD_KEYS = ("python_origin", "python_optimizations", "python_libc")
# The usable CPUs the run was planned for (gilbench.model.machine.planned):
# the N of a finding "at N threads".
PLANNED_CPUS_KEY = "gilbench_planned_cpus"
# How the interpreter is not what its tox env or the file's name says.
MISNAMED_KEY = "python_misnamed"
# A run added later by ``gilbench extend`` carries it (int 1).
EXTENDED_KEY = "gilbench_extended"
# What a benchmark's measurement cost, on each of its runs, and the round
# that added a run (gilbench.model.design).
LOOKS_KEY = "gilbench_looks"
DECISION_LOOKS_KEY = "gilbench_decision_looks"
SECONDS_KEY = "gilbench_seconds"
STOPPED_KEY = "gilbench_stopped"
WHY_UNAVAILABLE_KEY = "why_unavailable"
# --why's per-run keys (gilbench.measure.whysampler): each class's share of
# the samples, their count, or why none were taken.
WHY_CLASSES = ("gil", "lock", "alloc", "running")
WHY_KEYS = tuple("why_" + name for name in WHY_CLASSES) + (
    "why_samples", WHY_UNAVAILABLE_KEY)
ROUND_KEY = "gilbench_round"
# The block a run was measured in (gilbench.model.design): one worker
# process of each benchmark of the block, in a random order, so what the
# machine did then is in all of them.  "<run token>.<block>", a string.
BLOCK_KEY = "gilbench_block"
# The benchmark a run was measured beside in one worker process, value by
# value (gilbench.measure.duet): the i-th values of both are neighbours.
PARTNER_KEY = "gilbench_partner"
# The machine's state while a run's values were measured: its probe loop's
# ns per iteration (gilbench.measure.probe), a float.
PROBE_KEY = "machine_probe_ns"
# worker_start of a run the loop calibration's fork measured on.
CALIBRATION_FORK = "calibration fork"
CASES_KEY = "cases"
MEANS_KEY = "value_means"
# What a case declares of its values' outliers (CaseSpec's ``outliers``):
# None, every value counts, or INTERRUPTIONS.
OUTLIERS_KEY = "gilbench_outliers"
INTERRUPTIONS = "interruptions"
OUTLIER_RULES = (None, INTERRUPTIONS)
CASE_KEYS = (AXES_KEY, MEANS_KEY, "description", OUTLIERS_KEY)
DEFAULT_ORDER = 100  # a family that declares no ORDER
# Another process's share of the usable CPUs (a run's ``foreign_cpu``)
# above which a benchmark was measured on a busy machine: one CPU of two
# taken reads 0.5, and the ticks' rounding on an idle machine stays below
# (docs/reading.rst, "A busy machine").
BUSY_SHARE = 0.3
# CPU seconds of windows below which a share is not told: each read of
# /proc/stat is off by up to a tick (10 ms) per CPU.
FOREIGN_MIN_CAPACITY = 0.2


def value_seconds(run):
    """The seconds each value of pyperf ``run`` took: pyperf keeps a
    value per loop, so times its loops and inner loops."""
    meta = run.get_metadata()
    scale = meta.get("loops", 1) * meta.get("inner_loops", 1)
    return [value * scale for value in run.values]


def warmup_seconds(run):
    """The seconds the warmups of pyperf ``run`` took in all (each kept
    per loop, with its own loop count)."""
    inner = run.get_metadata().get("inner_loops", 1)
    return sum(loops * value * inner for loops, value in run.warmups or ())


def foreign_share(pairs):
    """Other processes' share of the CPUs over (CPU seconds they took,
    CPU seconds there were) ``pairs``, or None when the latter add up
    to too little for the ticks to tell."""
    pairs = list(pairs)
    capacity = sum(pair[1] for pair in pairs)
    if capacity < FOREIGN_MIN_CAPACITY:
        return None
    return max(0.0, sum(pair[0] for pair in pairs) / capacity)


def busiest_share(metadatas):
    """The largest share of the CPUs other processes took while measured
    runs (their ``metadatas``) ran: of one run (its ``foreign_cpu``), or
    of all together where each is too short to tell alone; None where
    not even together."""
    metadatas = list(metadatas)
    shares = [meta["foreign_cpu"] for meta in metadatas
              if meta.get("foreign_cpu") is not None]
    together = foreign_share((meta["foreign_seconds"],
                              meta["foreign_capacity"])
                             for meta in metadatas
                             if "foreign_capacity" in meta)
    if together is not None:
        shares.append(together)
    return max(shares) if shares else None
# The drivers' count axes: what a reference point is given per.
COUNT_AXES = ("threads", "processes")
# What a file written before REFERENCE_KEY existed was read against: the
# built-in ceiling family's declaration of that time.
LEGACY_REFERENCE = {"ceiling": {
    axis: {"case": "spin", "variant": axis, "backend": "cython"}
    for axis in COUNT_AXES}}
# The family ``gilbench timeit`` generates from a statement.
TIMEIT_FAMILY = "timeit"
MISSING_KEY = "gilbench_missing"
NAME_PARTS = ("family", "case", "variant", "backend")

# The declarations' schema (gilbench.model.tables and gilbench.model.findings
# build them, the report checks and reads them): a table's keys, each cell
# kind's keys, a finding's keys; and the pseudo-dimension a table may
# pivot on besides the metadata's, one value per result file.
INTERPRETER = "interpreter"
TABLE_KEYS = ("title", "rows", "columns", "per", "where", "cell", "note")
# Keys a table gained later, and what a file written before means by
# their absence.
OPTIONAL_TABLE_KEYS = {"plot": True}
CELL_KEYS = {
    "value": ("per_op",),
    "ratio": ("over", "numerator", "denominator", "fallback"),
    "speedup": ("over", "baseline", "scaled"),
    "throughput": ("unit",),
    "recorded": ("key", "unit"),
    "crossover": ("over", "numerator", "denominator", "fallback", "along",
                  "unit"),
    "best": ("over", "of", "pick", "among"),
    "efficiency": ("over", "baseline", "scaled", "against"),
    "scaling": ("over", "baseline", "scaled"),
}
# Keys a cell kind gained later: files written before lack them.
OPTIONAL_CELL_KEYS = {"crossover": ("rises",), "recorded": ("bounds",)}
CELL_KINDS = tuple(sorted(CELL_KEYS))
FINDING_KEYS = ("question", "cell", "at")


def case_id(metadata):
    """A case's key among its family's CASES_KEY: "case variant backend"."""
    return " ".join(str(metadata.get(part, "")) for part in NAME_PARTS[1:])
