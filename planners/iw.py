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
from itertools import filterfalse
from typing import Hashable

from widthbench.planners.bfs import extract_plan
from widthbench.planners.state_model import StripsModel, atom_mask_fn
from widthbench.planners.novelty import NoveltyTable, bits
from widthbench.planners.strips import applicable_actions, triggered

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
    if table is None and not trace and type(model) is StripsModel:
        if k is None:
            return _bfs_strips(model, goal_test, stop_at_goal, max_generated)
        if k in (1, 2):
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


def _enabler_tree(entries) -> tuple:
    """A bitmask match tree over ``entries``, pairs (action id, precondition atoms still to check).

    A node is ``(leaves, mask, kids)``: ``leaves`` are the ids with nothing left to check, ``mask``
    the atoms the other entries branch on (each entry on its atom shared by most entries of the
    node, the lowest among equals) and ``kids[atom]`` the node of the entries branching on that
    atom, with it checked. Entries that all have the same atoms left make one group node
    ``(ids, atoms left, None)``: they hold iff all those atoms do. In a state s the entries whose
    atoms all hold are found through the set bits of ``s & mask``: a few big-int operations per
    node instead of one precondition test per candidate action."""
    rests = {rest for _b, rest in entries}
    if len(rests) <= 1:
        return tuple(sorted(b for b, _r in entries)), rests.pop() if rests else 0, None
    count: dict[int, int] = {}
    for _b, rest in entries:
        for i in bits(rest):
            count[i] = count.get(i, 0) + 1
    leaves = tuple(sorted(b for b, rest in entries if not rest))
    groups: dict[int, list] = {}
    for b, rest in entries:
        if rest:
            key = max(bits(rest), key=lambda i: (count[i], -i))
            groups.setdefault(key, []).append((b, rest & ~(1 << key)))
    mask = 0
    for key in groups:
        mask |= 1 << key
    return leaves, mask, {key: _enabler_tree(g) for key, g in groups.items()}


class _StripsTables:
    """Per-task tables for `_iw_strips`, for one successor order.

    Actions get *inner ids* in the order (``acts[r]`` is the action with inner id r), so sorting
    ids sorts successors. Per inner id: ``keep`` (the atoms it does not delete, as a non-negative
    mask of all atoms: a successor is ``s & keep | add``), ``add``, ``new`` (its add atoms),
    ``col`` (the `unseen` entry tested first for its successors: its add atom added by the fewest
    actions, the one most likely new; n, an entry that stays 0, for an action that adds nothing) and
    ``rest`` (its other add atoms, tested when that test fails), ``pre``, ``neg``, ``far`` (the
    most atoms it changes, if more than 2, so that a grandparent state can be nearer than the
    parent; else 0). ``enab[atom]`` / ``enab_neg[atom]``: the
    `_enabler_tree` of the actions with that atom as a precondition (rest: their other ones) /
    as a negative precondition (rest: all their positive ones). ``root_app``: the inner ids of the
    actions applicable in the initial state. ``loops``, ``loop_of[atom]``, ``loop_mask``: the loop
    actions (successor = the state, wherever they apply) with a one-atom precondition, one per atom,
    by that atom; they are left out of ``root_app``, the enabler trees and so the derived lists.
    ``rel[atom]``: every atom ``enab[atom]`` tests (`_applicable_fn` memoises tree results by them).
    """

    __slots__ = ("task", "rank", "n", "full", "acts", "keep", "add", "new", "col", "rest", "pre", "neg",
                 "has_neg", "far", "one_bit", "but_bit", "users", "enab", "enab_neg",
                 "root_app", "trig", "trig_always", "loop_of", "loops", "loop_mask",
                 "rel")

    def __init__(self, task, rank=None):
        self.task, self.rank = task, rank
        self.n = n = task.n_atoms
        self.full = full = (1 << n) - 1
        order = list(range(len(task.actions)))
        if rank is not None:
            order.sort(key=rank.__getitem__)
        self.acts = acts = tuple(task.actions[i] for i in order)
        inner = {a.id: r for r, a in enumerate(acts)}
        self.has_neg = any(a.neg_pre for a in acts)
        self.keep = [full & ~a.dele for a in acts]
        self.add = [a.add for a in acts]
        self.new = [tuple(bits(a.add)) for a in acts]
        adders = [0] * n
        for x in self.new:
            for i in x:
                adders[i] += 1
        self.col = [min(x, key=adders.__getitem__) if x else n for x in self.new]
        self.rest = [tuple(i for i in x if i != c) for x, c in zip(self.new, self.col)]
        self.pre = [a.pre for a in acts]
        self.neg = [a.neg_pre for a in acts]
        self.far = [c if (c := (a.add | a.dele).bit_count()) > 2 else 0 for a in acts]
        self.one_bit = [1 << i for i in range(n)]
        self.but_bit = [full ^ (1 << i) for i in range(n)]
        # loops: actions whose successor is the state itself wherever they apply (one precondition
        # atom, no negative one, adds only it, deletes nothing else: Logistics' move of a vehicle to
        # where it is); at most one per atom, so the applicable ones of s are the atoms of s & loop_mask
        loop_at: dict[int, list] = {}
        for r, a in enumerate(acts):
            if not a.neg_pre and a.pre.bit_count() == 1 and not a.add & ~a.pre and not a.dele & ~a.add:
                loop_at.setdefault(a.pre.bit_length() - 1, []).append(r)
        self.loop_of = {p: rs[0] for p, rs in loop_at.items() if len(rs) == 1}
        self.loops = frozenset(self.loop_of.values())
        self.loop_mask = sum(1 << p for p in self.loop_of)
        by_atom: list[list] = [[] for _ in range(n)]
        by_neg: list[list] = [[] for _ in range(n)]
        for r, a in enumerate(acts):
            if r in self.loops:
                continue
            for i in bits(a.pre):
                by_atom[i].append((r, a.pre & ~(1 << i)))
            for i in bits(a.neg_pre):
                by_neg[i].append((r, a.pre))
        self.users = [frozenset(r for r, _ in e) for e in by_atom]
        self.enab = [_enabler_tree(e) for e in by_atom]
        self.rel = [_tree_atoms(t) for t in self.enab]
        self.enab_neg = [_enabler_tree(e) for e in by_neg] if self.has_neg else None
        self.root_app = sorted(r for r in (inner[a.id] for a in applicable_actions(task, task.init))
                               if r not in self.loops)
        groups, always = task._triggers  # the engine's trigger index, with inner ids
        if self.has_neg:
            self.trig = [tuple((pre, neg, inner[a.id]) for pre, neg, a in g) for g in groups]
            self.trig_always = tuple((pre, neg, inner[a.id]) for pre, neg, a in always)
        else:
            self.trig = [tuple((pre, inner[a.id]) for pre, _neg, a in g) for g in groups]
            self.trig_always = tuple((pre, inner[a.id]) for pre, _neg, a in always)


