"""What the reader could not read: the unread answers of each cell, grouped by why the reader gave up.

A cell is one sub-task in one mode (style, thinking, prompt extension). An answer is unread when the
headline reader raised a parse error; its reason is the error's rule -- the message with the quoted
text (the first failing line or clause), PDDL forms and numbers left out, e.g. "cannot read the step
'…': it reads as no action of this task" -- so that answers failing the same rule count together.
Each reason comes with its count and one example (the item, the whole message naming the failing
line, the start of the answer), so a user running a new model sees whether a score is about planning
or about reading. Used by `widthbench.subtasks.results.tables` (table.md, errors.json) and
`widthbench.reports.html` (report.html).
"""

from __future__ import annotations

import re

from widthbench.subtasks.results.cells import Cell

EXAMPLE_CHARS = 400


def reason_of(message: str) -> str:
    """The rule of a parse error: its message without the text it quotes."""
    r = re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "'…'", message)
    r = re.sub(r"\([a-z][\w\-]*(?: [^()\s]+)*\)", "(…)", r)
    r = re.sub(r"\b\d+\b", "N", r)
    return r[:160]




def _answer(rec: dict) -> str:
    raw = rec.get("raw_answer")
    if isinstance(raw, list):  # several requests per item: the first one that did not read
        raw = next((x for x in raw if x), "")
    return (raw or "")[:EXAMPLE_CHARS]


def unread_by_reason(records: list[dict]) -> dict[Cell, list[dict]]:
    """Cell -> [{"reason", "count", "example": {"item_id", "parse_error", "answer"}}], most frequent
    reason first, for the answers whose headline reading is a parse error (failed requests and
    skipped items are not answers)."""
    groups: dict[Cell, dict[str, dict]] = {}
    for rec in records:
        msg = rec.get("parse_error")
        if not msg or rec.get("request_error") or rec.get("skipped"):
            continue
        reasons = groups.setdefault(Cell.of(rec), {})
        reason = reason_of(str(msg))
        entry = reasons.get(reason)
        if entry is None:
            entry = reasons[reason] = {"reason": reason, "count": 0,
                                       "example": {"item_id": rec.get("item_id"), "parse_error": str(msg),
                                                   "answer": _answer(rec)}}
        entry["count"] += 1
    return {cell: sorted(rs.values(), key=lambda e: (-e["count"], e["reason"])) for cell, rs in groups.items()}
