"""Optimal (shortest) plans: one entry point over two independent exact planners.

- ``"exact"``: pure Python on our STRIPS engine, no binary (``planners/astar.py``). On the
  4-operator Blocksworld: A* with the admissible Blocksworld heuristic. Elsewhere: breadth-first
  search while the space is small (``BFS_STATES`` generated states), then A* with LM-cut.
- ``"fd"``: Fast Downward ``astar(lmcut())`` through unified-planning + up-fast-downward
  (``planners/fd.py``), with the plan-length quality metric so the status reads SOLVED_OPTIMALLY.
- ``"auto"``: the exact search within a budget (Blocksworld: ``ASTAR_STATES`` generated states;
  elsewhere breadth-first search within ``BFS_STATES``), then Fast Downward. A* with the
  Blocksworld heuristic solves PlanBench's 6-15-block Blocksworld-hard set (h* 20-40) in under a
  second per instance, where FD/LM-cut needs up to ~1000 s; outside the Blocksworld, pure-Python
  A*/LM-cut costs ~5-15 ms per expansion against FD's ~0.3 s process start, so FD takes over.

All actions cost 1, so the length of an optimal plan is h*. Failures raise, never return an empty
plan: ``Unsolvable`` (no plan exists), ``PlanningTimeout`` (both are ``UserError``s: the user's
instance or time budget) and ``PlannerFailure`` (Fast Downward crashed or returned garbage: a bug or
a broken installation).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from widthbench.core.errors import UserError
from widthbench.planners.fd import fd_optimal_plan
from widthbench.planners.planning_errors import PlannerFailure, PlanningError, PlanningTimeout, Unsolvable
from widthbench.planners.strips import Task, execute_plan
from widthbench.planners.astar import SearchTimeout, astar, breadth_first, is_blocksworld
from widthbench.planners.bfs import SearchLimit

__all__ = ["PLANNERS", "OptimalPlan", "PlannerFailure", "PlanningError", "PlanningTimeout", "Unsolvable",
           "bounded_optimal_plan", "optimal_plan", "plan_length"]

PLANNERS = ("auto", "exact", "fd")
BFS_STATES = 50_000  # states breadth-first search may generate before A*/LM-cut (exact) or FD (auto)
ASTAR_STATES = 300_000  # states A* with the Blocksworld heuristic may generate under "auto"
DEFAULT_TIMEOUT = 300.0  # seconds, per call


@dataclass(frozen=True, slots=True)
class OptimalPlan:
    plan: tuple[str, ...]  # PDDL action texts, lower case: "(unstack a b)"
    length: int
    planner: str  # "exact" or "fd": the planner that actually produced it


def optimal_plan(task: Task, planner: str = "auto", timeout: float = DEFAULT_TIMEOUT,
                 state: int | None = None) -> OptimalPlan:
    """An optimal plan for ``task`` from ``state`` (default: its initial state).

    The returned plan is always re-validated on our engine; a plan that does not reach the goal
    raises ``PlannerFailure``.
    """
    result = _solve(task, planner, timeout, state, None)
    assert result is not None
    return result


def bounded_optimal_plan(task: Task, bound: int, planner: str = "auto",
                         timeout: float = DEFAULT_TIMEOUT, state: int | None = None) -> OptimalPlan | None:
    """An optimal plan from ``state`` if one of length <= ``bound`` exists, else None.

    With the exact planner this is cheaper than ``optimal_plan`` when the answer is "no": A* prunes
    every state whose admissible estimate exceeds the bound. With FD it is the full optimal search.
    """
    if bound < 0:
        return None
    return _solve(task, planner, timeout, state, bound)


def _solve(task: Task, planner: str, timeout: float, state: int | None, bound: int | None):
    if planner not in PLANNERS:
        raise UserError(f"unknown planner {planner!r} (choose from {', '.join(PLANNERS)})")
    if timeout is None or timeout <= 0:
        raise UserError(f"timeout must be positive, got {timeout!r}")
    start = task.init if state is None else state
    deadline = time.monotonic() + timeout
    if planner == "fd":
        result = _fd(task, start, timeout, bound)
    elif planner == "exact":
        result = _exact(task, start, deadline, True, bound)
    else:
        result = _exact(task, start, deadline, False, bound)
        if result is _OVER_BUDGET:
            result = _fd(task, start, max(deadline - time.monotonic(), 1.0), bound)
    if result is None:
        return None
    check = execute_plan(task, result.plan, start)
    if not check.valid:
        raise PlannerFailure(f"{result.planner} returned an invalid plan for {task.problem_name}: "
                             + check.reason())
    if bound is not None and result.length > bound:
        raise PlannerFailure(f"{result.planner} returned a plan of length {result.length} > bound {bound}")
    return result


def budgeted_exact_plan(task: Task, state: int | None = None, timeout: float = DEFAULT_TIMEOUT,
                        bfs_states: int = BFS_STATES) -> OptimalPlan | None:
    """The exact stage of ``"auto"`` alone: an optimal plan, or None when the stage goes over its
    budget (``bfs_states`` breadth-first states outside the Blocksworld; where ``"auto"`` hands over
    to Fast Downward). Raises ``Unsolvable``/``PlanningTimeout``."""
    start = task.init if state is None else state
    result = _exact(task, start, time.monotonic() + timeout, False, None, bfs_states)
    if result is _OVER_BUDGET:
        return None
    check = execute_plan(task, result.plan, start)
    if not check.valid:
        raise PlannerFailure(f"the exact planner returned an invalid plan for {task.problem_name}: " + check.reason())
    return result


def plan_length(task: Task, state: int | None = None, planner: str = "auto",
                timeout: float = DEFAULT_TIMEOUT) -> int:
    """h*(state): the length of an optimal plan from ``state``."""
    return optimal_plan(task, planner=planner, timeout=timeout, state=state).length


_OVER_BUDGET = object()


def _exact(task: Task, start: int, deadline: float, forced: bool, bound: int | None,
           bfs_states: int = BFS_STATES):
    """The pure-Python stage. On the Blocksworld: A* with the Blocksworld heuristic. Elsewhere:
    breadth-first search within ``BFS_STATES`` states, then A*/LM-cut. Under "auto" (``forced``
    False) the searches are budgeted and ``_OVER_BUDGET`` hands over to Fast Downward."""
    try:
        if is_blocksworld(task):
            res = astar(task, start, "blocksworld", deadline=deadline,
                        max_states=None if forced else ASTAR_STATES, bound=bound)
        else:
            try:
                res = breadth_first(task, start, deadline=deadline, max_states=bfs_states, bound=bound)
            except SearchLimit:
                if not forced:
                    return _OVER_BUDGET
                res = astar(task, start, "lmcut", deadline=deadline, bound=bound)
    except SearchTimeout:
        raise PlanningTimeout(f"exact search on {task.problem_name} timed out") from None
    except SearchLimit:
        return _OVER_BUDGET
    if res.plan is None:
        if bound is not None:
            return None
        raise Unsolvable(f"{task.problem_name}: no plan exists (exact search exhausted "
                         f"{res.generated} states)")
    plan = tuple(str(a) for a in res.plan)
    return OptimalPlan(plan, len(plan), "exact")


def _fd(task: Task, start: int, timeout: float, bound: int | None) -> OptimalPlan | None:
    """FD's optimal plan; with a bound, None if it is longer. (FD's own ``bound=`` prunes on g, not
    f, and is far slower to say "no" than the full search: see ``fd.fd_optimal_plan``.)"""
    plan = fd_optimal_plan(task, start, timeout)
    if bound is not None and len(plan) > bound:
        return None
    return OptimalPlan(plan, len(plan), "fd")