def strips_tables(model: StripsModel) -> _StripsTables:
    """The model's tables (``model.tables``, shared with its single-goal models), built on first use."""
    holder = model.tables
    if holder[0] is None or holder[0].rank is not model.rank:
        holder[0] = _StripsTables(model.task, model.rank)
    return holder[0]


def _walk(tree: tuple, sd: int, out: list) -> None:
    """Append to ``out`` the ids of ``tree`` (an `_enabler_tree`) whose atoms all hold in ``sd``."""
    if tree[2] is None:
        need = tree[1]
        if sd & need == need:
            out += tree[0]
        return
    stack = [tree]
    while stack:
        leaves, mask, kids = stack.pop()
        if leaves:
            out += leaves
        h = sd & mask
        while h:
            low = h & -h
            kid = kids[low.bit_length() - 1]
            if kid[2] is None:
                need = kid[1]
                if sd & need == need:
                    out += kid[0]
            else:
                stack.append(kid)
            h ^= low


def _tree_atoms(tree: tuple) -> int:
    """Every atom an `_enabler_tree` tests: its result in a state s depends on s & this only."""
    leaves, mask, kids = tree
    if kids is None:
        return mask
    for kid in kids.values():
        mask |= _tree_atoms(kid)
    return mask


def _root_at_goal(root: int, gmask: int, gneg: int, stop_at_goal: bool) -> tuple:
    """(found, goal state, its counts, stopped) of a run whose root may already be a goal."""
    if root & gmask == gmask and not root & gneg:
        return True, root, Counts(1, 0, 0, 0, 1), stop_at_goal
    return False, None, None, False


