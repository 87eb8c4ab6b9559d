"""The declaration model: what case modules declare (specs, axes, drivers,
tables, findings) and the metadata contract of result files.  Imported
on both sides; Python 2.7 compatible."""
