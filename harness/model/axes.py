"""Parameter axes (asv-style params): named, typed value lists.

A case declares axes; the registry takes their cross product.  Each axis
has its default values and a smaller ``quick`` set (``run --quick``).  A
*closed* axis accepts from ``--param`` only the values it declares; an
*open* one (thread and process counts) any value of its type, so
``--threads 1-8`` works on a case declared with 1-5.
"""
import math
import re

from gilbench.errors import UsageError
from gilbench.model.machine import planned as planned_cpus

# Values appear in benchmark names and metadata: keep them plain.
_STRING_VALUE = re.compile(r"^[A-Za-z0-9_.+-]+$")
_AXIS_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
MAX_COUNT = 1024
TYPES = (int, float, str)

try:
    text_type = unicode  # noqa: F821 -- Python 2.7
except NameError:
    text_type = str


def _type_of(value):
    if isinstance(value, bool):  # a bool is an int, but not a usable value
        return None
    if isinstance(value, text_type):
        return str
    for kind in TYPES:
        if isinstance(value, kind):
            return kind
    return None


class Axis(object):
    """One named axis: ``Axis("cs_ns", [0, 100, 1000], quick=[0, 100],
    extra=[10000], unit="ns", log=True)``.

    ``values`` run by default, ``quick`` with ``--quick``; ``extra`` values
    run only when ``--param`` names them (a sweep too long for the default
    run, a rarely wanted variant).
    """

    def __init__(self, name, values, quick=None, unit="", log=False,
                 open=False, minimum=None, maximum=None, extra=()):
        self.name = name
        self.values = list(values)
        self.extra = list(extra)
        self.quick = list(self.values if quick is None else quick)
        self.unit = unit
        self.log = bool(log)
        self.open = bool(open)
        self.minimum = minimum
        self.maximum = maximum
        self.type = self._check()

    def _check(self):
        if not _AXIS_NAME.match(str(self.name)):
            raise UsageError("axis %r: names are lower-case letters, digits "
                             "and '_', starting with a letter" % (self.name,))
        if not self.values or not self.quick:
            raise UsageError("axis %r declares no values" % self.name)
        every = self.values + self.extra + self.quick
        kinds = set(_type_of(v) for v in every)
        if len(kinds) != 1 or None in kinds:
            raise UsageError("axis %r: values must all be int, all float or "
                             "all str" % self.name)
        kind = kinds.pop()
        for value in every:
            self._check_value(value, kind)
        if not self.open and not set(self.quick) <= set(
                self.values + self.extra):
            raise UsageError("axis %r: quick values must be among its "
                             "values" % self.name)
        for values in (self.values + self.extra, self.quick):
            if len(set(values)) != len(values):
                raise UsageError("axis %r repeats a value" % self.name)
        return kind

    def _check_value(self, value, kind):
        if kind is str and not _STRING_VALUE.match(value):
            raise UsageError("axis %r: value %r may hold only letters, "
                             "digits and _ . + -" % (self.name, value))
        if kind is float and (math.isnan(value) or math.isinf(value)):
            raise UsageError("axis %r: value %r is not finite"
                             % (self.name, value))
        if self.minimum is not None and value < self.minimum:
            raise UsageError("axis %r: %r is below %r"
                             % (self.name, value, self.minimum))
        if self.maximum is not None and value > self.maximum:
            raise UsageError("axis %r: %r is above %r"
                             % (self.name, value, self.maximum))

    def profile(self, quick):
        return list(self.quick if quick else self.values)

    def parse(self, text):
        """Values named by ``--param NAME=text`` (int axes take ranges), in
        a fixed order whatever the user's: declaration order, then
        undeclared values (of an open axis) ascending."""
        values = set()
        for item in text.split(","):
            item = item.strip()
            if not item:
                raise UsageError("--param %s=%s: empty value" % (self.name,
                                                                 text))
            values.update(self._parse_item(item, text))
        declared = [v for v in self.values + self.extra if v in values]
        return declared + sorted(values - set(declared))

    def _parse_item(self, item, text):
        if self.type is int and re.match(r"^\d+-\d+$", item):
            low, high = [int(x) for x in item.split("-")]
            if low > high:
                raise UsageError("--param %s=%s: range %s is backwards"
                                 % (self.name, text, item))
            return [self.accept(v, text) for v in range(low, high + 1)]
        try:
            value = self.type(item)
        except ValueError:
            raise UsageError("--param %s=%s: %r is not %s"
                             % (self.name, text, item, _A[self.type]))
        return [self.accept(value, text)]

    def accept(self, value, text):
        """``value`` if it is of this axis's kind and range, else a
        UsageError; whether the axis declares it is :meth:`declares`."""
        try:
            self._check_value(value, self.type)
        except UsageError as exc:
            raise UsageError("--param %s=%s: %s" % (self.name, text, exc))
        return value

    def declares(self, value):
        return self.open or value in self.values or value in self.extra

    def describe(self):
        """JSON-able facts for ``list --json`` and the result metadata."""
        return {"name": self.name, "type": self.type.__name__,
                "values": self.values, "quick": self.quick,
                "extra": self.extra,
                "unit": self.unit, "log": self.log, "open": self.open}


