"""Loading result files: records, interpreters, lookups."""
