"""Projections of a task onto a few atoms: sound proofs that a goal implies a literal.

A projection keeps only the atoms of a pattern P and drops every precondition and effect on other
atoms. Every transition of the task projects to a transition of the projection, so a projected state
that the projection cannot reach is not the projection of any reachable state: if no reachable
projected state satisfies the goal restricted to P and falsifies the literal, then no reachable state
of the task does (the goal restricted to P is weaker than the goal). The converse does not hold,
so a failed proof proves nothing: `implied` is sound and incomplete. The equivalence judge
(`planners.equivalence`) uses it when a state space is too large to enumerate, to show that two goals
differing by literals admit the same reachable states (a robot that can never move stays where it
is; a colour that can never be picked up again is held in every state where a tile of that colour
has been painted since).

The projected successor is the engine's, ``(s & ~del) | add`` on the pattern's bits, so an atom an
action both deletes and adds stays true, as in `strips.successor`.
"""

from __future__ import annotations

from collections import deque
from itertools import combinations

from widthbench.planners.strips import Task, bits

# Patterns tried per literal, at most: the literal alone, with one, then with two other atoms.
MAX_PATTERNS = 3000


def implied(task: Task, goal_pos: int, goal_neg: int, atom: int, positive: bool = True) -> bool:
    """True when every reachable state of ``task`` in which the atoms of ``goal_pos`` hold and those
    of ``goal_neg`` do not has ``atom`` true (``positive``) or false, proved on a projection onto
    ``atom`` and at most two atoms among the goal's and those the actions changing ``atom`` test.
    False means "not proved", never "refuted"."""
    related = bits((goal_pos | goal_neg | _causes(task, atom)) & ~(1 << atom))
    tried = 0
    for size in range(0, 3):
        for others in combinations(related, size):
            if tried >= MAX_PATTERNS:
                return False
            tried += 1
            pattern = 1 << atom
            for i in others:
                pattern |= 1 << i
            if not _reaches(task, pattern, goal_pos & pattern, goal_neg & pattern, atom, positive):
                return True
    return False


def _causes(task: Task, atom: int) -> int:
    """The atoms the actions that add or delete ``atom`` test (positively or negatively)."""
    out = 0
    for a in _touching(task)[atom]:
        out |= a.pre | a.neg_pre
    return out


def _touching(task: Task) -> tuple:
    """Per atom, the actions whose add or delete list holds it (a view the task keeps)."""
    got = task.views.get("projection.touching")
    if got is None:
        lists: list[list] = [[] for _ in range(task.n_atoms)]
        for a in task.actions:
            for i in bits((a.add | a.dele) & ((1 << task.n_atoms) - 1)):
                lists[i].append(a)
        got = task.views["projection.touching"] = tuple(tuple(x) for x in lists)
    return got


def _reaches(task: Task, pattern: int, gpos: int, gneg: int, atom: int, positive: bool) -> bool:
    """Whether the projection onto ``pattern`` reaches a state with ``gpos`` true, ``gneg`` false and
    the literal false."""
    touching = _touching(task)
    moves = set()
    for i in bits(pattern):
        for a in touching[i]:
            add, dele = a.add & pattern, a.dele & pattern
            moves.add((a.pre & pattern, a.neg_pre & pattern, add, dele))
    bit = 1 << atom
    start = task.init & pattern
    seen = {start}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        if s & gpos == gpos and not s & gneg and bool(s & bit) != positive:
            return True
        for pre, neg, add, dele in moves:
            if s & pre == pre and not s & neg:
                t = (s & ~dele) | add
                if t not in seen:
                    seen.add(t)
                    queue.append(t)
    return False
