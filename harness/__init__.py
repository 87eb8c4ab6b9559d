"""gilbench: concurrency benchmarks of C extensions across interpreters.

Worker side (this package, except ``gilbench.report``) runs inside every
target interpreter, Python 2.7 included; ``gilbench.report`` needs >= 3.9.
"""
__version__ = "0.1.0"