def _applicable_fn(tab: _StripsTables):
    """``applicable(s, ref, ref_ids)``: the inner ids of the actions applicable in ``s``, sorted,
    from those of another state ``ref`` (``ref_ids``): the ones that stay applicable (no
    precondition among the atoms true in ref only; no negative one among those true in s only) and
    the ones some atom true in s only (or, for a negative precondition, true in ref only) enables,
    found in its enabler tree. An action enabled by several such atoms is found once: each tree
    skips the branches on atoms searched before it (without negative preconditions; with them,
    duplicates are dropped at the end). Without negative preconditions a branching tree's result is
    memoised by the atoms it tests (``memo[atom]``, keyed by ``sd & rel[atom]``), at most 65,536
    entries, a fresh memo for each function this returns (one per `_iw_strips` run). The tables are
    bound once, as the function's own variables, since it runs once per expanded state."""
    pres, enab, users, rel, negs, enab_neg = tab.pre, tab.enab, tab.users, tab.rel, tab.neg, tab.enab_neg
    one_bit = tab.one_bit
    memos: list[dict] = [{} for _ in range(tab.n)]
    room = 1 << 16  # memo entries left

    def applicable_neg(s: int, ref: int, ref_ids: list) -> list:
        diff = ref ^ s
        gone, came = ref & diff, s & diff
        ids = [b for b in ref_ids if not pres[b] & gone and not negs[b] & came]
        out: list = []
        for p in bits(came):
            _walk(enab[p], s, out)
        for p in bits(gone):
            _walk(enab_neg[p], s, out)
        return sorted(set(ids).union(b for b in out if not negs[b] & s))

    def applicable(s: int, ref: int, ref_ids: list) -> list:
        nonlocal room
        diff = ref ^ s
        gone, came = ref & diff, s & diff
        if not gone:
            ids = ref_ids.copy()
        elif gone & (gone - 1):  # (a loop: a comprehension costs a function call in Python 3.11)
            ids = []
            for b in ref_ids:
                if not pres[b] & gone:
                    ids.append(b)
        else:  # one atom became false: a set test (in C) instead of a mask test
            ids = list(filterfalse(users[gone.bit_length() - 1].__contains__, ref_ids))
        sd = s
        while came:  # from the highest atom down (any order finds each action once)
            p = came.bit_length() - 1
            low = one_bit[p]
            came ^= low
            tree = enab[p]
            if tree[2] is None:  # one group: all its ids need the same atoms
                need = tree[1]
                if sd & need == need:
                    ids += tree[0]
            else:
                memo = memos[p]
                key = sd & rel[p]
                found = memo.get(key)
                if found is None:
                    found = []
                    _walk(tree, sd, found)
                    if room:
                        room -= 1
                        memo[key] = found
                ids += found
            sd ^= low  # an action that also needs this atom is found under it: skip it below
        ids.sort()
        return ids

    return applicable_neg if tab.has_neg else applicable


def _counts(generated: int, expanded: int, distinct: int, kept: int) -> Counts:
    """A run's counters from the number of distinct states among the ``generated`` ones (every
    generated state is in the run's ``seen`` once): the rest were duplicates, and of the distinct
    ones those not kept were pruned for novelty."""
    return Counts(generated, expanded, generated - distinct, distinct - kept, kept)


def _loops_before(tab: _StripsTables, s: int, aid: int) -> int:
    """The loop actions applicable in ``s`` that come before inner id ``aid``."""
    loop_of = tab.loop_of
    return sum(1 for p in bits(s & tab.loop_mask) if loop_of[p] < aid)


