"""Where a page links into gilbench's manual: its pages built under the
``--docs-url`` a report is given, or, without one (a page stays
self-contained), the manual's source file named in words."""
from __future__ import annotations


def page_url(docs_url, name):
    """The built manual's page ``name`` (``reading``, ``families/gil``)
    under ``docs_url``, or None without one."""
    if not docs_url:
        return None
    base = docs_url if docs_url.endswith("/") else docs_url + "/"
    return "%s%s.html" % (base, name)


def glossary_sentence(docs_url):
    """The line the text pages give under their legend."""
    return "Every mark and term: %s." % (
        page_url(docs_url, "glossary") or "docs/glossary.rst in gilbench's "
        "manual")
