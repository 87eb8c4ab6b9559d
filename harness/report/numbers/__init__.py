"""The numbers behind cells: intervals, fits, wording."""