def _iw_strips(model, k, goal_test, before, stop_at_goal, max_generated) -> IWResult:
    """IW(1) and IW(2) on a `StripsModel`: the same search and counters as `_iw_general`, written
    for speed (tests check it against the general loop and the full-enumeration reference).

    - Novelty first, duplicates only counted: a state generated earlier has no new tuple (a kept
      state recorded all its tuples; a pruned one had none new; the table only grows), so a state
      with novelty <= k is never a duplicate and is kept without a look-up. Every successor goes
      into ``seen`` (the states generated so far, each once), so at any point the duplicates are
      the generated count minus ``len(seen)`` and the novelty-pruned ones ``len(seen)`` minus the
      kept ones: the counters at the end, and at a goal, need no per-successor bookkeeping.
    - One table for both k: ``unseen[p]`` = the atoms q such that the tuple {p, q} was not seen
      (q = p: the atom p itself). For k = 1 it is all atoms until p is seen, then none. A new state
      t has novelty <= k iff ``t & unseen[p]`` for some atom p new relative to its parent; for an
      action with one add atom that is one test (``col``). For k = 2 the pairs are symmetric and a
      kept state clears only the pairs that are actually new.
    - Applicable actions are inner ids (`_StripsTables`: the model's order), derived per expansion
      from the list of the state's parent, or of its grandparent when that state differs from it
      in fewer atoms (`_applicable_fn`): a few enabler trees instead of a pass over every true atom.
      Kept states are numbered (``codes[j]`` = parent number * (n_actions + 1) + inner id, for the
      plan). ``seen`` holds the generated states themselves (Python hashes each once, in C), which
      is more memory than a table of keys would take.
    - Loop actions (`_StripsTables.loops`: the successor is the state itself, such as a vehicle moving
      to where it is) are not in the lists: each applicable one is a duplicate, counted per
      expansion (one bit count); the full order is rebuilt only where a position matters (a goal,
      the ``max_generated`` limit).
    """
    task = model.task
    tab = strips_tables(model)
    applicable = _applicable_fn(tab)  # with a fresh memo
    full, keeps, addm, news, col, rest, far = tab.full, tab.keep, tab.add, tab.new, tab.col, tab.rest, tab.far
    if before:  # every successor gets the full test, which goal-tests the non-novel ones
        col, rest = [tab.n] * len(col), [x or (tab.n,) for x in news]  # (n,): a test that fails
    gmask, gneg = model.goal_mask, model.goal_neg
    two = k == 2
    na = len(task.actions) + 1  # codes: parent number * na + inner id

    root = task.init
    unseen = [full] * tab.n + [0]  # entry n stays 0: see col
    nroot = full ^ root if two else 0
    for p in bits(root):
        unseen[p] = nroot
    seen = {root}
    seen_add = seen.add
    codes = [-1]  # codes[j]: the code of kept state j
    put_code = codes.append
    one_bit, but_bit = tab.one_bit, tab.but_bit
    lmask, loop_of, loops = tab.loop_mask, tab.loop_of, tab.loops
    goal_code = None  # code of the goal state (None: the root, or no goal)

    generated, expanded, kept = 1, 0, 1  # duplicates and pruned states: from len(seen) at the end
    max_depth = 0
    found, goal_state, at_goal, stopped = _root_at_goal(root, gmask, gneg, stop_at_goal)
    truncated = False
    # queue entries: (state, number, the parent's applicable ids, the parent, the grandparent's
    # ids, the grandparent, the inner id of the action that made it, depth)
    rapp = tab.root_app
    queue = deque() if stopped else deque(((root, 0, rapp, root, rapp, root, -1, 0),))
    popleft, push = queue.popleft, queue.append
    limit = max_generated if max_generated is not None else -1
    while queue:
        s, snum, pids, ps, gids, gs, via, d = popleft()
        expanded += 1
        d1 = d + 1
        if via < 0:
            ids = pids
        elif far[via] and (s ^ gs).bit_count() < far[via]:  # (s ^ ps).bit_count() <= far[via]
            ids = applicable(s, gs, gids)
        else:
            ids = applicable(s, ps, pids)
        nl = (s & lmask).bit_count()  # loops applicable in s: each makes s again, a duplicate
        if not ids and not nl:
            continue
        max_depth = d1
        g0 = generated
        run = ids
        if g0 < limit <= g0 + len(ids) + nl:  # the limit falls in this expansion
            run = sorted(ids + [loop_of[p] for p in bits(s & lmask)])[:limit - g0]
            n = len(run)
            run = [b for b in run if b not in loops]
            nl = n - len(run)
            truncated = True
        generated += len(run) + nl
        base = snum * na
        for aid in run:
            t = s & keeps[aid] | addm[aid]
            seen_add(t)  # every generated state, once
            # novelty <= k iff t & unseen[p] for an add atom p (one already in s only adds a test
            # that fails); the add atom most likely new first
            if not t & unseen[col[aid]]:
                if not rest[aid]:
                    continue  # novelty > k: its one add atom made no new tuple
                for p in rest[aid]:
                    if t & unseen[p]:
                        break
                else:  # novelty > k; before-prune: a goal (never a duplicate: an earlier copy was a goal)
                    if before and not found and t & gmask == gmask and not t & gneg:
                        found, goal_state, goal_code = True, t, base + aid
                        gen = g0 + run.index(aid) + 1 + (_loops_before(tab, s, aid) if nl else 0)
                        at_goal = _counts(gen, expanded, len(seen), kept)
                        if stop_at_goal:
                            stopped = True
                            break
                    continue
            # novelty <= k: never generated before, kept
            new_atoms = news[aid]
            code = base + aid
            put_code(code)
            push((t, kept, ids, s, pids, ps, aid, d1))
            kept += 1
            if two:  # record the new pairs (and atoms)
                for p in new_atoms:
                    pairs = t & unseen[p]
                    if pairs:
                        unseen[p] ^= pairs
                        bp = one_bit[p]
                        pairs &= but_bit[p]
                        while pairs:  # from the highest atom down: no negation or mask per atom
                            q = pairs.bit_length() - 1
                            pairs ^= one_bit[q]
                            unseen[q] ^= bp
            else:
                for p in new_atoms:
                    unseen[p] = 0
            if found or t & gmask != gmask or t & gneg:
                continue
            found, goal_state, goal_code = True, t, code
            gen = g0 + run.index(aid) + 1 + (_loops_before(tab, s, aid) if nl else 0)  # up to this one
            at_goal = _counts(gen, expanded, len(seen), kept)
            if stop_at_goal:
                stopped = True
                break
        if stopped or truncated:
            truncated = truncated and not stopped
            queue.clear()
            break

    plan = None
    if found:
        acts = tab.acts
        steps = []
        code = goal_code if goal_code is not None else -1
        while code >= 0:
            num, aid = divmod(code, na)
            steps.append(acts[aid])
            code = codes[num]
        plan = tuple(reversed(steps))
    counts = at_goal if stopped else _counts(generated, expanded, len(seen), kept)
    return IWResult(k, goal_test, found, plan, goal_state, counts, at_goal, not (truncated or stopped),
                    truncated, max_depth)


