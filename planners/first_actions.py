"""All optimal first actions of a state by one bounded breadth-first search from all its successors.

    optimal_first_actions(task, s, h_star_s, heuristic) -> list[Action]   # sorted by action id

An applicable action a is an optimal next action of s iff h*(succ(s, a)) = h*(s) - 1. Deciding that
with one planner call per successor repeats the same work for every successor (they share most of
their futures). Here it is one search: a breadth-first search whose roots are all the successors of
s, each state carrying the set of roots (as a bitmask of actions) that reach it at its *multi-source*
distance g (the least distance from any root), with states pruned when g + h > h*(s) - 1 for an
admissible h. The answer is the union of the labels of the goal states at depth h*(s) - 1.

Why that is exact. Let H = h*(s); every successor t has h*(t) >= H - 1, with equality for the
optimal ones. Take an optimal root t and a plan of length H - 1 from it; at each state x on that plan
the distance from t is the multi-source distance of x (a root reaching x sooner would reach the goal
in fewer than H - 1 steps), and g(x) + h(x) <= g(x) + h*(x) = H - 1, so x is never pruned and,
layer by layer, carries t in its label. Conversely a root in the label of a goal state at depth H - 1
has a plan of length H - 1. A state first met at depth d and met again deeper is ignored: roots that
reach it later reach it by a longer path than the multi-source distance, which no optimal plan does.
States are goal-tested at depth H - 1 only (a goal any sooner would contradict H), and the last
layer needs no heuristic, only the goal test.

The heuristic may be any admissible function (``None`` for a proven dead end); the caller passes one
that knows the exact h* it has already computed (``planners.ground_truth.GroundTruth``). Cross-checked
against per-successor optimal planning in tests/planners/test_first_actions.py.
"""

from __future__ import annotations

import time
from typing import Callable

from widthbench.planners.bfs import SearchLimit, SearchTimeout
from widthbench.planners.state_model import strips_successors
from widthbench.planners.strips import Action, Task


def optimal_first_actions(task: Task, state: int, h_star: int, heuristic: Callable[[int], "int | None"], *,
                          deadline: float | None = None, max_states: int | None = None) -> list[Action]:
    """The applicable actions of ``state`` that start an optimal plan, given ``h_star`` = h*(state).

    Raises ``SearchTimeout`` past ``deadline`` (a ``time.monotonic()`` value) and ``SearchLimit``
    when more than ``max_states`` states are stored; ``ValueError`` if a goal is found closer than
    ``h_star`` allows (a wrong ``h_star``)."""
    if h_star <= 0 or h_star != int(h_star):
        return []
    goal, goal_neg = task.goal, task.goal_neg
    bound = int(h_star) - 1
    first = [(a, t) for a, t in strips_successors(task, state) if t != state]
    seen = {state}
    layer: dict[int, int] = {}
    found = 0
    for i, (_, t) in enumerate(first):
        if t in layer:
            layer[t] |= 1 << i
        elif bound == 0:
            if t & goal == goal and not t & goal_neg:
                found |= 1 << i
        else:
            h = heuristic(t)
            if h is not None and h <= bound:
                layer[t] = 1 << i
            else:
                seen.add(t)
    seen.update(layer)
    if bound == 0:
        return [a for i, (a, _) in enumerate(first) if found >> i & 1]
    stored = len(seen)
    for depth in range(1, bound + 1):
        last = depth == bound
        nxt: dict[int, int] = {}
        for x, lab in layer.items():
            if deadline is not None and time.monotonic() > deadline:
                raise SearchTimeout(f"the optimal-next-action search passed its deadline at depth {depth}")
            for _, y in strips_successors(task, x):
                if y in seen:
                    continue
                if last:
                    if y & goal == goal and not y & goal_neg:
                        found |= lab
                    continue
                old = nxt.get(y)
                if old is not None:
                    nxt[y] = old | lab
                    continue
                if y & goal == goal and not y & goal_neg:
                    raise ValueError(f"a goal state at depth {depth} < {bound}: h*(state) is not {h_star}")
                h = heuristic(y)
                if h is None or depth + h > bound:
                    seen.add(y)
                else:
                    nxt[y] = lab
        if last:
            break
        seen.update(nxt)
        stored += len(nxt)
        if max_states is not None and stored > max_states:
            raise SearchLimit(f"the optimal-next-action search exceeded {max_states} states")
        layer = nxt
        if not layer:
            break
    return [a for i, (a, _) in enumerate(first) if found >> i & 1]
