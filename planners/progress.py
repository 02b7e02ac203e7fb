"""Partial credit for a plan from the exact remaining cost: how much of the way to the goal it went.

    progress(task, plan) = 1 - h*(s_k) / h*(s_0)

where ``s_0`` is the initial state and ``s_k`` the state after the longest applicable prefix of the
plan (the steps before the first one that names no action of the task or cannot be taken). A valid
plan scores 1; a plan whose first step already fails, 0; a prefix that ends as far from the goal as
it started, or farther, or in a dead end, made no progress and scores 0 (the value is clipped to
[0, 1], so that means over items are means of partial credit). ``None`` on a task with no plan
(h*(s_0) infinite): there is no way to go, and the item is left out of the means. A task whose
goal holds initially has nothing to do: 1.

Unlike the fraction of goal atoms reached, it never rewards a step away from the goal: h* counts
every atom that has to be undone. h* is the engine's exact one (`planners.ground_truth`); pass a
``GroundTruth`` of the task to share its cache between calls (every state h* was asked for is kept).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from widthbench.core.errors import UserError
from widthbench.planners.ground_truth import GroundTruth
from widthbench.planners.strips import Action, Task, is_applicable, parse_action, successor


def applicable_prefix_state(task: Task, plan: Sequence[Action | str], state: int | None = None) -> tuple[int, int]:
    """(k, s_k): the number of steps of the longest applicable prefix of ``plan`` from ``state``
    (default: the initial state) and the state it reaches."""
    s = task.init if state is None else state
    for k, step in enumerate(plan):
        if isinstance(step, Action):
            a = step
        else:
            try:
                a = parse_action(task, step)
            except UserError:
                return k, s
        if not is_applicable(s, a):
            return k, s
        s = successor(s, a)
    return len(plan), s


def progress(task: Task, plan: Sequence[Action | str], *, truth: GroundTruth | None = None,
             state: int | None = None) -> float | None:
    """1 - h*(s_k) / h*(s_0), clipped to [0, 1]; None when no plan exists from ``state`` (the
    initial state by default). See the module docstring."""
    gt = truth if truth is not None else GroundTruth(task)
    s0 = task.init if state is None else state
    h0 = gt.h_star(s0)
    if h0 == math.inf:
        return None
    if h0 == 0:
        return 1.0
    _, sk = applicable_prefix_state(task, plan, s0)
    hk = gt.h_star(sk)
    if hk == math.inf:
        return 0.0
    return round(max(0.0, 1.0 - hk / h0), 6)
