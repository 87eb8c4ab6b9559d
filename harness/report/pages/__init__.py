"""Pages from tables: RST, Markdown, HTML and plots."""
