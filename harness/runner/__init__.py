"""The command line and the run loop: selecting benchmarks, starting each
one's pyperf program under its limits, the journal and the result file.
Worker side: Python 2.7 compatible."""
