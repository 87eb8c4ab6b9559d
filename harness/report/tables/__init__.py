"""Tables from records: pivots, findings, listings, layout."""
