"""The former name of :mod:`gilbench.model.tables`, kept for case modules
that import it (new ones import from :mod:`gilbench.api`)."""
from gilbench.model.tables import *  # noqa: F401,F403
