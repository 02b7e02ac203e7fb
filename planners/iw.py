"""IW(k), IW and SIW: breadth-first search with novelty pruning (Lipovetzky & Geffner, ECAI 2012).

IW(k) is breadth-first search in which a newly generated state is pruned when its novelty (the size
of the smallest tuple of atoms it makes true for the first time, see `widthbench.planners.novelty`)
exceeds k. IW runs IW(0), IW(1), ... until one solves the problem; the first k that does is the
problem's *effective width*. SIW (serialized IW) reaches the goal atoms one at a time, each by IW.

Semantics (each fixed here, tested in tests/planners/test_iw.py, documented in docs/widths.md):

1. Successor order is the model's order (for STRIPS the engine's: action name, then arguments);
   the queue is FIFO. Effective widths and node counts depend on this order.
2. Duplicates are detected before novelty: a successor equal to *any* state generated earlier in
   the same run (kept or pruned) is a duplicate and is counted apart (verdict ``"duplicate"``).
   LAPKT compares against open and closed nodes only, so a state it pruned for novelty and meets
   again is pruned for novelty again (same search, different counters).
3. Novelty is incremental: only tuples containing an atom new relative to the parent are tested
   (the parent's tuples were recorded when it was kept). Kept states record their tuples; pruned
   states have no new tuple of size <= k, so recording them would change nothing.
4. Goal test, ``goal_test="after-prune"`` (default, as in LAPKT): a generated goal state counts as
   reached only if it survives the novelty prune. ``"before-prune"``: every non-duplicate generated
   state is goal-tested before its novelty is computed.
5. The initial state is never pruned and is goal-tested first: a goal true initially is solved by
   IW(0), so its width is 0. IW(0) prunes every successor (every novelty is >= 1).
6. IW stops raising k once an IW(k) run pruned nothing: that run was a complete breadth-first
   search, so no larger k can do better (the goal is unreachable).

Counters: ``generated`` counts the initial state and every successor produced (duplicates
included); ``pruned_duplicate`` + ``pruned_novelty`` + ``kept`` = ``generated``; ``expanded``
counts states whose successors were produced. (LAPKT's "generated" is our ``kept``.)
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Hashable

from widthbench.planners.model import StripsModel, atom_mask_fn
from widthbench.planners.novelty import NoveltyTable
from widthbench.planners.strips import applicable_actions

GOAL_TESTS = ("after-prune", "before-prune")
KEPT, DUPLICATE, PRUNED = "kept", "duplicate", "novelty"


@dataclass(frozen=True, slots=True)
class TraceEntry:
    """One generated state, in generation order (index 0 is the initial state).

    ``novelty`` is 1..k, or k + 1 meaning "greater than k"; None for duplicates (detected first, so
    never computed; a duplicate's novelty is > k by definition) and for plain BFS (k is None).
    ``verdict``: ``"kept"``, ``"duplicate"`` (pruned as a duplicate) or ``"novelty"`` (pruned for
    novelty > k).
    """

    index: int
    state: Hashable
    parent: int | None  # index of the parent entry
    label: object  # the action that generated it (None for the initial state)
    depth: int
    novelty: int | None
    verdict: str


@dataclass(frozen=True, slots=True)
class Counts:
    """Node counters of a run (see the module docstring)."""

    generated: int
    expanded: int
    pruned_duplicate: int
    pruned_novelty: int
    kept: int

    @property
    def distinct(self) -> int:
        """Non-duplicate generated states (kept + pruned for novelty)."""
        return self.kept + self.pruned_novelty

    @property
    def pruned_fraction(self) -> float:
        """Pruned for novelty, as a fraction of the non-duplicate generated states."""
        return self.pruned_novelty / self.distinct if self.distinct else 0.0


@dataclass(frozen=True, slots=True)
class IWResult:
    k: int | None  # None: no novelty pruning (plain breadth-first search with duplicate detection)
    goal_test: str
    solved: bool
    plan: tuple | None  # action labels from the initial state to the first goal state reached
    goal_state: Hashable | None
    counts: Counts  # when the run stopped
    at_goal: Counts | None  # when the first goal was reached (equal to counts if it stopped there)
    exhausted: bool  # the queue ran empty: every state of the IW(k) tree was generated
    truncated: bool  # stopped by max_generated
    max_depth: int  # depth of the deepest generated state
    trace: tuple[TraceEntry, ...] | None = None

    # the counters of the run, at the point it stopped
    @property
    def generated(self) -> int:
        return self.counts.generated

    @property
    def expanded(self) -> int:
        return self.counts.expanded

    @property
    def pruned_duplicate(self) -> int:
        return self.counts.pruned_duplicate

    @property
    def pruned_novelty(self) -> int:
        return self.counts.pruned_novelty

    @property
    def kept(self) -> int:
        return self.counts.kept

    @property
    def distinct(self) -> int:
        return self.counts.distinct

    @property
    def pruned_fraction(self) -> float:
        return self.counts.pruned_fraction


def iw(model, k: int | None, *, goal_test: str = "after-prune", stop_at_goal: bool = True,
       trace: bool = False, max_generated: int | None = None, table=None) -> IWResult:
    """IW(k) over a state model (k=None: plain breadth-first search, nothing pruned for novelty).

    ``stop_at_goal=False`` runs until the queue is empty; ``at_goal`` keeps the counters at the
    first goal reached, so one run gives both the width run and the complete IW(k) tree.
    ``trace=True`` records every generated state with its novelty and verdict (`TraceEntry`).
    ``table`` replaces the novelty table (tests pass `ReferenceNoveltyTable(k)`).
    ``max_generated`` stops the run (``truncated``) once that many states were generated.
    """
    if goal_test not in GOAL_TESTS:
        raise ValueError(f"goal_test must be one of {GOAL_TESTS}, got {goal_test!r}")
    if k is not None and k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    before = goal_test == "before-prune"
    if table is None and not trace and k in (None, 1, 2):
        return _iw_fast(model, k, goal_test, before, stop_at_goal, max_generated)
    return _iw_general(model, k, goal_test, before, stop_at_goal, trace, max_generated, table)


def _iw_general(model, k, goal_test, before, stop_at_goal, trace, max_generated, table) -> IWResult:
    """Any k, any novelty table, optional trace: the novelty test is `table.novelty_and_add`."""
    mask_of = atom_mask_fn(model)
    successors = model.successors
    is_goal = model.is_goal
    if k is not None and table is None:
        table = NoveltyTable(k)
    nov_add = table.novelty_and_add if k is not None else None
    bound = k if k is not None else 0

    root = model.initial_state()
    rmask = mask_of(root)
    if table is not None:
        table.add_mask(rmask)
    seen: dict = {root: None}  # every generated state -> (parent state, label); root -> None
    log: list[TraceEntry] | None = None
    index: dict = {}
    if trace:
        log = [TraceEntry(0, root, None, None, 0, None, KEPT)]
        index[root] = 0

    generated, expanded, dup, pruned, kept = 1, 0, 0, 0, 1
    max_depth = 0
    goal_state = at_goal = None
    found = truncated = stopped = False
    if is_goal(root):
        found, goal_state, at_goal = True, root, Counts(1, 0, 0, 0, 1)
        stopped = stop_at_goal
    queue = deque() if stopped else deque(((root, rmask, 0),))
    popleft, push = queue.popleft, queue.append
    limit = max_generated if max_generated is not None else -1
    while queue:
        s, smask, d = popleft()
        expanded += 1
        d1 = d + 1
        for label, t in successors(s):
            generated += 1
            max_depth = d1
            if t in seen:
                dup += 1
                if log is not None:
                    log.append(TraceEntry(len(log), t, index[s], label, d1, None, DUPLICATE))
            else:
                seen[t] = (s, label)
                tmask = mask_of(t)
                goal_here = before and not found and is_goal(t)
                nov = nov_add(tmask, smask) if nov_add is not None else 0
                if nov > bound:
                    pruned += 1
                    verdict = PRUNED
                else:
                    kept += 1
                    push((t, tmask, d1))
                    verdict = KEPT
                    if not before and not found and is_goal(t):
                        goal_here = True
                if log is not None:
                    index[t] = len(log)
                    log.append(TraceEntry(len(log), t, index[s], label, d1, nov if k is not None else None,
                                          verdict))
                if goal_here:
                    found, goal_state = True, t
                    at_goal = Counts(generated, expanded, dup, pruned, kept)
                    if stop_at_goal:
                        stopped = True
                        queue.clear()
                        break
            if generated == limit:
                truncated = True
                queue.clear()
                break

    plan = _extract(seen, goal_state) if found else None
    counts = Counts(generated, expanded, dup, pruned, kept)
    return IWResult(k, goal_test, found, plan, goal_state, counts, at_goal, not (truncated or stopped),
                    truncated, max_depth, tuple(log) if log is not None else None)


def _iw_fast(model, k, goal_test, before, stop_at_goal, max_generated) -> IWResult:
    """IW(1), IW(2) and plain breadth-first search (k=None) with the novelty test and update of
    `NoveltyTable` written out in the loop (same semantics, no calls), and for STRIPS models the
    successor computation as well.

    Tests check it against `_iw_general` and against the full-enumeration reference.
    """
    strips = type(model) is StripsModel  # a subclass may change successors: general path
    mask_of = atom_mask_fn(model)
    successors = model.successors
    is_goal = model.is_goal
    # a model whose goal is exactly "the goal_mask atoms are true" says so with goal_is_mask
    by_mask = strips or getattr(model, "goal_is_mask", False)
    gmask = getattr(model, "goal_mask", 0)
    gneg = model.goal_neg if strips else 0
    if strips:
        task = model.task
    two = k == 2
    prune = k is not None

    root = model.initial_state()
    rmask = mask_of(root)
    table = NoveltyTable(k if prune else 0)
    table.add_mask(rmask)
    seen1 = table._seen1
    seen2 = table._seen2
    get2 = seen2.get
    seen = {root}  # every generated state
    add_seen = seen.add
    parent: dict = {root: None}  # kept states (and a goal) -> (parent state, label)

    generated, expanded, dup, pruned, kept = 1, 0, 0, 0, 1
    max_depth = 0
    goal_state = at_goal = None
    found = truncated = stopped = False
    if is_goal(root):
        found, goal_state, at_goal = True, root, Counts(1, 0, 0, 0, 1)
        stopped = stop_at_goal
    queue = deque() if stopped else deque(((root, rmask, 0),))
    popleft, push = queue.popleft, queue.append
    limit = max_generated if max_generated is not None else -1
    while queue:
        s, smask, d = popleft()
        expanded += 1
        max_depth = d1 = d + 1
        pairs = None if strips else successors(s)
        for item in (applicable_actions(task, s) if strips else pairs):
            generated += 1
            if strips:
                label = item
                t = tmask = (s & ~item.dele) | item.add
            else:
                label, t = item
            if t in seen:
                dup += 1
            else:
                add_seen(t)
                if not strips:
                    tmask = mask_of(t)
                if by_mask:
                    goal_now = tmask & gmask == gmask and not tmask & gneg
                else:
                    goal_now = is_goal(t)
                goal_here = before and goal_now and not found
                # novelty <= k iff some tuple containing an atom new relative to the parent is new
                new = tmask & ~smask
                novel = not prune
                if novel:
                    pass
                elif new & ~seen1:
                    novel = True
                elif two and new:
                    n = new
                    while n:
                        low = n & -n
                        if tmask & ~(get2(low.bit_length() - 1, 0) | low):
                            novel = True
                            break
                        n ^= low
                if novel:
                    kept += 1
                    parent[t] = (s, label)
                    push((t, tmask, d1))
                    seen1 |= new  # (unused when k is None)
                    if two:
                        n = new
                        while n:
                            low = n & -n
                            i = low.bit_length() - 1
                            seen2[i] = get2(i, 0) | tmask
                            n ^= low
                        o = tmask & ~new
                        while o:
                            low = o & -o
                            i = low.bit_length() - 1
                            seen2[i] = get2(i, 0) | new
                            o ^= low
                    if goal_now and not before and not found:
                        goal_here = True
                else:
                    pruned += 1
                if goal_here:
                    parent[t] = (s, label)
                    found, goal_state = True, t
                    at_goal = Counts(generated, expanded, dup, pruned, kept)
                    if stop_at_goal:
                        stopped = True
                        queue.clear()
                        break
            if generated == limit:
                truncated = True
                queue.clear()
                break
    table._seen1 = seen1

    plan = _extract(parent, goal_state) if found else None
    counts = Counts(generated, expanded, dup, pruned, kept)
    return IWResult(k, goal_test, found, plan, goal_state, counts, at_goal, not (truncated or stopped),
                    truncated, max_depth)


def _extract(seen: dict, t) -> tuple:
    plan = []
    while seen[t] is not None:
        s, label = seen[t]
        plan.append(label)
        t = s
    return tuple(reversed(plan))


@dataclass(frozen=True, slots=True)
class IteratedResult:
    """IW: IW(0), IW(1), ... up to max_k. ``width`` is the first k that solved (None if none did)."""

    width: int | None
    max_k: int
    unsolvable: bool  # some IW(k) pruned nothing and found no goal: the goal is unreachable
    runs: tuple[IWResult, ...]

    @property
    def last(self) -> IWResult:
        return self.runs[-1]


def iterated_width(model, max_k: int, *, goal_test: str = "after-prune", min_k: int = 0,
                   trace: bool = False, max_generated: int | None = None,
                   stop_at_goal: bool = True) -> IteratedResult:
    """IW: run IW(k) for k = min_k, min_k + 1, ... until solved, up to ``max_k``.

    Stops raising k once an IW(k) run pruned nothing (it was a complete breadth-first search).
    ``stop_at_goal=False`` lets the solving run go on to exhaust its IW(k) tree (see `iw`).
    """
    runs = []
    for k in range(min_k, max_k + 1):
        r = iw(model, k, goal_test=goal_test, trace=trace, max_generated=max_generated,
               stop_at_goal=stop_at_goal)
        runs.append(r)
        if r.solved:
            return IteratedResult(k, max_k, False, tuple(runs))
        if r.pruned_novelty == 0 and not r.truncated:
            return IteratedResult(None, max_k, True, tuple(runs))
    return IteratedResult(None, max_k, False, tuple(runs))


# ---------------------------------------------------------------------------------------------
# SIW


class _Subproblem:
    """The model with start state ``start`` and goal "the goal atoms in ``achieved`` stay true and
    at least one more goal atom becomes true"."""

    __slots__ = ("model", "start", "goal", "achieved", "successors", "atom_mask")

    def __init__(self, model, start, goal: int, achieved: int):
        self.model, self.start, self.goal, self.achieved = model, start, goal, achieved
        self.successors = model.successors
        self.atom_mask = atom_mask_fn(model)

    def initial_state(self):
        return self.start

    def is_goal(self, state) -> bool:
        g = self.atom_mask(state) & self.goal
        return g & self.achieved == self.achieved and g != self.achieved

    def atoms(self, state):
        return self.model.atoms(state)


@dataclass(frozen=True, slots=True)
class SIWResult:
    solved: bool
    plan: tuple | None
    widths: tuple[int, ...]  # effective width of each subproblem, in order
    generated: int  # summed over every IW(k) run, failed ones included
    expanded: int
    pruned_duplicate: int
    pruned_novelty: int
    kept: int

    @property
    def pruned_fraction(self) -> float:
        d = self.kept + self.pruned_novelty
        return self.pruned_novelty / d if d else 0.0


def siw(model, max_k: int = 2, *, goal_test: str = "after-prune") -> SIWResult:
    """Serialized IW over the positive goal atoms (``model.goal_mask``).

    From the current state, IW (k = 1 .. max_k) looks for a state that keeps the goal atoms achieved
    so far and makes at least one more true; that state becomes the next start. Each subproblem uses
    a fresh novelty table. Fails if a subproblem is not solved within ``max_k``.
    """
    goal = getattr(model, "goal_mask", None)
    if goal is None:
        raise TypeError("SIW needs a model with a goal_mask (the goal atoms as a bitmask)")
    mask_of = atom_mask_fn(model)
    state = model.initial_state()
    plan: list = []
    widths: list[int] = []
    totals = [0, 0, 0, 0, 0]
    while True:
        achieved = mask_of(state) & goal
        if achieved == goal:
            return SIWResult(model.is_goal(state), tuple(plan), tuple(widths), *totals)
        sub = _Subproblem(model, state, goal, achieved)
        res = iterated_width(sub, max_k, goal_test=goal_test, min_k=1)
        for r in res.runs:
            totals[0] += r.generated
            totals[1] += r.expanded
            totals[2] += r.pruned_duplicate
            totals[3] += r.pruned_novelty
            totals[4] += r.kept
        if res.width is None:
            return SIWResult(False, None, tuple(widths), *totals)
        widths.append(res.width)
        plan.extend(res.last.plan)
        state = res.last.goal_state
