"""Sphinx configuration for gilbench's manual (``tox -e docs``).

gilbench must be importable (installed, as in the tox envs): the family
pages, the command reference and the API reference are generated from
the code at build time, so they cannot drift from it.
"""
import os
import sys

# docs/_ext holds the local extension that renders a family from the
# registry; it is not part of the installed package.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "_ext"))

project = "gilbench"
author = "the gilbench authors"
copyright = "2026, " + author

extensions = [
    "sphinx.ext.autodoc",
    "sphinxarg.ext",
    "gilbench_family",
]

root_doc = "index"
# examples/ holds excerpts the family pages include, not pages.
exclude_patterns = ["_build", "examples"]
html_theme = "furo"
html_title = "gilbench"
# Option names (--fast) stay as typed, not turned into dashes.
smartquotes = False
# Short code samples are shell unless a block says otherwise.
highlight_language = "none"

autodoc_member_order = "bysource"
autodoc_default_options = {"members": True}

# nitpicky (-n) checks every cross-reference; these targets are outside
# this manual (stdlib and argparse types in docstrings) and are not worth
# an intersphinx download at every build.
nitpick_ignore_regex = [
    ("py:class", r"(argparse|concurrent\.futures|threading)\..*"),
]
# Internal classes that docstrings of the public API name but that are
# not part of it (a custom case gets a Pinning from pinning()).
nitpick_ignore = [("py:class", "Pinning")]
