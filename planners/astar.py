"""Exact optimal planning in pure Python: A* over the STRIPS engine with an admissible heuristic.

All actions cost 1, so an optimal plan is a shortest plan and its length is h*. Two admissible
heuristics are offered:

- ``"hmax"``: h_max (Bonet & Geffner 2001). With unit costs it is the index of the first layer of
  the relaxed planning graph that contains every goal atom. Consistent, cheap, weak.
- ``"lmcut"`` (default): LM-cut (Helmert & Domshlak 2009), the heuristic Fast Downward's
  ``astar(lmcut())`` uses. Admissible, not consistent, so closed states are reopened when a
  shorter path to them is found. Stronger by far on Blocksworld and Logistics.
- ``"blind"``: 0 everywhere (A* becomes uniform-cost / breadth-first order).
- ``"blocksworld"``: for the 4-operator Blocksworld only (recognised structurally, whatever the
  domain is called): 2 actions per block that must move at least once, plus 2 per vertex-disjoint
  cycle of the "must happen before" graph among those blocks (a deadlock: one block of each cycle
  moves twice), plus 1 for a held block that must be put somewhere. Admissible (argued in
  ``_Blocksworld``; tested against exhaustive breadth-first distances), and much stronger than
  LM-cut on Blocksworld: it makes 6-15-block instances (h* 20-40) solvable in pure Python.
- ``"auto"``: ``"blocksworld"`` on the Blocksworld, else ``"lmcut"``.

Every heuristic returns ``None`` for relaxed-unreachable goals (a dead end: no plan from there).
Successors are generated in the engine's order (action id), ties on f are broken toward larger g,
then by insertion order, so the plan returned for a task is deterministic.
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass
from typing import Callable

from widthbench.planners.bfs import SearchLimit, SearchTimeout, shortest_plan, extract_plan as _extract
from widthbench.planners.state_model import strips_successors
from widthbench.planners.strips import Action, Task, bits


@dataclass(frozen=True, slots=True)
class AStarResult:
    plan: tuple[Action, ...] | None  # None: no plan exists from the start state
    expanded: int
    generated: int


Heuristic = Callable[[int], "int | None"]


def make_heuristic(task: Task, name: str = "auto") -> Heuristic:
    """An admissible heuristic over states of ``task``: ``"auto"``, ``"lmcut"``, ``"hmax"``,
    ``"blocksworld"`` or ``"blind"``."""
    if name == "auto":
        name = "blocksworld" if is_blocksworld(task) else "lmcut"
    if name == "blocksworld":
        if not is_blocksworld(task):
            raise ValueError(f"the blocksworld heuristic needs the 4-operator Blocksworld, not {task.domain_name}")
        return _Blocksworld(task)
    if name == "blind":
        goal, goal_neg = task.goal, task.goal_neg

        def blind(s: int) -> int | None:
            return 0 if (s & goal == goal and not s & goal_neg) else 1

        return blind
    if name == "hmax":
        return _HMax(task)
    if name == "lmcut":
        return _LMCut(task)
    raise ValueError(f"unknown heuristic {name!r} (auto, lmcut, hmax, blocksworld, blind)")


def astar(task: Task, state: int | None = None, heuristic: str | Heuristic = "auto",
          deadline: float | None = None, max_states: int | None = None,
          bound: int | None = None) -> AStarResult:
    """An optimal plan from ``state`` (default: the initial state) by A*.

    With ``bound``, only plans of length <= ``bound`` are sought: states with g + h > bound are
    pruned, and ``plan`` is None when no such plan exists (the search then proves h* > bound).

    ``deadline`` is a ``time.monotonic()`` value; past it ``SearchTimeout`` is raised.
    ``max_states`` bounds the number of generated states (``SearchLimit``).
    Negative goals (``goal_neg``) are honoured in the goal test; the heuristics ignore them
    (that keeps them admissible).
    """
    h = make_heuristic(task, heuristic) if isinstance(heuristic, str) else heuristic
    start = task.init if state is None else state
    goal, goal_neg = task.goal, task.goal_neg
    h0 = h(start)
    if h0 is None or (bound is not None and h0 > bound):
        return AStarResult(None, 0, 1)
    g: dict[int, int] = {start: 0}
    parent: dict[int, tuple[int, Action] | None] = {start: None}
    hcache: dict[int, int | None] = {start: h0}
    counter = 0
    heap = [(h0, 0, counter, start)]
    closed: dict[int, int] = {}
    expanded = 0
    while heap:
        f, neg_g, _, s = heapq.heappop(heap)
        gs = -neg_g
        if gs != g[s] or closed.get(s, 1 << 60) <= gs:
            continue  # stale entry
        if s & goal == goal and not s & goal_neg:
            return AStarResult(_extract(parent, s), expanded, len(g))
        closed[s] = gs
        expanded += 1
        if deadline is not None and time.monotonic() > deadline:
            raise SearchTimeout(f"A* search passed its deadline after {expanded} expansions")
        gt = gs + 1
        for a, t in strips_successors(task, s):
            old = g.get(t)
            if old is not None and old <= gt:
                continue
            if t in hcache:
                ht = hcache[t]
            else:
                ht = hcache[t] = h(t)
                if max_states is not None and len(hcache) > max_states:
                    raise SearchLimit(f"A* search exceeded {max_states} states")
            if ht is None or (bound is not None and gt + ht > bound):
                continue
            g[t] = gt
            parent[t] = (s, a)
            counter += 1
            heapq.heappush(heap, (gt + ht, -gt, counter, t))
    return AStarResult(None, expanded, len(g))


def breadth_first(task: Task, state: int | None = None, deadline: float | None = None,
                  max_states: int | None = None, bound: int | None = None) -> AStarResult:
    """``bfs.shortest_plan`` with a deadline, a state budget and a depth ``bound`` (plans longer than
    ``bound`` are not sought: ``plan`` is None when there is none within it)."""
    r = shortest_plan(task, state, max_states=max_states, deadline=deadline, bound=bound)
    return AStarResult(r.plan, r.expanded, r.generated)


class _HMax:
    """Unit-cost h_max: relaxed-planning-graph layers until the goal appears."""

    __slots__ = ("acts", "goal")

    def __init__(self, task: Task):
        self.acts = [(a.pre, a.add) for a in task.actions if a.add]
        self.goal = task.goal

    def __call__(self, s: int) -> int | None:
        goal = self.goal
        reached = s
        level = 0
        remaining = self.acts
        while reached & goal != goal:
            new = reached
            rest = []
            for pre, add in remaining:
                if reached & pre == pre:
                    new |= add
                else:
                    rest.append((pre, add))
            if new == reached:
                return None
            reached = new
            remaining = rest
            level += 1
        return level


class _LMCut:
    """LM-cut over the engine's bitmask actions (unit costs, positive goal atoms).

    Standard construction: an artificial goal action reaching an artificial goal atom, an
    artificial precondition-free "init" atom for actions without preconditions. Each round
    computes h_max with the current (reduced) costs, builds the justification graph through
    each action's h_max-maximising precondition (its "supporter"), takes the cut of actions
    crossing from the zone before the goal zone into it, adds the cut's minimum cost to h, and
    reduces the cut actions' costs by it. Stops when the goal's h_max reaches 0.
    """

    __slots__ = ("n", "pre", "add", "n_actions", "goal_bits", "pre_of", "achievers", "pre_count")

    def __init__(self, task: Task):
        n = task.n_atoms
        # atom n is the artificial "always true" atom (precondition of precondition-free actions),
        # atom n+1 the artificial goal atom, achieved by an action with the goal as precondition.
        self.n = n
        pres, adds = [], []
        for a in task.actions:
            if not a.add:
                continue
            p = bits(a.pre) or [n]
            pres.append(p)
            adds.append(bits(a.add))
        goal_bits = bits(task.goal) if not task.goal >> n else None
        self.goal_bits = goal_bits
        pres.append(goal_bits or [n])
        adds.append([n + 1])
        self.pre = pres
        self.add = adds
        self.n_actions = len(pres)
        pre_of: list[list[int]] = [[] for _ in range(n + 2)]
        for i, p in enumerate(pres):
            for x in p:
                pre_of[x].append(i)
        self.pre_of = pre_of
        self.pre_count = [len(p) for p in pres]
        achievers: list[list[int]] = [[] for _ in range(n + 2)]
        for i, add in enumerate(adds):
            for y in add:
                achievers[y].append(i)
        self.achievers = achievers

    def __call__(self, s: int) -> int | None:
        if self.goal_bits is None:
            return None
        n = self.n
        n_actions = self.n_actions
        cost = [1] * n_actions
        cost[-1] = 0
        init_atoms = bits(s)
        init_atoms.append(n)
        INF = 1 << 30
        hval = self._hmax(init_atoms, cost)
        if hval[n + 1] >= INF:
            return None
        pres, adds, pre_of = self.pre, self.add, self.pre_of
        total = 0
        while hval[n + 1] != 0:
            # supporter of each action: its precondition with the largest h_max
            sup = [0] * n_actions
            for i in range(n_actions):
                best = -1
                bx = 0
                for x in pres[i]:
                    v = hval[x]
                    if v > best:
                        best = v
                        bx = x
                sup[i] = bx
            # goal zone: atoms from which the goal is reached in the justification graph by
            # zero-cost edges (backwards from the goal atom over zero-cost supporter edges)
            goal_zone = bytearray(n + 2)
            goal_zone[n + 1] = 1
            # achievers by effect atom (reverse edges) restricted to reached actions
            stack = [n + 1]
            achievers = self.achievers
            while stack:
                x = stack.pop()
                for i in achievers[x]:
                    if cost[i] == 0 and hval[sup[i]] < INF:
                        y = sup[i]
                        if not goal_zone[y]:
                            goal_zone[y] = 1
                            stack.append(y)
            # forward from init through supporter edges, not entering the goal zone; the cut is
            # the set of actions whose supporter is reached and that add a goal-zone atom
            reached = bytearray(n + 2)
            stack = []
            for x in init_atoms:
                if not goal_zone[x] and not reached[x]:
                    reached[x] = 1
                    stack.append(x)
            cut = set()
            while stack:
                x = stack.pop()
                for i in pre_of[x]:
                    if sup[i] != x:
                        continue
                    into_goal = False
                    for y in adds[i]:
                        if goal_zone[y]:
                            into_goal = True
                        elif not reached[y]:
                            reached[y] = 1
                            stack.append(y)
                    if into_goal:
                        cut.add(i)
            m = min(cost[i] for i in cut)
            total += m
            for i in cut:
                cost[i] -= m
            hval = self._hmax(init_atoms, cost)
        return total

    def _hmax(self, init_atoms: list[int], cost: list[int]) -> list[int]:
        """h_max of every atom from ``init_atoms`` under action costs ``cost`` (Dijkstra)."""
        INF = 1 << 30
        n = self.n
        hval = [INF] * (n + 2)
        adds, pre_of = self.add, self.pre_of
        remaining = list(self.pre_count)
        best_pre = [0] * self.n_actions
        heap = []
        for x in init_atoms:
            hval[x] = 0
            heap.append((0, x))
        heapq.heapify(heap)
        done = bytearray(n + 2)
        while heap:
            v, x = heapq.heappop(heap)
            if done[x]:
                continue
            done[x] = 1
            for i in pre_of[x]:
                remaining[i] -= 1
                if v > best_pre[i]:
                    best_pre[i] = v
                if remaining[i] == 0:
                    c = best_pre[i] + cost[i]
                    for y in adds[i]:
                        if c < hval[y]:
                            hval[y] = c
                            heapq.heappush(heap, (c, y))
        return hval


# --------------------------------------------------------------------------------------------
# Blocksworld


_BW_SCHEMAS = {
    # name: (params, pre, add, del) with literals as (predicate, parameter positions)
    "pick-up": (1, {("clear", (0,)), ("ontable", (0,)), ("handempty", ())}, {("holding", (0,))},
                {("clear", (0,)), ("ontable", (0,)), ("handempty", ())}),
    "put-down": (1, {("holding", (0,))}, {("clear", (0,)), ("handempty", ()), ("ontable", (0,))},
                 {("holding", (0,))}),
    "stack": (2, {("clear", (1,)), ("holding", (0,))}, {("handempty", ()), ("clear", (0,)), ("on", (0, 1))},
              {("clear", (1,)), ("holding", (0,))}),
    "unstack": (2, {("on", (0, 1)), ("clear", (0,)), ("handempty", ())}, {("holding", (0,)), ("clear", (1,))},
                {("on", (0, 1)), ("clear", (0,)), ("handempty", ())}),
}


def is_blocksworld(task: Task) -> bool:
    """Whether the task's domain is the 4-operator Blocksworld (same schemas up to renaming of
    variables; predicate and action names as in IPC/PlanBench)."""
    d = task.domain
    if {s.name for s in d.schemas} != set(_BW_SCHEMAS) or d.constants or task.goal_neg:
        return False
    if d.predicates != {"on": 2, "ontable": 1, "clear": 1, "holding": 1, "handempty": 0}:
        return False
    for s in d.schemas:
        n, pre, add, dele = _BW_SCHEMAS[s.name]
        if len(s.params) != n:
            return False
        pos = {p: i for i, p in enumerate(s.params)}

        def lits(ls):
            if any(not l.positive or any(a not in pos for a in l.args) for l in ls):
                return None
            return {(l.predicate, tuple(pos[a] for a in l.args)) for l in ls}

        if (lits(s.pre), lits(s.add), lits(s.dele)) != (pre, add, dele):
            return False
    return True


class _Blocksworld:
    """Admissible Blocksworld heuristic (after Gupta & Nau 1992, Slaney & Thiebaux 2001).

    A *move* of block x is one pick-up/unstack of x followed by one put-down/stack of x: 2 actions.
    Block x (on a tower) *must move* if (1) its goal support (goal ``(on x y)`` or ``(ontable x)``)
    differs from its current one; (2) it is above a block that must move; (3) it sits on a block
    y that the goal wants clear, or that the goal wants some other block on; each such block costs
    at least one move. A held block that must be put somewhere (it has a goal support, or other
    blocks must move, or the goal wants the hand empty) costs 1 action.

    Deadlocks: among towered blocks that must move, u ⇒ v ("if every block moved exactly once,
    u's move would precede v's") when u is above v (v can only move once u is off it), when u is
    v's goal support (v's last move onto u needs u in its final place), or when u is above v's goal
    support (v's last move needs it clear). A cycle (possibly a self-loop: v above its own goal
    support) is impossible with single moves, so some block on it moves twice. Vertex-disjoint
    cycles each add a distinct extra move: +2 actions per cycle of a greedy disjoint packing.
    Goal atoms other than on/ontable/clear/handempty are ignored (a relaxation: still admissible).
    States that are not well-formed Blocksworld configurations get LM-cut's value.
    """

    __slots__ = ("atom", "blocks", "gon", "gclear", "goal_handempty", "fallback", "task")

    def __init__(self, task: Task):
        self.task = task
        self.atom = []
        for a in task.atoms:
            toks = a.strip("()").split()
            self.atom.append((toks[0], tuple(toks[1:])))
        self.blocks = tuple(o for o, _ in task.objects)
        self.gon: dict[str, str] = {}  # goal support: a block or "table"
        self.gclear: set[str] = set()
        self.goal_handempty = False
        goal = task.goal if not task.goal >> task.n_atoms else 0
        for i in bits(goal):
            pred, args = self.atom[i]
            if pred == "on":
                self.gon[args[0]] = args[1]
            elif pred == "ontable":
                self.gon[args[0]] = "table"
            elif pred == "clear":
                self.gclear.add(args[0])
            elif pred == "handempty":
                self.goal_handempty = True
        self.fallback = None

    def __call__(self, s: int) -> int | None:
        below: dict[str, str] = {}
        held = None
        for i in bits(s):
            pred, args = self.atom[i]
            if pred == "on":
                if args[0] in below or args[0] == args[1]:
                    return self._fallback(s)
                below[args[0]] = args[1]
            elif pred == "ontable":
                if args[0] in below:
                    return self._fallback(s)
                below[args[0]] = "table"
            elif pred == "holding":
                if held is not None:
                    return self._fallback(s)
                held = args[0]
        if len(below) + (held is not None) != len(self.blocks) or (held is not None and held in below):
            return self._fallback(s)
        above: dict[str, str] = {}
        for x, y in below.items():
            if y != "table":
                if y in above or y == held:
                    return self._fallback(s)
                above[y] = x
        gon, gclear = self.gon, self.gclear
        occupant = {y: x for x, y in gon.items() if y != "table"}  # goal: x on y
        # must-move, bottom-up along each tower
        must: dict[str, bool] = {}
        for base in [x for x, y in below.items() if y == "table"]:
            x, under_must, under = base, False, "table"
            while x is not None:
                m = under_must or (x in gon and gon[x] != under)
                if under != "table" and (under in gclear or occupant.get(under, x) != x):
                    m = True
                must[x] = m
                under_must, under = m, x
                x = above.get(x)
        if len(must) != len(below):
            return self._fallback(s)  # a cycle of on-atoms: not a set of towers
        movers = [x for x, m in must.items() if m]
        h = 2 * len(movers)
        if held is not None and (held in gon or movers or self.goal_handempty):
            h += 1
        if len(movers) >= 1:
            h += 2 * self._disjoint_cycles(movers, below, above, gon)
        return h

    @staticmethod
    def _disjoint_cycles(movers, below, above, gon) -> int:
        mset = set(movers)
        succ: dict[str, set] = {v: set() for v in movers}  # u -> {v : u ⇒ v}
        for v in movers:
            # blocks above v precede v
            u = above.get(v)
            while u is not None:
                succ[u].add(v)
                u = above.get(u)
            d = gon.get(v)
            if d is None or d == "table" or d not in below:
                continue
            if d in mset:
                succ[d].add(v)
            u = above.get(d)
            while u is not None:
                if u in mset:
                    succ[u].add(v)
                u = above.get(u)
        alive = set(movers)
        count = 0
        for v in movers:  # self-loops first
            if v in succ[v]:
                count += 1
                alive.discard(v)
        while True:
            cycle = _shortest_cycle(succ, alive)
            if cycle is None:
                return count
            count += 1
            alive -= cycle

    def _fallback(self, s: int) -> int | None:
        if self.fallback is None:
            self.fallback = _LMCut(self.task)
        return self.fallback(s)


def _shortest_cycle(succ: dict, alive: set):
    """Vertices of a shortest cycle within ``alive`` (None if acyclic). BFS from every vertex."""
    best = None
    for r in sorted(alive):
        parent = {r: None}
        frontier = [r]
        found = None
        while frontier and found is None:
            nxt = []
            for u in frontier:
                for v in succ[u]:
                    if v not in alive:
                        continue
                    if v == r:
                        found = u
                        break
                    if v not in parent:
                        parent[v] = u
                        nxt.append(v)
                if found is not None:
                    break
            frontier = nxt
        if found is not None:
            cyc = set()
            u = found
            while u is not None:
                cyc.add(u)
                u = parent[u]
            if best is None or len(cyc) < len(best):
                best = cyc
                if len(best) == 2:
                    break
    return best
