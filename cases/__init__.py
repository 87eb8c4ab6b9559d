"""Case families: one module each, declaring CASES (and RATIOS)."""
