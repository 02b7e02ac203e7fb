"""State models: what a width-based search needs to know about a problem.

A state model (Geffner & Bonet's S = <S, s0, SG, A, f>, plus the boolean features novelty counts)
is anything with:

- ``initial_state()`` -> a hashable state;
- ``successors(state)`` -> list of ``(label, state)`` in a fixed, deterministic order (the label
  names the action; ``str(label)`` is its text);
- ``is_goal(state)`` -> bool;
- ``atoms(state)`` -> the ints of the features (atoms) true in the state.

Optional, used when present: ``atom_mask(state)`` (the same atoms as an int bitmask; IW calls it
instead of ``atoms``), ``goal_mask`` (int: the goal atoms, for SIW and single-atom goals),
``goal_is_mask`` (True when ``is_goal(s)`` holds exactly when all ``goal_mask`` atoms are true in s:
IW then tests the mask instead of calling ``is_goal``),
``horizon`` (int: no path is longer, the state tree is finite), ``describe_state(state)`` and
``describe_atom(i)`` (text for reports and prompts), ``name``.

`StripsModel` adapts a grounded STRIPS task: states are the engine's int bitmasks, atoms are the set
bits (static atoms are folded away by the engine, so they are not features), successors come in the
engine's order (`applicable_actions`: action name, then arguments), and the goal can be replaced by
a single goal atom (``StripsModel(task, goal=1 << i)``, the Lipovetzky & Geffner single-goal setting).
The Game of 24 model lives in `widthbench.planners.game24_model`.
"""

from __future__ import annotations

from typing import Hashable, Iterable, Protocol, runtime_checkable

from widthbench.planners.novelty import bits
from widthbench.planners.strips import Action, Task, applicable_actions, format_state


@runtime_checkable
class StateModel(Protocol):
    def initial_state(self) -> Hashable: ...

    def successors(self, state) -> list[tuple[object, Hashable]]: ...

    def is_goal(self, state) -> bool: ...

    def atoms(self, state) -> Iterable[int]: ...


def strips_successors(task: Task, state: int) -> list[tuple[Action, int]]:
    """(action, successor) for the actions applicable in ``state``, in the engine's order (action
    name, then arguments): `strips.successor` written inline, the one copy the search loops
    (breadth-first search, A*, IW, the distance enumeration of `planners.ground_truth`) share, since a
    call per successor costs them about 10%. Only `bfs.reachable_states` writes it out again."""
    return [(a, (state & ~a.dele) | a.add) for a in applicable_actions(task, state)]


def atom_mask_fn(model):
    """A function state -> int bitmask of its atoms (the model's own if it has one)."""
    fn = getattr(model, "atom_mask", None)
    if fn is not None:
        return fn
    atoms = model.atoms

    def mask(state) -> int:
        m = 0
        for a in atoms(state):
            m |= 1 << a
        return m

    return mask


ORDERS = ("engine", "lapkt")


def lapkt_action_order(task: Task) -> list[int]:
    """rank[action id]: the position of each action in the order in which LAPKT's match tree (its
    default successor generator, ``Match_Tree``, after PRP's) lists applicable actions, for the task
    handed to LAPKT with our atom and action numbering (as scripts/bench_iw.py does), in a process
    that has built no other match tree before.

    The tree, as the installed LAPKT (0.2.1) builds it: a node holds a list of actions (in order)
    and a set of atoms already switched on above it. If every action's preconditions are in the set
    (and the node is not the root), the node lists them as they are. Otherwise it switches on an
    atom not in the set; its actions split, in order, into those whose preconditions are all in the
    set (the node's "immediate" ones), those requiring the atom (the "true" child) and the rest (the
    "default" child); both children are built, true child first, with the atom added to the set.
    The atom: LAPKT counts precondition occurrences in one table that is never reset, so the counts
    add up over every node built before (depth first, true child before default child: the order
    here); scanning the node's actions in order and each one's preconditions by atom number, the
    switch atom is the last one, not in the set, whose running count exceeded the largest count
    met so far in this node's scan. The applicable actions of a state come out in one fixed total
    order, a depth-first listing of the tree, which is what this returns: a node's immediate ones,
    then its true child's (visited only if the atom holds), then its default child's.

    Measured, not read (the public match-tree source resets the table for each node): LAPKT's
    order was read off by giving it tasks whose actions keep their preconditions (so its tree is
    the same) and each add a fresh atom, from an initial state where all apply, with one action's
    atom as the goal: the nodes its IW(1) kept until the goal is that action's position. This
    rule gives every position of a 15-block Blocksworld (480 actions) and a 15-package Logistics
    task (405 actions); with per-node counts, 241 and 142. Since the table lives as long as the
    process, LAPKT's order for a task also depends on the tasks it solved before in the same
    process (scripts/bench_iw.py runs each LAPKT solve in a fresh child process). Positive
    preconditions only (LAPKT's negated fluents are not modelled)."""
    masks = [a.pre for a in task.actions]
    pres = [tuple(bits(m)) for m in masks]
    count: dict[int, int] = {}  # LAPKT's precondition counts, never reset
    rank = [0] * len(pres)
    pos = 0
    stack = [(list(range(len(pres))), 0, True)]  # (actions, atoms switched on above, is the root)
    while stack:  # pre-order: a node's switch atom is chosen before its children are built
        acts, seen, root = stack.pop()
        if not acts:
            continue
        if not root and all(masks[i] & ~seen == 0 for i in acts):
            for i in acts:
                rank[i] = pos
                pos += 1
            continue
        pivot, top = -1, 0
        for i in acts:
            for b in pres[i]:
                c = count.get(b, 0) + 1
                count[b] = c
                if c > top and not seen >> b & 1:
                    pivot, top = b, c
        now, true, default = [], [], []
        for i in acts:
            if masks[i] & ~seen == 0:
                now.append(i)
            elif pivot >= 0 and masks[i] >> pivot & 1:
                true.append(i)
            else:
                default.append(i)
        for i in now:  # listed first
            rank[i] = pos
            pos += 1
        seen2 = seen | (1 << pivot) if pivot >= 0 else seen
        stack.append((default, seen2, False))
        stack.append((true, seen2, False))
    return rank


