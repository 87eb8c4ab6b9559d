"""Entry point: ``python -m gilbench``."""
import sys

from gilbench.model.modules import working_directory_last

working_directory_last()

from gilbench.runner.cli import main  # noqa: E402

sys.exit(main())
