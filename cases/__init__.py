"""Case families: one module each, declaring CASES, TABLES and FINDINGS
(and ORDER); a module whose name starts with an underscore is support
code, not a family."""
