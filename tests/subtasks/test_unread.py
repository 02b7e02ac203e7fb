"""A user sees what the reader could not read: unread answers of each cell grouped by the reason the
reader gave up, with counts and an example, in errors.json, table.md and report.html."""

from __future__ import annotations

from widthbench.reports.html import _unread
from widthbench.subtasks.results.tables import _errors_md, error_analysis
from widthbench.subtasks.results.cells import Cell
from widthbench.subtasks.results.unread import reason_of, unread_by_reason


def _rec(item, error, style="nl", thinking="off", sub="plan-generation", answer="1. Put it down."):
    return {"subtask": sub, "item_id": item, "style": style, "thinking": thinking, "extension": False,
            "domain": "blocksworld", "model": "m", "parsed": None, "truth": [], "correct": False, "metrics": {},
            "parse_error": error, "request_error": None, "raw_answer": answer}


RECORDS = [
    _rec("bw-1", "cannot read the step 'put it down': it reads as no action of this task"),
    _rec("bw-2", "cannot read the step 'stack it': it reads as no action of this task"),
    _rec("bw-3", "two different plans in one reply: (unstack a b) / (pick-up c)"),
    _rec("bw-4", "cannot read the step 'x': it reads as no action of this task", style="pddl"),
    _rec("bw-5", None),  # read
    {**_rec("bw-6", "no answer"), "request_error": "timeout"},  # a failed request is no answer
]


def test_reason_leaves_out_the_quoted_text_pddl_forms_and_numbers():
    assert reason_of("cannot read the step 'put it down': it reads as no action") == \
        "cannot read the step '…': it reads as no action"
    assert reason_of("two different plans in one reply: (unstack a b) / (pick-up c)") == \
        "two different plans in one reply: (…) / (…)"
    assert reason_of("cannot read step 3: \"x\"") == "cannot read step N: '…'"


def test_unread_answers_are_grouped_per_cell_by_reason_with_count_and_example():
    got = unread_by_reason(RECORDS)
    nl = got[Cell("plan-generation", "nl", False, False, "blocksworld")]
    assert [(e["reason"], e["count"]) for e in nl] == [
        ("cannot read the step '…': it reads as no action of this task", 2), ("two different plans in one reply: (…) / (…)", 1)]
    assert nl[0]["example"] == {"item_id": "bw-1", "answer": "1. Put it down.",
                                "parse_error": "cannot read the step 'put it down': it reads as no action of this task"}
    assert [e["count"] for e in got[Cell("plan-generation", "pddl", False, False, "blocksworld")]] == [1]
    assert len(got) == 2  # the read answer and the failed request are in no cell


def test_errors_json_table_md_and_the_page_show_them():
    a = error_analysis(RECORDS)["plan-generation"]["_unread"]
    assert [(c["cell"], c["unread"]) for c in a] == [("plan-generation nl, thinking off", 3),
                                                   ("plan-generation pddl, thinking off", 1)]
    md = "\n".join(_errors_md({"plan-generation": error_analysis(RECORDS)["plan-generation"]}))
    assert "- unread answers, plan-generation nl, thinking off: 3, by the reason the reader gave up:" in md
    assert "  - cannot read the step '…': it reads as no action of this task ×2 (e.g. item bw-1: cannot read the " \
           "step 'put it down'" in md
    page = _unread(RECORDS)
    assert {(u["style"], u["unread"]) for u in page} == {("nl", 3), ("pddl", 1)}
    assert all(u["domain"] == "blocksworld" and u["model"] == "m" for u in page)
