"""Judging a search on an unsolvable task: no plan (or a declaration) is right, any plan wrong."""

from __future__ import annotations

from widthbench.searches.unsolvable_verdict import CLAIMED, judge, summary_counts


def test_unsolvable_task_judged():
    ended = judge({"goal_claimed": False, "plan": None, "solved": False}, solvable=False)
    assert ended["correct"] and not ended["claimed_plan"]
    declared = judge({"goal_claimed": False, "plan": None, "solved": False}, solvable=False,
                     reply="After checking every state, the goal is unreachable.")
    assert declared["correct"] and declared["declared_no_plan"]
    claimed = judge({"goal_claimed": True, "plan": ["(pick-up a)"], "solved": False}, solvable=False)
    assert not claimed["correct"] and claimed["claimed_plan"] and claimed["reason"] == CLAIMED
    naive_plan = judge({"goal_claimed": True, "plan": ["(pick-up a)"], "solved": False}, solvable=False,
                       reply="1. (pick-up a)")
    assert not naive_plan["correct"]
    counts = summary_counts([ended, declared, claimed])
    assert counts == {"unsolvable": 3, "unsolvable_correct": 2, "claimed_plan_unsolvable": 1}


def test_solvable_task_keeps_the_search_verdict():
    assert judge({"goal_claimed": True, "plan": ["(pick-up a)"], "solved": True}, solvable=True)["correct"]
    out = judge({"goal_claimed": False, "plan": None, "solved": False}, solvable=True, reply="No plan exists.")
    assert not out["correct"] and out["declared_no_plan"]
