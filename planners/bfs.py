"""Breadth-first search over the STRIPS engine: shortest plans and exhaustive state spaces.

Successors are generated in the engine's deterministic order (actions sorted by name and
arguments), so the plan returned for a given task is always the same.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

from widthbench.planners.state_model import strips_successors
from widthbench.planners.strips import Action, Task, applicable_actions, is_goal


class SearchLimit(Exception):
    """Raised when a search exceeds its state budget."""


class SearchTimeout(SearchLimit):
    """The search ran past its deadline."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    plan: tuple[Action, ...] | None  # None: no plan exists (the reachable space was exhausted)
    expanded: int
    generated: int


def shortest_plan(task: Task, state: int | None = None, max_states: int | None = None,
                  deadline: float | None = None, bound: int | None = None) -> SearchResult:
    """An optimal (shortest) plan by breadth-first search with duplicate detection, goal test at
    generation. Optional limits: ``max_states`` (SearchLimit), ``deadline`` (a ``time.monotonic()``
    value; SearchTimeout) and a depth ``bound``: plans longer than ``bound`` are not sought, and
    ``plan`` is None when there is none within it."""
    start = task.init if state is None else state
    if is_goal(task, start):
        return SearchResult((), 0, 1)
    if bound is not None and bound < 1:
        return SearchResult(None, 0, 1)
    parent: dict[int, tuple[int, Action] | None] = {start: None}
    depth = {start: 0}
    queue = deque([start])
    expanded = 0
    goal, goal_neg = task.goal, task.goal_neg
    while queue:
        s = queue.popleft()
        d = depth[s] + 1
        if bound is not None and d > bound:
            break
        expanded += 1
        if deadline is not None and not expanded & 63 and time.monotonic() > deadline:
            raise SearchTimeout(f"breadth-first search passed its deadline after {expanded} expansions")
        for a, t in strips_successors(task, s):
            if t in parent:
                continue
            parent[t] = (s, a)
            if t & goal == goal and not t & goal_neg:
                return SearchResult(extract_plan(parent, t), expanded, len(parent))
            if max_states is not None and len(parent) > max_states:
                raise SearchLimit(f"breadth-first search exceeded {max_states} states")
            depth[t] = d
            queue.append(t)
    return SearchResult(None, expanded, len(parent))


def extract_plan(parent: dict, t) -> tuple:
    """The labels (actions) from the root to ``t``; ``parent`` maps a state to (parent state, label),
    the root to None."""
    plan = []
    while parent[t] is not None:
        s, a = parent[t]
        plan.append(a)
        t = s
    return tuple(reversed(plan))


def reachable_states(task: Task, state: int | None = None, max_states: int | None = None) -> dict[int, int]:
    """Every state reachable from ``state`` (default: initial), mapped to its depth (BFS distance)."""
    start = task.init if state is None else state
    depth = {start: 0}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        d = depth[s] + 1
        # `strips.successor` written out: this loop is the benchmark's exhaustive search, and a
        # call or a list of successors per expansion costs it 10-15% (scripts/bench_iw.py)
        for a in applicable_actions(task, s):
            t = (s & ~a.dele) | a.add
            if t not in depth:
                depth[t] = d
                if max_states is not None and len(depth) > max_states:
                    raise SearchLimit(f"state space exceeds {max_states} states")
                queue.append(t)
    return depth
