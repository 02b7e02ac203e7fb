"""Scoring one item with both readers (`subtasks.score`): a reply that reads as several plans."""

from __future__ import annotations

from widthbench.planners import strips
from widthbench.subtasks.items import ItemOptions, Pool, build_items
from widthbench.subtasks.scoring import Mode, score_item


def _undo_pair(task):
    for a in strips.applicable_actions(task, task.init):
        s1 = strips.successor(task.init, a)
        for b in strips.applicable_actions(task, s1):
            if strips.successor(s1, b) == task.init:
                return [str(a), str(b)]
    return None


def test_a_reply_read_two_ways_is_scored_only_when_both_readings_score_alike():
    """Two different plans in one reply: scored (the other reading recorded under "ambiguous") when
    both get the same correct and metrics (two plans failing at the same first step); a parse error
    when they do not (an optimal plan and a longer valid one)."""
    (item,) = build_items("plan-generation", Pool("blocksworld", 5, initial=3), 1, ItemOptions())
    task, mode = item.task, Mode("pddl", False)
    plan = list(item.truth["optimal_plan"])
    undo = _undo_pair(task)
    assert plan and undo
    bad = [str(a) for a in task.actions if a not in strips.applicable_actions(task, task.init)][:2]

    def reply(first, second):
        return "Plan:\n" + "\n".join(first) + "\n\nSo the plan is:\n" + "\n".join(second)

    alike = score_item(item, mode, [reply([bad[0]] + plan, [bad[1]] + plan)])
    flex = alike["readings"]["flexible"]
    assert flex["parse_error"] is None and flex["correct"] is False and flex["metrics"]["failing_step"] == 1
    assert flex["ambiguous"] == [[bad[1]] + plan]
    assert "ambiguous" not in alike["readings"]["strict"]  # the strict reader never resolves readings

    differ = score_item(item, mode, [reply(plan, undo + plan)])
    assert "two different plans" in differ["readings"]["flexible"]["parse_error"]
    assert "ambiguous" not in differ["readings"]["flexible"]
