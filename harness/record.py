"""The former name of :mod:`gilbench.measure.record`, kept for case
modules that import it (new ones import from :mod:`gilbench.api`)."""
from gilbench.measure.record import *  # noqa: F401,F403
