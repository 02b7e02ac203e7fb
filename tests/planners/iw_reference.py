"""A plain reference IW(k) for tests: full tuple enumeration, no incremental tricks, no fast paths.

Same semantics as `widthbench.planners.iw.iw` (see its module docstring): FIFO breadth-first search
in the model's successor order; a successor equal to any earlier generated state is a duplicate;
otherwise its novelty is the size of the smallest tuple of its atoms (frozensets, all sizes 1..k)
not in the set of tuples seen, and it is pruned when that is > k; kept states add all their tuples;
the initial state is never pruned and is goal-tested first; the goal test comes after the prune
("after-prune") or before it ("before-prune").

Slow on purpose; the tests compare the real implementation (`widthbench.planners.iw`) with it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from itertools import combinations


@dataclass(frozen=True)
class ReferenceRun:
    solved: bool
    plan: tuple | None
    order: tuple  # (state, verdict, novelty) in generation order; verdict kept/duplicate/novelty
    generated: int
    expanded: int


def reference_iw(model, k: int, goal_test: str = "after-prune", stop_at_goal: bool = True) -> ReferenceRun:
    def tuples(state):
        atoms = sorted(set(model.atoms(state)))
        return [frozenset(c) for m in range(1, k + 1) for c in combinations(atoms, m)]

    def novelty(state):
        best = k + 1
        for t in tuples(state):
            if t not in seen_tuples:
                best = min(best, len(t))
        return best

    root = model.initial_state()
    seen_tuples = set(tuples(root))
    generated_states = {root}
    parent = {root: None}
    order = [(root, "kept", None)]
    generated, expanded = 1, 0
    goal = root if model.is_goal(root) else None
    queue = deque([root]) if goal is None or not stop_at_goal else deque()
    while queue:
        s = queue.popleft()
        expanded += 1
        for label, t in model.successors(s):
            generated += 1
            if t in generated_states:
                order.append((t, "duplicate", None))
                continue
            generated_states.add(t)
            if goal_test == "before-prune" and goal is None and model.is_goal(t):
                goal = t
                parent[t] = (s, label)
            nov = novelty(t)
            if nov > k:
                order.append((t, "novelty", nov))
            else:
                seen_tuples.update(tuples(t))
                order.append((t, "kept", nov))
                parent[t] = (s, label)
                queue.append(t)
                if goal_test == "after-prune" and goal is None and model.is_goal(t):
                    goal = t
            if goal is not None and stop_at_goal:
                queue.clear()
                break
    plan = None
    if goal is not None:
        steps = []
        t = goal
        while parent[t] is not None:
            t, label = parent[t][0], parent[t][1]
            steps.append(label)
        plan = tuple(reversed(steps))
    return ReferenceRun(goal is not None, plan, tuple(order), generated, expanded)


def reference_width(model, max_k: int, goal_test: str = "after-prune") -> int | None:
    """The smallest k in 0..max_k for which `reference_iw` reaches a goal, or None."""
    for k in range(0, max_k + 1):
        if reference_iw(model, k, goal_test).solved:
            return k
    return None
