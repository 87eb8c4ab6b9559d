"""The former name of :mod:`gilbench.model.axes`, kept for case modules
that import it (new ones import from :mod:`gilbench.api`)."""
from gilbench.model.axes import *  # noqa: F401,F403
