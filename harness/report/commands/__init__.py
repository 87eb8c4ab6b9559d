"""The report-side commands: report, compare, refine."""
