"""Exact ground truth for one task: h*(s) and the set of optimal next actions of any state s.

    gt = GroundTruth(task)
    gt.h_star(s)                  # length of an optimal plan from s (math.inf if none exists)
    gt.optimal_next_actions(s)    # every applicable a with h*(succ(s, a)) = h*(s) - 1, sorted
    gt.optimal_plan(s)            # one optimal plan from s, as Actions

Definitions. All actions cost 1, so h*(s) is the length of a shortest plan from s. An action a is an
optimal next action of s iff it is applicable and h*(succ(s, a)) = h*(s) - 1, i.e. some optimal plan
from s starts with a. The set is empty in goal states (nothing needs doing) and in dead ends. An
action whose successor equals s (a truck driving to where it is) is never optimal.

How. A ``GroundTruth`` caches h* per state for one task. When the state space reachable from the
queried state has at most ``max_space`` states (Blocksworld up to 7 blocks, small Logistics; fewer
on tasks with thousands of ground actions: the budget is ``ENUMERATION_WORK`` states x actions), it
is enumerated once, and all distances to the goal are computed at once by a backward breadth-first
(Dijkstra, unit costs) pass over the reversed transition graph; every later query is a lookup.
Larger spaces: h*(s) by the exact stage of ``planners.optimal`` within its budget, else Fast
Downward, caching h* along each optimal plan found (every suffix of an optimal plan is optimal).
Optimal next actions on such spaces (``next_actions="joint"``, the default) are one problem, not
one planner call per successor: one bounded breadth-first search from all successors at once
(``planners.first_actions``, pruned at h*(s) - 1 by an admissible bound that knows every h* found
so far) within ``JOINT_STATES`` states and ``JOINT_SECONDS``; past that (or once the task has
needed FD) Fast Downward's search binary decides each successor that the heuristic cannot rule out,
on one translation of the task shared by all of them (``planners.fd_search``). On the Blocksworld
the fallback is the exact A* bounded at h*(s) - 1 (FD is no match for the Blocksworld heuristic).
``next_actions="per-successor"`` is the earlier path, kept as the cross-check and the benchmark's
"before": per successor, the heuristic, then a bounded A* or a full FD call through
unified-planning (``planners.optimal``).
"""

from __future__ import annotations

import heapq
import math
import time
from collections import deque

from widthbench.planners.astar import is_blocksworld, make_heuristic
from widthbench.planners.bfs import SearchLimit, SearchTimeout
from widthbench.planners.fd_search import SasTask
from widthbench.planners.first_actions import optimal_first_actions
from widthbench.planners.state_model import strips_successors
from widthbench.planners.optimal import (BFS_STATES, DEFAULT_TIMEOUT, PLANNERS, PlannerFailure, PlanningTimeout, Unsolvable,
                                         bounded_optimal_plan, budgeted_exact_plan, optimal_plan)
from widthbench.planners.strips import (Action, Task, applicable_actions, execute_plan, is_applicable, is_goal,
                                       parse_action, successor)
from widthbench.core.errors import UserError

NEXT_ACTION_METHODS = ("joint", "per-successor")
JOINT_STATES = 2_000  # states the joint next-action search may store under "auto" before FD takes over
FIRST_STEP_MIN = 8  # more open successors than this: FD's first-step tasks, else one FD search each
JOINT_SECONDS = 1.0  # ... and seconds it may take (the answer is the same either way, only its cost differs)
FD_LMCUT_SECONDS = 10.0  # seconds FD's A*/LM-cut gets per call before merge-and-shrink takes over
DEFAULT_MAX_SPACE = 100_000  # states enumerated at most for the all-at-once distance computation
ENUMERATION_WORK = 40_000_000  # states x ground actions the enumeration may check
INF = math.inf


