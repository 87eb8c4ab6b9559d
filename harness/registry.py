"""The former name of :mod:`gilbench.model.registry`, kept for case modules
that import it (new ones import from :mod:`gilbench.api`)."""
from gilbench.model.registry import *  # noqa: F401,F403
