"""Every cell kind by the name a declaration gives it."""
from __future__ import annotations

from gilbench.report import kinds, scaling_kinds

KINDS = dict(kinds.KINDS, efficiency=scaling_kinds.Efficiency,
             scaling=scaling_kinds.Scaling)


def make(declaration, axes, ceiling=None):
    """The kind object for a (checked) declaration; ``axes`` describes the
    family's axes ({name: {"unit", "log"}}); ``ceiling`` is a Lookup of
    the ceiling family's records, for efficiency against it."""
    return KINDS[declaration["cell"]["kind"]](declaration, axes, ceiling)