_A = {int: "a whole number", float: "a number", str: "a word"}


def counts(name, values, quick, unit, machine=False, beyond=False):
    """An open axis of positive counts (threads, processes, workers).

    ``machine``: a question "up to N" -- the declared values, and the
    points ``machine_points`` adds for the usable CPUs (``beyond``:
    and one more, where oversubscription is part of the question)."""
    if machine:
        values, quick = machine_counts(values, quick, planned_cpus(), beyond)
    return Axis(name, values, quick=quick, unit=unit, open=True, minimum=1,
                maximum=MAX_COUNT)


def machine_points(cpus):
    """The counts a question "up to N" reads on ``cpus`` usable CPUs: 1,
    2 and, toward the top where contention shows, a quarter, half and all
    of them; above 16 CPUs a quarter and all, so that a 64-CPU plan takes
    at most about twice a 2-CPU one (docs/reading.rst)."""
    top = (cpus // 4, cpus) if cpus > 16 else (cpus // 4, cpus // 2, cpus)
    return sorted(set(c for c in (1, 2) + top if 1 <= c <= cpus))


def machine_counts(values, quick, cpus, beyond=False):
    """(values, quick) of a count axis on ``cpus`` usable CPUs: the
    declared ones (a seed's range, what a 2-CPU machine ran), plus the
    machine's points above them (and ``cpus`` + 1 when ``beyond``);
    ``quick`` gains the usable count.  On 2 CPUs nothing changes for a
    declared range reaching 2 (3 with ``beyond``)."""
    values, quick = list(values), list(quick)
    top = max(values)
    added = [c for c in machine_points(cpus) if c > top]
    if beyond and cpus + 1 > top:
        added.append(cpus + 1)
    if cpus > max(quick + values):
        quick.append(cpus)
    return values + added, quick


def threads(values=None, quick=(1, 2), machine=None, beyond=False):
    """The thread-count axis.  By default 1-5 (the range of the C-extension
    cache notes the gil family reproduces) and the usable CPUs' points
    above them; declared ``values`` are kept exactly unless ``machine``."""
    return counts("threads", (1, 2, 3, 4, 5) if values is None else values,
                  quick, "threads", values is None if machine is None
                  else machine, beyond)


def processes(values=None, quick=(1, 2), machine=None, beyond=False):
    """The process-count axis: as :func:`threads`, by default 1-4."""
    return counts("processes", (1, 2, 3, 4) if values is None else values,
                  quick, "processes", values is None if machine is None
                  else machine, beyond)


def format_value(value):
    """How a value reads in a benchmark name (repr keeps 0.1 as 0.1)."""
    if isinstance(value, float):
        return repr(value)
    return str(value)