def _bfs_strips(model, goal_test, stop_at_goal, max_generated) -> IWResult:
    """IW(k=None), plain breadth-first search, on a `StripsModel`: the same search and counters as
    `_iw_general` (tests check them against each other), written for speed.

    - Level by level: a list per depth instead of a queue of (state, depth) entries.
    - ``parent`` maps each generated state to its parent state only (no label tuple per state). The
      plan's labels are found again at the end: the action that first generated a state is the
      first one, in the model's order, that makes it from its parent (every later copy of the state
      was a duplicate).
    - Applicable actions by the engine's trigger index (``tab.trig``, inner ids, so sorting ids
      sorts successors); for this search, with few successors per state, that is quicker than the
      enabler trees of `_iw_strips` (they need each state's parent list carried along).
    - Duplicates are not counted per successor: without novelty pruning every new state is kept, so
      ``pruned_duplicate`` = ``generated`` - ``kept``.
    """
    task = model.task
    tab = strips_tables(model)
    keeps, addm, trig, always, neg = tab.keep, tab.add, tab.trig, tab.trig_always, tab.has_neg
    gmask, gneg = model.goal_mask, model.goal_neg
    root = task.init
    parent: dict = {root: None}
    generated, expanded = 1, 0
    max_depth = 0
    found, goal_state, at_goal, stopped = _root_at_goal(root, gmask, gneg, stop_at_goal)
    truncated = False
    limit = max_generated if max_generated is not None else -1
    layer = [] if stopped else [root]
    d1 = 0
    while layer:
        d1 += 1
        nxt: list = []
        put = nxt.append
        for s in layer:
            expanded += 1
            if neg:
                ids = triggered(s, trig, always)
            else:
                ids = []
                x = s
                while x:
                    low = x & -x
                    for pre, aid in trig[low.bit_length() - 1]:
                        if s & pre == pre:
                            ids.append(aid)
                    x ^= low
                for pre, aid in always:
                    if s & pre == pre:
                        ids.append(aid)
            if not ids:
                continue
            ids.sort()
            max_depth = d1
            g0 = generated
            if g0 < limit <= g0 + len(ids):  # the limit falls in this expansion
                del ids[limit - g0:]
                truncated = True
            generated += len(ids)
            for aid in ids:
                t = s & keeps[aid] | addm[aid]
                if t in parent:
                    continue
                parent[t] = s
                put(t)
                if found or t & gmask != gmask or t & gneg:
                    continue
                found, goal_state = True, t
                g = g0 + ids.index(aid) + 1
                at_goal = Counts(g, expanded, g - len(parent), 0, len(parent))
                if stop_at_goal:
                    stopped = True
                    break
            if stopped or truncated:
                break
        if stopped or truncated:
            break
        layer = nxt
    kept = len(parent)
    if stopped:
        counts = at_goal
        truncated = False
    else:
        counts = Counts(generated, expanded, generated - kept, 0, kept)

    plan = None
    if found:
        states = [goal_state]
        while parent[states[-1]] is not None:
            states.append(parent[states[-1]])
        states.reverse()
        acts = tab.acts
        steps = []
        for s, t in zip(states, states[1:]):
            for a, act in enumerate(acts):  # inner ids: the model's order
                if s & act.pre == act.pre and not s & act.neg_pre and s & keeps[a] | addm[a] == t:
                    steps.append(act)
                    break
        plan = tuple(steps)
    return IWResult(None, goal_test, found, plan, goal_state, counts, at_goal, not (truncated or stopped),
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
