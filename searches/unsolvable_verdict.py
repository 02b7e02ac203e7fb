"""Judging a tree search on a certified unsolvable instance (``generate --unsolvable``).

On an unsolvable task there is no plan to find: a search is right when it ends without a plan (no
goal claimed: the tree was exhausted, or the budget ran out) or the model declared that no plan
exists (`pddl_domains.readers.impossible`, e.g. the naive method's whole-plan reply); a plan offered
(a goal claimed, or a plan read from the reply) is wrong, and counted apart as "claimed a plan for an
unsolvable task". On a solvable task nothing changes (``solved`` is the verdict), and a declaration
that no plan exists is recorded as ``declared_no_plan``.

`judge(item, solvable, reply=None)` returns the fields to add to a solve item (``searches.solve_run``'s
per-instance dict: it reads ``goal_claimed``, ``plan`` and ``solved``); `summary_counts(items)` the
run's counts. Tests: tests/searches/test_unsolvable.py.
"""

from __future__ import annotations

from widthbench.pddl_domains.readers.impossible import declarations
from widthbench.pddl_domains.readers.reply import reply_text

CLAIMED = "claimed a plan for an unsolvable task"


def instance_solvable(instance) -> bool:
    """False for a certified unsolvable instance (``Instance.solvable``), else True."""
    return getattr(instance, "solvable", None) is not False


def declares_no_plan(reply: str | None) -> bool:
    """Whether a reply (its thinking left out) declares that no plan exists."""
    return bool(reply) and bool(declarations(reply_text(reply)))


def judge(item: dict, solvable: bool, reply: str | None = None) -> dict:
    """``{"solvable", "correct", "claimed_plan", "declared_no_plan", "reason"?}`` for one solve item.

    ``reply``: the model's text where the method asks for a whole plan (naive); None for the tree
    searches (their answer is the search's end: a goal claimed or not)."""
    declared = declares_no_plan(reply)
    offered = bool(item.get("goal_claimed")) or item.get("plan") not in (None, [])
    if solvable:
        return {"solvable": True, "correct": bool(item.get("solved")), "claimed_plan": False,
                "declared_no_plan": declared}
    out = {"solvable": False, "correct": not offered, "claimed_plan": offered, "declared_no_plan": declared}
    if offered:
        out["reason"] = CLAIMED
    elif declared:
        out["reason"] = "declared that no plan exists (right: the task is unsolvable)"
    else:
        out["reason"] = "ended without a plan (right: the task is unsolvable)"
    return out


def summary_counts(items) -> dict:
    """Counts over judged items: unsolvable items, right on them, and plans claimed for them."""
    unsolvable = [it for it in items if it.get("solvable") is False]
    return {"unsolvable": len(unsolvable),
            "unsolvable_correct": sum(bool(it.get("correct")) for it in unsolvable),
            "claimed_plan_unsolvable": sum(bool(it.get("claimed_plan")) for it in unsolvable)}
