"""Entry point: ``python -m gilbench``."""
import sys

from gilbench.runner.cli import main

sys.exit(main())
