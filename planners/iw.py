"""IW(k), IW and SIW: breadth-first search with novelty pruning (Lipovetzky & Geffner, ECAI 2012).

IW(k) is breadth-first search in which a newly generated state is pruned when its novelty (the size
of the smallest tuple of atoms it makes true for the first time, see `widthbench.planners.novelty`)
exceeds k. IW runs IW(0), IW(1), ... until one solves the problem; the first k that does is the
problem's *effective width*. SIW (serialized IW) reaches the goal atoms one at a time, each by IW.

Semantics (each fixed here, tested in tests/planners/test_iw.py, documented in docs/widths.md):

1. Successor order is the model's order (for STRIPS the engine's: action name, then arguments;
   ``StripsModel(task, order="lapkt")``: LAPKT's match-tree order, `model.lapkt_action_order`);
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
counts states whose successors were produced. (LAPKT's "generated" is our ``kept`` minus the initial
state of each IW(k) run.)
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Hashable

from widthbench.planners.bfs import extract_plan
from widthbench.planners.model import StripsModel, atom_mask_fn
from widthbench.planners.novelty import NoveltyTable, bits

GOAL_TESTS = ("after-prune", "before-prune")
# The largest k IW is raised to unless the user says otherwise (`--max-width`, alias `--max-k` of
# `widths`): the score grid's novelty and width-estimate items, the searches' oracle novelty width and
# `widthbench widths`. 4 covers every generated Blocksworld (4-5 blocks) and Logistics instance of the
# defaults; IW(5) on a 50-atom ACPBench problem takes minutes in pure Python (docs/domains.md).
DEFAULT_MAX_WIDTH = 4
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

    # the counters of the run, at the point it stopped: result.generated is result.counts.generated, ...
    generated = property(lambda self: self.counts.generated)
    expanded = property(lambda self: self.counts.expanded)
    pruned_duplicate = property(lambda self: self.counts.pruned_duplicate)
    pruned_novelty = property(lambda self: self.counts.pruned_novelty)
    kept = property(lambda self: self.counts.kept)
    distinct = property(lambda self: self.counts.distinct)
    pruned_fraction = property(lambda self: self.counts.pruned_fraction)


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
    if table is None and not trace and k in (1, 2) and type(model) is StripsModel:
        return _iw_strips(model, k, goal_test, before, stop_at_goal, max_generated)
    return _iw_general(model, k, goal_test, before, stop_at_goal, trace, max_generated, table)


def _iw_general(model, k, goal_test, before, stop_at_goal, trace, max_generated, table) -> IWResult:
    """Any model, any k, any novelty table, optional trace. With the default table, no trace and
    k in (None, 1, 2), the novelty test and update of `NoveltyTable` are written out in the loop
    (same semantics, no calls); otherwise the test is ``table.novelty_and_add``.

    Tests check both forms against each other, against `_iw_strips` and against the
    full-enumeration reference (tests/planners/iw_reference.py).
    """
    strips = type(model) is StripsModel  # a subclass may change the goal: ask is_goal
    mask_of = atom_mask_fn(model)
    own_mask = mask_of is StripsModel.atom_mask  # states are their own atom masks
    successors = model.successors
    is_goal = model.is_goal
    # a model whose goal is exactly "the goal_mask atoms are true" says so with goal_is_mask
    by_mask = strips or getattr(model, "goal_is_mask", False)
    gmask = getattr(model, "goal_mask", 0)
    gneg = model.goal_neg if strips else 0
    prune = k is not None
    inline = table is None and not trace and k in (None, 1, 2)
    two = inline and k == 2
    if table is None:
        table = NoveltyTable(k if prune else 0)
    nov_add = table.novelty_and_add if prune and not inline else None

    root = model.initial_state()
    rmask = mask_of(root)
    table.add_mask(rmask)
    seen1 = table._seen1 if inline else 0
    seen2 = table._seen2 if inline else {}
    get2 = seen2.get
    parent: dict = {root: None}  # kept states (and a goal) -> (parent state, label)
    # every generated state; without pruning every new state is kept, so parent holds them all
    seen = set(parent) if prune else parent
    add_seen = seen.add if prune else None
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
                if prune:
                    add_seen(t)
                tmask = t if own_mask else mask_of(t)
                if by_mask:
                    goal_now = tmask & gmask == gmask and not tmask & gneg
                else:
                    goal_now = not found and is_goal(t)
                goal_here = before and goal_now and not found
                nov = None
                if nov_add is not None:
                    nov = nov_add(tmask, smask)
                    novel = nov <= k
                elif not prune:
                    novel = True
                else:
                    # novelty <= k iff some tuple containing an atom new relative to the parent is new
                    new = tmask & ~smask
                    novel = False
                    if new & ~seen1:
                        novel = True
                    elif two and new:
                        n = new
                        while n:
                            low = n & -n
                            if tmask & ~(get2(low.bit_length() - 1, 0) | low):
                                novel = True
                                break
                            n ^= low
                    if novel:  # record the new atoms (and pairs)
                        seen1 |= new
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
                if novel:
                    kept += 1
                    parent[t] = (s, label)
                    push((t, tmask, d1))
                    if goal_now and not before and not found:
                        goal_here = True
                else:
                    pruned += 1
                if log is not None:
                    index[t] = len(log)
                    log.append(TraceEntry(len(log), t, index[s], label, d1, nov, KEPT if novel else PRUNED))
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
    if inline:
        table._seen1 = seen1

    plan = extract_plan(parent, goal_state) if found else None
    counts = Counts(generated, expanded, dup, pruned, kept)
    return IWResult(k, goal_test, found, plan, goal_state, counts, at_goal, not (truncated or stopped),
                    truncated, max_depth, tuple(log) if log is not None else None)


class _StripsTables:
    """Per-task tables for `_iw_strips`, indexed by action id (``task.actions[i].id == i``).

    ``step[i]`` = (keep, add, adds, flip, plain): keep = the atoms action i does not delete, as a
    non-negative mask of all the task's atoms (a successor is ``s & keep | add``, no negative ints);
    add = its add mask; adds = its add atoms; flip = the XOR of the Zobrist keys of the atoms it
    flips when its add atoms are false and the atoms it makes false are true; plain = the atoms it
    makes false are all preconditions (so they are true wherever it applies). ``off[i]``: the
    trigger atoms it makes false. ``groups[atom]``: the actions the engine indexes under that
    trigger atom (``task._triggers``, so the candidates are those of `applicable_actions`) as
    ``(rest of pre, id)``, or ``(rest of pre, neg, id)`` if some action has negative preconditions;
    ``rest of pre`` leaves out the trigger atom itself; ``one[atom]`` is the pair itself for a
    group of one action (None otherwise); without negative preconditions a larger group is also
    split into ``free[atom]``, the ids of its actions with no other precondition (applicable
    whenever the trigger atom is true: a truck's drives from where it is), and ``cond[atom]``, the
    pairs of the others. ``zobrist[atom]``: a random 61-bit key per atom.
    ``redo[i]`` = (keep, add) of action i, and ``redo[n_actions]`` = (all atoms, 0), an action that
    changes nothing (the code of the initial state: a state is rebuilt from its code with one lookup).
    """

    __slots__ = ("task", "n", "full", "step", "off", "groups", "one", "free", "cond", "always", "has_neg",
                 "trigger", "zobrist", "redo")

    def __init__(self, task, zobrist=None):
        import random

        self.task = task
        self.n = n = task.n_atoms
        self.full = full = (1 << n) - 1
        acts = task.actions
        assert all(a.id == i for i, a in enumerate(acts))
        groups, always = task._triggers
        self.has_neg = has_neg = any(a.neg_pre for a in acts)
        self.trigger = trigger = [bool(g) for g in groups]
        if zobrist is None:  # any keys give the same results; fixed ones give reproducible timings
            rng = random.Random(20120827)
            zobrist = [rng.getrandbits(61) for _ in range(n)]
        self.zobrist = z = zobrist
        self.step, self.off = [], []
        for a in acts:
            off = a.dele & ~a.add  # the atoms the action makes false
            flip = 0
            for i in bits(off | a.add):
                flip ^= z[i]
            self.step.append((full & ~a.dele, a.add, tuple(bits(a.add)), flip, not off & ~a.pre))
            self.off.append(tuple(i for i in bits(off) if trigger[i]))
        self.redo = [st[:2] for st in self.step] + [(full, 0)]
        self.groups = [tuple((pre & ~(1 << i), neg, a.id) if has_neg else (pre & ~(1 << i), a.id)
                             for pre, neg, a in g) for i, g in enumerate(groups)]
        self.one = [g[0] if len(g) == 1 and not has_neg else None for g in self.groups]
        multi = [g if len(g) > 1 and not has_neg else () for g in self.groups]
        self.free = [tuple(aid for pre, aid in g if not pre) for g in multi]
        self.cond = [tuple((pre, aid) for pre, aid in g if pre) for g in multi]
        self.always = tuple((pre, neg, a.id) for pre, neg, a in always)


def strips_tables(model: StripsModel) -> _StripsTables:
    """The model's tables (``model.tables``, shared with its single-goal models), built on first use."""
    holder = model.tables
    if holder[0] is None:
        holder[0] = _StripsTables(model.task)
    return holder[0]


def _iw_strips(model, k, goal_test, before, stop_at_goal, max_generated) -> IWResult:
    """IW(1) and IW(2) on a `StripsModel`: the same search and counters as `_iw_general`, written
    for speed (tests check it against the general loop and the full-enumeration reference).

    - Novelty is tested before duplicates, with the same verdicts: a state generated earlier has no
      new tuple (a kept state recorded all its tuples; a pruned one had none new; the table only
      grows), so a state with novelty <= k is never a duplicate and is kept, and only states with
      novelty > k are looked up among the generated ones (duplicate, or pruned).
    - One table for both k: ``unseen[p]`` = the atoms q such that the tuple {p, q} was not seen
      (q = p: the atom p itself). For k = 1 it is all atoms until p is seen, then none. A new state
      t has novelty <= k iff ``t & unseen[p]`` for some atom p new relative to its parent. For k = 2
      the pairs are symmetric and a kept state clears only the pairs that are actually new.
    - Generated states are found by a Zobrist key (XOR of random per-atom keys, one XOR per
      successor) rather than by Python's hash of the int, which walks the whole bitmask: ``seen``
      maps a key to the state's code (parent number * (n_actions + 1) + action id; the root's is
      n_actions, a virtual action that changes nothing), so pruned states are not kept in memory
      and one is rebuilt from its code; a state whose key is taken by another one goes to
      ``spill`` (exact in every case).
    - Successors are action ids: the applicable ones are the engine's trigger candidates of the
      state's true trigger atoms (a list built from the parent's, not from the bits), sorted by id,
      which is the engine's order (or by the model's ``rank``: LAPKT's order); a group's actions with
      no precondition but the trigger atom are added as one tuple. Kept states are numbered:
      ``states[j]``, ``codes[j]``.
    - A successor equal to its parent (an action that changes nothing there, such as a truck driving
      to where it is) is a duplicate without a look-up: the parent was generated.
    """
    task = model.task
    tab = strips_tables(model)
    full, step, off, groups, one, free, cond, always, has_neg, trigger, z, redo = (
        tab.full, tab.step, tab.off, tab.groups, tab.one, tab.free, tab.cond, tab.always, tab.has_neg,
        tab.trigger, tab.zobrist, tab.redo)
    gmask, gneg = model.goal_mask, model.goal_neg
    two = k == 2
    na = len(task.actions) + 1  # codes: parent number * na + action id; the root's is na - 1 (redo)
    rank = getattr(model, "rank", None)  # None: the engine's order (action ids)

    root = task.init
    rtrig = [i for i in bits(root) if trigger[i]]
    rkey = 0
    for i in bits(root):
        rkey ^= z[i]
    unseen = [full] * tab.n
    nroot = full ^ root if two else 0
    for p in bits(root):
        unseen[p] = nroot
    seen = {rkey: na - 1}
    put_seen = seen.setdefault
    spill: set = set()
    states, codes = [root], [-1]
    put_state, put_code = states.append, codes.append
    goal_code = None  # code of the goal state (None: the root, or no goal)

    generated, expanded, dup, pruned, kept = 1, 0, 0, 0, 1
    max_depth = 0
    goal_state = at_goal = None
    found = truncated = stopped = False
    if root & gmask == gmask and not root & gneg:
        found, goal_state, at_goal = True, root, Counts(1, 0, 0, 0, 1)
        stopped = stop_at_goal
    # queue entries: (state, key, number, its parent's true trigger atoms, the action id that made it,
    # the atoms it made true, depth); the state's own trigger list is built when it is expanded
    queue = deque() if stopped else deque(((root, rkey, 0, rtrig, -1, (), 0),))
    popleft, push = queue.popleft, queue.append
    limit = max_generated if max_generated is not None else -1
    while queue:
        s, skey, snum, trig, via, made, d = popleft()
        expanded += 1
        d1 = d + 1
        if via >= 0:
            trig = trig.copy()
            for i in off[via]:  # trigger atoms the action made false
                try:
                    trig.remove(i)
                except ValueError:  # it was false already
                    pass
            for i in made:
                if trigger[i]:
                    trig.append(i)
        # applicable action ids, in id order (the engine's order)
        ids = []
        if has_neg:
            for i in trig:
                for pre, neg, aid in groups[i]:
                    if s & pre == pre and not s & neg:
                        ids.append(aid)
        else:
            for i in trig:
                g = one[i]
                if g is not None:
                    pre, aid = g
                    if s & pre == pre:
                        ids.append(aid)
                else:
                    ids += free[i]
                    for pre, aid in cond[i]:
                        if s & pre == pre:
                            ids.append(aid)
        for pre, neg, aid in always:
            if s & pre == pre and not s & neg:
                ids.append(aid)
        if not ids:
            continue
        if rank is None:
            ids.sort()
        else:
            ids.sort(key=rank.__getitem__)
        max_depth = d1
        g0 = generated
        generated += len(ids)
        if g0 < limit <= generated:  # the limit falls in this expansion
            ids = ids[:limit - g0]
            generated = limit
            truncated = True
        base = snum * na
        for aid in ids:
            keep, add, new_atoms, flip, plain = step[aid]
            t = s & keep | add
            if add & s or not plain:  # only the add atoms that were false are new
                if t == s:  # changes nothing (e.g. a truck driving to where it is): its parent
                    dup += 1
                    continue
                new_atoms = tuple(bits(add & ~s))
                key = skey
                for i in bits(t ^ s):
                    key ^= z[i]
            else:
                key = skey ^ flip
            # novelty <= k iff some tuple containing an atom new relative to the parent is new
            for p in new_atoms:
                if t & unseen[p]:
                    break
            else:  # novelty > k: a duplicate, or pruned
                code = base + aid
                other = put_seen(key, code)
                if other is not code:  # the key is taken: by this very state (a duplicate) or another
                    okeep, oadd = redo[other % na]
                    if states[other // na] & okeep | oadd == t or t in spill:
                        dup += 1
                        continue
                    spill.add(t)
                pruned += 1
                # before-prune: every non-duplicate is goal-tested, pruned or not
                if not before or found or t & gmask != gmask or t & gneg:
                    continue
                found, goal_state, goal_code = True, t, code
                at_goal = Counts(g0 + ids.index(aid) + 1, expanded, dup, pruned, kept)
                if stop_at_goal:
                    generated, truncated, stopped = at_goal.generated, False, True
                    queue.clear()
                    break
                continue
            # novelty <= k: never generated before, kept
            code = base + aid
            if put_seen(key, code) is not code:
                spill.add(t)
            put_state(t)
            put_code(code)
            push((t, key, kept, trig, aid, new_atoms, d1))
            kept += 1
            if two:  # record the new pairs (and atoms)
                for p in new_atoms:
                    pairs = t & unseen[p]
                    if pairs:
                        unseen[p] ^= pairs
                        bp = 1 << p
                        pairs &= ~bp
                        while pairs:
                            low = pairs & -pairs
                            unseen[low.bit_length() - 1] ^= bp
                            pairs ^= low
            else:
                for p in new_atoms:
                    unseen[p] = 0
            if found or t & gmask != gmask or t & gneg:
                continue
            found, goal_state, goal_code = True, t, code
            at_goal = Counts(g0 + ids.index(aid) + 1, expanded, dup, pruned, kept)
            if stop_at_goal:
                generated, truncated, stopped = at_goal.generated, False, True
                queue.clear()
                break
        if truncated:
            queue.clear()
            break

    plan = None
    if found:
        acts = task.actions
        steps = []
        code = goal_code if goal_code is not None else -1
        while code >= 0:
            num, aid = divmod(code, na)
            steps.append(acts[aid])
            code = codes[num]
        plan = tuple(reversed(steps))
    counts = Counts(generated, expanded, dup, pruned, kept)
    return IWResult(k, goal_test, found, plan, goal_state, counts, at_goal, not (truncated or stopped),
                    truncated, max_depth)


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
