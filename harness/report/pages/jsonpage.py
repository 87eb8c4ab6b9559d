"""The report as JSON (``--format json``), for CI jobs and dashboards:
the findings and every table cell with its number, interval, flags and
reason, in the schema docs/report-schema.json describes
(docs/result-format.rst).  Keys are sorted and nothing depends on when
or where it was rendered, so the same results give the same bytes."""
from __future__ import annotations

import json
import math

from gilbench.report.numbers.cells import spaced
from gilbench.report.tables import questions

SCHEMA = "gilbench-report"
VERSION = 1


def _number(number):
    """A JSON number, or "inf"/"-inf" (a crossover's never/always bound);
    None stays None."""
    if number is None:
        return None
    if math.isinf(number):
        return "inf" if number > 0 else "-inf"
    return number


def cell(found):
    """One Cell: what it says and the numbers behind it."""
    return {
        "text": spaced(found.text, found.note),
        "value": _number(found.value),
        "interval": (None if found.interval is None
                     else [_number(bound) for bound in found.interval]),
        "significant": found.significant,
        "verdict": verdict(found),
        "flags": found.flags,
        "reason": found.text if found.missing else None,
    }


def verdict(found):
    """"above", "below" (of 1, or a best-of's winner ahead), "same"
    (within the margin; a best-of's tie), "undecided", or None where the
    cell compares nothing."""
    if found.same is not None:
        return "same"
    if found.significant is False:
        return "undecided"
    if not found.significant:
        return None
    if found.winner is not None:
        return "ahead"
    return "above" if (found.value or 0) > 1 else "below"


def answer(found):
    """A finding's answer: its cell, what measuring it cost, and why it
    does not scale (None: it scales, or its question is not whether)."""
    cost = None
    if found.cost:
        cost = dict(found.cost, text=questions.cost_wording(found.cost))
    cause = None
    if found.cause is not None:
        cause = {"name": found.cause.name, "text": found.cause.text}
    return dict(cell(found), cost=cost, cause=cause)


def finding(row, interpreters):
    return {
        "family": row.family,
        "question": row.question,
        "kind": row.declaration["cell"]["kind"],
        "evidence": row.evidence or None,
        "answers": [dict(answer(found), interpreter=interpreter)
                    for interpreter, found in zip(interpreters,
                                                  row.answers)],
    }


def table(shown):
    return {
        "family": shown.family,
        "title": shown.title,
        "note": shown.note,
        "kind": (shown.declaration["cell"]["kind"]
                 if shown.declaration is not None else None),
        "rows_are": shown.row_dim,
        "columns_are": shown.column_dim,
        "header": [head.text for head in shown.header],
        "rows": [{"label": row[0].text, "cells": [cell(c) for c in row[1:]]}
                 for row in shown.rows],
    }


def document(tables, title, intro, legend, found=None):
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "title": title,
        "intro": list(intro),
        "legend": legend,
        "interpreters": list(found.interpreters) if found else [],
        "findings": ([finding(row, found.interpreters) for row in found.rows]
                     if found else []),
        "tables": [table(shown) for shown in tables],
    }


def render(tables, title, intro, legend, found=None):
    return json.dumps(document(tables, title, intro, legend, found),
                      sort_keys=True, indent=1, allow_nan=False) + "\n"
