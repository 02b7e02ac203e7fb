"""Small exact computations the items and the simulator share: novelty against a list of states,
random walks, no-op actions, and the inapplicable actions a model plausibly confuses.

Ground truth proper (h*, optimal next actions) is `widthbench.planners.truth.GroundTruth`; IW runs
are `widthbench.planners.iw`.
"""

from __future__ import annotations

import itertools
import random

from widthbench.planners import strips


def novelty_of(state: int, previous, max_size: int | None = None) -> int | None:
    """The size of the smallest set of atoms true in ``state`` that were never all true together in
    one of ``previous`` (int bitmasks); None if no such set has at most ``max_size`` atoms (default:
    any size; None then means ``state`` is a subset of a previous state, e.g. a repeat).

    With ``max_size=k`` this is IW(k)'s test: a state generated after ``previous`` is kept by IW(k)
    iff it is not one of them and its novelty is at most k (pruned states add no tuple of size <= k,
    so testing against every generated state equals testing against IW's table).
    """
    prev = list(previous)
    atoms = [1 << i for i in range(state.bit_length()) if state >> i & 1]
    top = len(atoms) if max_size is None else min(max_size, len(atoms))
    for size in range(1, top + 1):
        for combo in itertools.combinations(atoms, size):
            m = sum(combo)
            if not any(p & m == m for p in prev):
                return size
    return None


def noop_actions(task: strips.Task, state: int) -> list[str]:
    """Applicable actions whose successor is ``state`` itself (a truck driving to where it is)."""
    return [str(a) for a in strips.applicable_actions(task, state) if strips.successor(state, a) == state]


def random_walk(task: strips.Task, rng: random.Random, length: int, avoid_goal: bool = True,
                skip_noops: bool = True) -> tuple[int, tuple[str, ...]]:
    """(final state, actions) of a random walk of at most ``length`` steps from the initial state.

    Each step takes a uniformly random applicable action, never one leading into a goal state
    (``avoid_goal``) or leaving the state unchanged (``skip_noops``); the walk stops early when no
    action qualifies.
    """
    s = task.init
    steps: list[str] = []
    for _ in range(length):
        options = []
        for a in strips.applicable_actions(task, s):
            t = strips.successor(s, a)
            if (skip_noops and t == s) or (avoid_goal and strips.is_goal(task, t)):
                continue
            options.append((a, t))
        if not options:
            break
        a, s = rng.choice(options)
        steps.append(str(a))
    return s, tuple(steps)


def confusions(task: strips.Task, state: int) -> list[str]:
    """Inapplicable actions that mirror an applicable one: pick-up x for unstack x y, unstack x y for
    pick-up x, put-down x for stack x y, stack x y for put-down x (Blocksworld's pick-up/unstack
    confusion, seed 000's main failure). Empty for domains without these actions."""
    applicable = [str(a) for a in strips.applicable_actions(task, state)]
    out: list[str] = []
    for text in applicable:
        name, args = strips.parse_atom_text(text)
        if name == "unstack":
            out.append(f"(pick-up {args[0]})")
        elif name == "pick-up":
            out += [f"(unstack {args[0]} {o})" for o in task.object_names if o != args[0]]
        elif name == "stack":
            out.append(f"(put-down {args[0]})")
        elif name == "put-down":
            out += [f"(stack {args[0]} {o})" for o in task.object_names if o != args[0]]
    return [c for c in dict.fromkeys(out)
            if c in task.action_index and not strips.is_applicable(state, task.action_index[c])]


def inapplicable_action(task: strips.Task, state: int, rng: random.Random) -> str | None:
    """A confusion if there is one, else any grounded action not applicable in ``state``."""
    conf = confusions(task, state)
    if conf:
        return rng.choice(conf)
    rest = [str(a) for a in task.actions if not strips.is_applicable(state, a)]
    return rng.choice(rest) if rest else None