class StripsModel:
    """A STRIPS task as a state model; optionally with its goal replaced by ``goal`` (a bitmask).

    ``order``: the successor order, ``"engine"`` (action name, then arguments: the engine's) or
    ``"lapkt"`` (LAPKT's match-tree order, `lapkt_action_order`), for IW node parity with LAPKT."""

    __slots__ = ("task", "goal_mask", "goal_neg", "name", "tables", "order", "rank")

    def __init__(self, task: Task, goal: int | None = None, name: str | None = None, tables: list | None = None,
                 order: str = "engine", rank: list[int] | None = None):
        if order not in ORDERS:
            raise ValueError(f"unknown successor order {order!r} (choose from {', '.join(ORDERS)})")
        self.order = order
        self.rank = rank if rank is not None or order == "engine" else lapkt_action_order(task)
        self.task = task
        self.goal_mask = task.goal if goal is None else goal
        self.goal_neg = task.goal_neg if goal is None else 0
        self.name = name or task.problem_name
        # [per-task successor tables of IW's STRIPS path, or None until IW first builds them];
        # the single-goal models of one model share the holder, so the tables are built once per task
        self.tables = tables if tables is not None else [None]

    def initial_state(self) -> int:
        return self.task.init

    def successors(self, state: int) -> list[tuple[Action, int]]:
        """(action, successor) for the applicable actions, in the model's order (default: the
        engine's, action name then arguments)."""
        out = strips_successors(self.task, state)
        if self.rank is not None:
            rank = self.rank
            out.sort(key=lambda x: rank[x[0].id])
        return out

    def is_goal(self, state: int) -> bool:
        g = self.goal_mask
        return state & g == g and not state & self.goal_neg

    def atoms(self, state: int) -> list[int]:
        return bits(state)

    @staticmethod
    def atom_mask(state: int) -> int:
        return state

    def describe_state(self, state: int) -> str:
        return format_state(self.task, state)

    def describe_atom(self, i: int) -> str:
        return self.task.atoms[i]

    def goal_atoms(self) -> list[int]:
        """The positive goal atoms (ints); empty if the goal is an unsatisfiable static atom."""
        if self.goal_mask >> self.task.n_atoms:
            return []
        return bits(self.goal_mask)

    def single_goal(self, atom: int) -> "StripsModel":
        """The same task with the single goal atom ``atom``."""
        return StripsModel(self.task, goal=1 << atom, name=f"{self.name} {self.task.atoms[atom]}",
                           tables=self.tables, order=self.order, rank=self.rank)



class AtomGoalModel:
    """Any state model with its goal replaced by "atom ``atom`` is true" (single-atom goals).

    Everything else (successors, atoms, optional helpers) is the wrapped model's.
    """

    def __init__(self, model, atom: int, name: str | None = None):
        self.model = model
        self.atom = atom
        self.goal_mask = 1 << atom
        self.goal_is_mask = True
        self.name = name or f"{getattr(model, 'name', 'model')} atom {atom}"
        self.atom_mask = atom_mask_fn(model)
        self.successors = model.successors
        self.atoms = model.atoms

    def initial_state(self):
        return self.model.initial_state()

    def is_goal(self, state) -> bool:
        return bool(self.atom_mask(state) & self.goal_mask)

    def __getattr__(self, name):  # optional helpers: horizon, tree_size, describe_state, ...
        return getattr(self.model, name)
