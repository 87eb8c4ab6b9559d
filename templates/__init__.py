"""The report's jinja2 templates, installed as ``gilbench.templates``.

A package (not a bare directory) so setuptools ships the ``*.j2`` files as
its package data and the report finds them the same way in a checkout, an
editable install and a regular install.
"""