class GroundTruth:
    """h* and optimal next actions for the states of one task, with a per-task cache.

    ``planner`` ("auto" | "exact" | "fd") and ``timeout`` (seconds per planner call) apply only
    when a state space is too large to enumerate (``max_space`` states; 0 disables enumeration).
    """

    def __init__(self, task: Task, *, planner: str = "auto", timeout: float = DEFAULT_TIMEOUT,
                 max_space: int = DEFAULT_MAX_SPACE, next_actions: str = "joint"):
        if planner not in PLANNERS:
            raise UserError(f"unknown planner {planner!r} (choose from {', '.join(PLANNERS)})")
        if next_actions not in NEXT_ACTION_METHODS:
            raise UserError(f"unknown next-action method {next_actions!r} (choose from "
                            f"{', '.join(NEXT_ACTION_METHODS)})")
        self.next_actions = next_actions
        self.task = task
        self.planner = planner
        self.timeout = timeout
        self.max_space = max_space
        self._h: dict[int, float] = {}  # exact h* (int, or INF for dead ends)
        self._lower: dict[int, int] = {}  # proven lower bounds on h* for states without exact h*
        self._enumerated = 0  # states whose distances came from enumeration
        # enumeration checks every action in every state: on tasks with thousands of ground actions
        # (alfred: 3,204) a failed attempt at 100,000 states costs 10 s, so the budget is in work
        self._space_budget = min(max_space, ENUMERATION_WORK // max(1, len(task.actions)))
        size = _space_size_hint(task)
        self._too_large = max_space <= 0 or (size is not None and size > self._space_budget)
        self._heuristic = None
        self._hcache: dict[int, int | None] = {}
        self._fd_config = "lmcut"  # becomes "ms" once LM-cut has timed out on this task (see _fd)
        self._sas_of: dict[int, SasTask] = {}  # FD translations, by the states known reachable from theirs  # heuristic values of the joint searches
        self._planner = planner  # becomes "fd" once "auto" has had to hand a state over to FD
        self.planner_calls = 0

    # ---- public API ------------------------------------------------------------------------

    def h_star(self, state: int | None = None) -> float:
        """h*(state) (default: the initial state): an int, or ``math.inf`` if no plan exists."""
        s = self.task.init if state is None else state
        h = self._h.get(s)
        if h is not None:
            return h
        if is_goal(self.task, s):
            self._h[s] = 0
            return 0
        if not self._too_large and self._enumerate(s):
            return self._h[s]
        return self._search(s)

    def optimal_next_actions(self, state: int | None = None) -> list[Action]:
        """Applicable actions a with h*(succ(state, a)) = h*(state) - 1, sorted by action id."""
        s = self.task.init if state is None else state
        h = self.h_star(s)
        if h == 0 or h == INF:
            return []
        if self.next_actions == "joint" and any(
                successor(s, a) not in self._h for a in applicable_actions(self.task, s)):
            return self._joint_next_actions(s, h)
        out = []
        for a in applicable_actions(self.task, s):
            t = successor(s, a)
            if t != s and self._is_at_most(t, h - 1):
                out.append(a)
        return out

    def optimal_plan(self, state: int | None = None) -> tuple[Action, ...]:
        """One optimal plan from ``state``: at each step the first applicable action (in action-id
        order) whose successor is known to be one step closer; in an enumerated space that is the
        first optimal next action. Raises ``Unsolvable`` if no plan exists."""
        s = self.task.init if state is None else state
        h = self.h_star(s)
        if h == INF:
            raise Unsolvable(f"{self.task.problem_name}: no plan exists from this state")
        plan = []
        while h > 0:
            step = None
            for a in applicable_actions(self.task, s):
                if self._h.get(successor(s, a)) == h - 1:
                    step = a
                    break
            if step is None:  # nothing cached on an optimal path yet: decide exactly
                step = self.optimal_next_actions(s)[0]
            plan.append(step)
            s = successor(s, step)
            h -= 1
        assert is_goal(self.task, s)
        return tuple(plan)

    def know_plan(self, plan, state: int | None = None) -> None:
        """Record a plan known to be optimal from ``state`` (default: the initial state), e.g. one
        stored with the instance: h* of every state along it becomes a lookup."""
        s = self.task.init if state is None else state
        texts = tuple(str(a) for a in plan)
        t = s
        for n, text in enumerate(texts, start=1):
            a = parse_action(self.task, text)
            if not is_applicable(t, a):
                raise UserError(f"{self.task.problem_name}: the stored optimal plan's step {n} {text} is not "
                                "applicable")
            t = successor(t, a)
        if not is_goal(self.task, t):
            raise UserError(f"{self.task.problem_name}: the stored optimal plan does not reach the goal")
        self._record(s, texts)

    def is_optimal_next_action(self, state: int, action: Action | str) -> bool:
        """Whether ``action`` (an Action or PDDL text) is one of the optimal next actions of ``state``."""
        a = action if isinstance(action, Action) else parse_action(self.task, action)
        return any(b.id == a.id and b.id >= 0 for b in self.optimal_next_actions(state))

    @property
    def exhaustive(self) -> bool:
        """True when distances come from an enumerated state space (no planner is ever called)."""
        return self._enumerated > 0 and not self._too_large

    # ---- all distances at once -------------------------------------------------------------

    def _enumerate(self, root: int) -> bool:
        """Enumerate the states reachable from ``root`` that have no exact h* yet and compute their
        distances. Known states are successor-closed (they were enumerated earlier), so they act as
        boundary nodes with known distances. Returns False (and stops trying) if over budget."""
        task = self.task
        known = self._h
        index = {root: 0}
        states = [root]
        succs: list[list[int]] = []
        bindex: dict[int, int] = {}  # known successor state -> boundary node number
        queue = deque([root])
        while queue:
            s = queue.popleft()
            out = []
            for _, t in strips_successors(task, s):
                if t in known:
                    j = bindex.get(t)
                    if j is None:
                        j = bindex[t] = len(bindex)
                    out.append(-1 - j)  # boundary nodes are encoded as negative numbers
                    continue
                i = index.get(t)
                if i is None:
                    i = index[t] = len(states)
                    states.append(t)
                    if len(states) > self._space_budget:
                        self._too_large = True
                        return False
                    queue.append(t)
                out.append(i)
            succs.append(out)
        n = len(states)
        bstates = list(bindex)
        preds: list[list[int]] = [[] for _ in range(n)]
        bpreds: list[list[int]] = [[] for _ in bstates]
        for i, out in enumerate(succs):
            for j in out:
                if j >= 0:
                    preds[j].append(i)
                else:
                    bpreds[-1 - j].append(i)
        dist = [INF] * n
        heap = []
        for i, s in enumerate(states):
            if is_goal(task, s):
                dist[i] = 0
                heap.append((0, i))
        for j, t in enumerate(bstates):
            d = known[t]
            if d == INF:
                continue
            for i in bpreds[j]:
                if d + 1 < dist[i]:
                    dist[i] = d + 1
                    heap.append((d + 1, i))
        heapq.heapify(heap)
        while heap:
            d, i = heapq.heappop(heap)
            if d > dist[i]:
                continue
            for p in preds[i]:
                if d + 1 < dist[p]:
                    dist[p] = d + 1
                    heapq.heappush(heap, (d + 1, p))
        for s, d in zip(states, dist):
            known[s] = d
        self._enumerated += n
        return True

    # ---- all successors in one search ------------------------------------------------------

    def _joint_next_actions(self, s: int, h: int) -> list[Action]:
        """One bounded search from every successor (``planners.first_actions``); what it proves is
        cached: optimal successors have h* = h - 1, the others h* >= h."""
        best = None
        if self._planner != "fd":
            forced = self._planner == "exact"
            deadline = time.monotonic() + (self.timeout if forced else min(self.timeout, JOINT_SECONDS))
            try:
                best = optimal_first_actions(self.task, s, h, self._lower_bound, deadline=deadline,
                                             max_states=None if forced else JOINT_STATES)
            except SearchLimit as exc:  # SearchTimeout included
                if forced and isinstance(exc, SearchTimeout):
                    raise PlanningTimeout(f"the optimal-next-action search on {self.task.problem_name} timed "
                                          f"out after {self.timeout:g} s") from None
                if is_blocksworld(self.task):  # FD is no match for the Blocksworld heuristic (see optimal)
                    return [a for a in applicable_actions(self.task, s)
                            if successor(s, a) != s and self._is_at_most(successor(s, a), h - 1)]
                self._planner = "fd"
        if best is None:  # Fast Downward decides, from one translation of the task
            return self._fd_next_actions(s, h)
        ids = {a.id for a in best}
        for a in applicable_actions(self.task, s):
            t = successor(s, a)
            if a.id in ids:
                self._h[t] = h - 1
            elif t not in self._h and t != s:
                self._lower[t] = max(self._lower.get(t, 0), h)
        return best

    def _fd_next_actions(self, s: int, h: int) -> list[Action]:
        """Successors whose h* is not known yet are decided by FD's search binary on one translation
        of the task from s: with more than ``FIRST_STEP_MIN`` of them and LM-cut, by first-step tasks (one FD
        search per optimal first step, plus one: ``SasTask.optimal_first_actions``), else one
        search per successor that the heuristic cannot rule out."""
        sas = self._sas_of.get(s)
        if sas is None:
            sas = self._sas_of[s] = SasTask.translate(self.task, s, self.timeout)
        acts = [(a, successor(s, a)) for a in applicable_actions(self.task, s)]
        open_ = {}  # successor -> one action reaching it (its representative for FD)
        for a, t in acts:
            if t != s and t not in self._h and self._lower.get(t, 0) <= h - 1:
                open_.setdefault(t, a)
        found = None
        if len(open_) > FIRST_STEP_MIN and self._fd_config == "lmcut":
            # (with merge-and-shrink the first-step task's abstraction is far weaker: Ferry with 50
            # cars took over 120 s where one search per successor takes about 1 s each)
            self.planner_calls += 1
            rep = {str(a): t for t, a in open_.items()}
            try:
                found = sas.optimal_first_actions(s, list(rep), h, min(self.timeout, FD_LMCUT_SECONDS), "lmcut")
            except PlanningTimeout:
                self._fd_config = "ms"
        if found is not None:
            self.planner_calls += len(found)
            for text, plan in found:
                check = execute_plan(self.task, plan, s)
                if not check.valid or len(plan) != h:
                    raise PlannerFailure(f"Fast Downward returned an invalid first-step plan for "
                                         f"{self.task.problem_name}: {check.reason()}")
                t = rep.pop(text)
                self._sas_of.setdefault(t, sas)
                self._record(t, plan[1:])
            for t in rep.values():
                self._lower[t] = max(self._lower.get(t, 0), h)
        best = []
        for a, t in acts:
            if t != s:
                self._sas_of.setdefault(t, sas)
                if self._is_at_most(t, h - 1):
                    best.append(a)
        return best

    def _lower_bound(self, t: int) -> int | None:
        """An admissible estimate of h*(t) (None: a dead end): the exact h* if known, else the best
        of the proven lower bound and the heuristic (Blocksworld or LM-cut), cached per state."""
        h = self._h.get(t)
        if h is not None:
            return None if h == INF else h
        v = self._hcache.get(t, -1)
        if v == -1:
            if self._heuristic is None:
                self._heuristic = make_heuristic(self.task, "auto")
            v = self._hcache[t] = self._heuristic(t)
        if v is None:
            return None
        return max(v, self._lower.get(t, 0))

    # ---- per-state search ------------------------------------------------------------------

    def _search(self, s: int) -> float:
        self.planner_calls += 1
        if self.next_actions == "joint" and self._planner != "exact":
            if self._planner == "auto":
                try:
                    res = budgeted_exact_plan(self.task, s, self.timeout, min(BFS_STATES, self._space_budget))
                except Unsolvable:
                    self._h[s] = INF
                    return INF
                if res is not None:
                    self._record(s, res.plan)
                    return self._h[s]
                self._planner = "fd"
            return self._fd_search(s)
        try:
            res = optimal_plan(self.task, planner=self._planner, timeout=self.timeout, state=s)
        except Unsolvable:
            self._h[s] = INF
            return INF
        if res.planner == "fd":
            # the exact stage ran over its budget on this task: skip it for the task's other states
            self._planner = "fd"
        self._record(s, res.plan)
        return self._h[s]

    def _fd_search(self, s: int) -> float:
        """h*(s) by Fast Downward's search binary on a translation shared by the states reachable
        from the state it was made from (``planners.fd_search``); the plan is re-validated."""
        sas = self._sas_of.get(s)
        if sas is None:
            sas = self._sas_of[s] = SasTask.translate(self.task, s, self.timeout)
        try:
            plan = self._fd(lambda search, timeout: sas.optimal_plan(s, timeout, search))
        except Unsolvable:
            self._h[s] = INF
            return INF
        check = execute_plan(self.task, plan, s)
        if not check.valid:
            raise PlannerFailure(f"Fast Downward returned an invalid plan for {self.task.problem_name}: "
                                 + check.reason())
        t = s
        for text in plan:
            t = successor(t, parse_action(self.task, text))
            self._sas_of.setdefault(t, sas)
        self._record(s, plan)
        return self._h[s]

    def _fd(self, call):
        """``call(search, timeout)`` with the task's FD configuration: A*/LM-cut first, within
        ``FD_LMCUT_SECONDS``; if that times out, A* with merge-and-shrink (bisimulation) for the
        full timeout, and for the rest of the task. Measured (docs/ground-truth.md): LM-cut is 5x
        faster on rover, but on Ferry with 20 or 50 cars (symmetric cars) it does not finish in
        120-300 s where merge-and-shrink takes about 1.3 s."""
        if self._fd_config == "lmcut" and self.timeout > FD_LMCUT_SECONDS:
            try:
                return call("lmcut", FD_LMCUT_SECONDS)
            except PlanningTimeout:
                self._fd_config = "ms"
        return call(self._fd_config, self.timeout)

    def _record(self, s: int, plan: tuple[str, ...]) -> None:
        """Every state on an optimal plan gets its h* (each suffix of an optimal plan is optimal)."""
        n = len(plan)
        self._h[s] = n
        for i, text in enumerate(plan):
            s = successor(s, parse_action(self.task, text))
            self._h[s] = n - i - 1

    def _is_at_most(self, t: int, bound: int) -> bool:
        """Whether h*(t) <= bound, deciding as cheaply as possible."""
        h = self._h.get(t)
        if h is None and not self._too_large and self._enumerate(t):
            h = self._h[t]
        if h is not None:
            return h <= bound
        if self._lower.get(t, 0) > bound:
            return False
        lb = self._lower_bound(t)
        if lb is None:
            self._h[t] = INF
            return False
        if lb > bound:
            self._lower[t] = lb
            return False
        if self._planner == "fd":  # FD gives h*(t) as fast as it can bound it (see fd.fd_optimal_plan)
            return self._search(t) <= bound
        self.planner_calls += 1
        try:
            res = bounded_optimal_plan(self.task, bound, planner=self._planner, timeout=self.timeout, state=t)
        except Unsolvable:  # the exact stage handed over to Fast Downward, which proved a dead end
            self._h[t] = INF
            return False
        if res is None:
            self._lower[t] = bound + 1
            return False
        self._record(t, res.plan)
        return True


def _space_size_hint(task: Task) -> int | None:
    """The exact number of states of an n-block Blocksworld (towers of the n blocks, hand empty,
    or one block held), so that a too-large space is never enumerated in vain; None elsewhere."""
    if not is_blocksworld(task):
        return None
    n = len(task.objects)
    # towers(n): ways to arrange n labelled blocks into ordered towers on the table (OEIS A000262)
    towers = [1, 1]
    for k in range(2, n + 1):
        towers.append((2 * k - 1) * towers[k - 1] - (k - 1) * (k - 2) * towers[k - 2])
    return towers[n] + n * towers[n - 1] if n >= 1 else 1


def h_star(task: Task, state: int | None = None, **options) -> float:
    """h*(state) for a single query (no cache kept; use ``GroundTruth`` for many states)."""
    return GroundTruth(task, **options).h_star(state)


def optimal_next_actions(task: Task, state: int | None = None, **options) -> list[Action]:
    """The optimal next actions of ``state`` for a single query (see ``GroundTruth``)."""
    return GroundTruth(task, **options).optimal_next_actions(state)
