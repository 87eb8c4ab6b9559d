"""Native extensions benchmarked by the case families (built by setup.py)."""
