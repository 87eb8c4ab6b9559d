"""The former name of :mod:`gilbench.model.findings`, kept for case modules
that import it (new ones import from :mod:`gilbench.api`)."""
from gilbench.model.findings import *  # noqa: F401,F403
