"""Entry point: ``python -m gilbench``."""
import sys

from gilbench.cli import main

sys.exit(main())
