"""The Game of 24 as a state model (seed paper 000's formalisation), and its one exact solver.

State: the multiset of remaining numbers (exact rationals) plus their count. A `Game24State` holds a
tuple of ``(numerator, denominator)`` pairs in lowest terms (denominator > 0), sorted as pairs (for
integers that is ascending value); its count is ``len(state)``; ``state.fractions()`` gives the
numbers as `fractions.Fraction`. States are interned by a `StateSpace` (within one space, equal
multisets are one object, so states hash and compare by identity), which also memoises successors
and state-tree sizes; the models of all 1362 puzzles can share one space.

Actions combine two remaining numbers a <= b, chosen as values (a pair of values that occurs twice
in the multiset is one choice), with + - * /: ``a + b``, ``b - a``, ``a - b``, ``a * b``, ``b / a``,
``a / b``, in that order. Addition and multiplication are commutative, so each is one action;
subtraction and division are taken in both orders (once when a == b); a division by zero is never
generated. Pairs come in the order of the state tuple (i < j). Two different actions may give the
same successor (2 + 2 and 2 * 2): they stay two children in the state tree, and breadth-first
search sees the second as a duplicate. Labels are `Step` objects; ``str(step)`` reads like a Tree of
Thoughts step, ``"4 + 8 = 12 (left: 6 12)"``.

Goal: the multiset {24} with count 1.

Atoms (the features novelty counts), chosen so that different multisets have different atom sets:
``(v, i)`` = "the value v occurs at least i times" for i = 1..multiplicity of v, and ``#r`` = "r
numbers remain". {4, 4, 6} has the atoms (4, 1), (4, 2), (6, 1) and #3. Atom ints are interned per
model in order of first appearance, so they stay small and dense.

Solving: `StateSpace.solvable(state)` (memoised per state in the space) and `StateSpace.solution`
(the first solution in successor order, depth first) are the one Game of 24 solver; the puzzles
(24.csv) are `widthbench.generators.game24`, the LLM search problem `searches.game24`.
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd

from widthbench.core.errors import UserError
from widthbench.planners.strips import bits

TARGET = 24

Number = tuple[int, int]


# ---------------------------------------------------------------------------------------------
# Exact arithmetic on (numerator, denominator) pairs


def _norm(n: int, d: int) -> Number:
    if d < 0:
        n, d = -n, -d
    g = gcd(n, d)
    return (n // g, d // g) if g > 1 else (n, d)


def _value(x: Number):
    return x[0] / x[1]


def number_text(x: Number) -> str:
    return str(x[0]) if x[1] == 1 else f"{x[0]}/{x[1]}"


def operand_text(x: Number) -> str:
    return number_text(x) if x[1] == 1 and x[0] >= 0 else f"({number_text(x)})"


def make_state(numbers) -> tuple[Number, ...]:
    """A state from ints, Fractions or (numerator, denominator) pairs."""
    out = []
    for v in numbers:
        if isinstance(v, tuple):
            out.append(_norm(*v))
        else:
            f = Fraction(v)
            out.append((f.numerator, f.denominator))
    return tuple(sorted(out))


def state_numbers(state: tuple[Number, ...]) -> tuple[Fraction, ...]:
    """The numbers of a state as Fractions, ascending by value."""
    return tuple(Fraction(n, d) for n, d in sorted(state, key=_value))


def state_text(state: tuple[Number, ...]) -> str:
    """``"4 6 8"`` (ascending by value); the empty state is ``"(none)"``."""
    return " ".join(number_text(x) for x in sorted(state, key=_value)) if state else "(none)"


class Step:
    """An action label: ``x op y`` gives ``result``, leaving the numbers of ``child``.

    ``str(step)`` reads like a Tree of Thoughts step: ``"4 + 8 = 12 (left: 6 12)"``.
    """

    __slots__ = ("x", "op", "y", "result", "child")

    def __init__(self, x: Number, op: str, y: Number, result: Number, child: tuple[Number, ...]):
        self.x, self.op, self.y, self.result, self.child = x, op, y, result, child

    def __str__(self) -> str:
        return (f"{operand_text(self.x)} {self.op} {operand_text(self.y)} = {number_text(self.result)} "
                f"(left: {state_text(self.child)})")

    __repr__ = __str__

    def __eq__(self, other) -> bool:
        return isinstance(other, Step) and (self.x, self.op, self.y, self.child) == (
            other.x, other.op, other.y, other.child)

    def __hash__(self) -> int:
        return hash((self.x, self.op, self.y, self.child))


def _combine(a: Number, b: Number) -> list[tuple[Number, str, Number, Number]]:
    """The actions on the pair a <= b in the fixed order: (x, op, y, x op y)."""
    an, ad = a
    bn, bd = b
    if ad == 1 and bd == 1:  # integers: the common case, no gcd needed except for division
        out = [(a, "+", b, (an + bn, 1)), (b, "-", a, (bn - an, 1))]
        same = an == bn
        if not same:
            out.append((a, "-", b, (an - bn, 1)))
        out.append((a, "*", b, (an * bn, 1)))
        if an != 0:
            out.append((b, "/", a, _norm(bn, an)))
        if bn != 0 and not same:
            out.append((a, "/", b, _norm(an, bn)))
        return out
    out = [(a, "+", b, _norm(an * bd + bn * ad, ad * bd)), (b, "-", a, _norm(bn * ad - an * bd, ad * bd))]
    same = a == b
    if not same:
        out.append((a, "-", b, _norm(an * bd - bn * ad, ad * bd)))
    out.append((a, "*", b, _norm(an * bn, ad * bd)))
    if an != 0:
        out.append((b, "/", a, _norm(bn * ad, bd * an)))
    if bn != 0 and not same:
        out.append((a, "/", b, _norm(an * bd, ad * bn)))
    return out


def _successor_numbers(numbers: tuple[Number, ...]) -> list[tuple[Number, str, Number, Number, tuple]]:
    """(x, op, y, result, child numbers) for every action, in the fixed order."""
    out = []
    n = len(numbers)
    done = set()
    for i in range(n):
        for j in range(i + 1, n):
            a, b = numbers[i], numbers[j]
            if a[0] * b[1] > b[0] * a[1]:  # a <= b by value
                a, b = b, a
            if (a, b) in done:
                continue
            done.add((a, b))
            rest = numbers[:i] + numbers[i + 1:j] + numbers[j + 1:]
            for x, op, y, v in _combine(a, b):
                out.append((x, op, y, v, tuple(sorted(rest + (v,)))))
    return out


class Game24State:
    """A multiset of exact rationals; the count is ``len(state)``.

    States are interned by a `StateSpace`: within one space, equal multisets are the same object,
    so states hash and compare by identity (fast). ``numbers`` holds (numerator, denominator) pairs
    in canonical order; `fractions()` gives them as Fractions, ascending.
    """

    __slots__ = ("numbers", "atom_ids", "succ", "tree")

    def __init__(self, numbers: tuple[Number, ...], atom_ids: tuple[int, ...]):
        self.numbers = numbers
        self.atom_ids = atom_ids  # the space's ids of this state's atoms (see StateSpace.atom_key)
        self.succ = None  # list of (Step, Game24State), filled by the space on first use
        self.tree = 0  # state-tree size below and including this state, 0 = not computed

    def __len__(self) -> int:
        return len(self.numbers)

    def fractions(self) -> tuple[Fraction, ...]:
        return state_numbers(self.numbers)

    def __str__(self) -> str:
        return state_text(self.numbers)

    def __repr__(self) -> str:
        return f"Game24State({state_text(self.numbers)})"


class StateSpace:
    """Interns Game of 24 states and memoises their successors and state-tree sizes.

    A state's successors do not depend on the puzzle, so the models of many puzzles can share one
    space (one per process or batch; it only grows).
    """

    __slots__ = ("states", "_key_ids", "_keys", "_solvable")

    def __init__(self):
        self.states: dict[tuple[Number, ...], Game24State] = {}
        self._key_ids: dict[tuple, int] = {}
        self._keys: list[tuple] = []
        self._solvable: dict[tuple[Game24State, Game24State], bool] = {}  # (state, goal) -> solvable

    def state(self, numbers) -> Game24State:
        """The interned state of a multiset (ints, Fractions or (numerator, denominator) pairs)."""
        key = numbers if _canonical(numbers) else make_state(numbers)
        st = self.states.get(key)
        if st is None:
            st = self.states[key] = self._new(key)
        return st

    def _new(self, numbers: tuple[Number, ...]) -> Game24State:
        # the atoms: (value, i) = "value occurs at least i times", ("#", count)
        ids = self._key_ids
        out = []
        prev, i = None, 0
        for x in numbers:
            i = i + 1 if x == prev else 1
            prev = x
            a = ids.get((x, i))
            if a is None:
                a = ids[(x, i)] = len(self._keys)
                self._keys.append((x, i))
            out.append(a)
        c = ("#", len(numbers))
        a = ids.get(c)
        if a is None:
            a = ids[c] = len(self._keys)
            self._keys.append(c)
        out.append(a)
        return Game24State(numbers, tuple(out))

    def atom_key(self, atom_id: int) -> tuple:
        """(value, i) or ("#", count) for one of the space's atom ids."""
        return self._keys[atom_id]

    def successors(self, state: Game24State) -> list[tuple[Step, Game24State]]:
        r = state.succ
        if r is None:
            states = self.states
            r = []
            for x, op, y, v, nums in _successor_numbers(state.numbers):
                child = states.get(nums)
                if child is None:
                    child = states[nums] = self._new(nums)
                r.append((Step(x, op, y, v, nums), child))
            state.succ = r
        return r

    def tree_size(self, state: Game24State) -> int:
        """Nodes of the full state tree below and including ``state`` (no duplicate detection)."""
        t = state.tree
        if not t:
            t = 1 + sum(self.tree_size(c) for _, c in self.successors(state))
            state.tree = t
        return t

    def solvable(self, state: Game24State, goal: Game24State | None = None) -> bool:
        """Whether some sequence of actions turns ``state`` into ``goal`` (default: the multiset
        {24}); memoised in the space."""
        goal = goal if goal is not None else self.state(((TARGET, 1),))
        memo = self._solvable
        known = memo.get((state, goal))
        if known is None:
            known = state is goal or (len(state) > 1 and any(
                self.solvable(c, goal) for _, c in self.successors(state)))
            memo[(state, goal)] = known
        return known

    def solution(self, state: Game24State, goal: Game24State | None = None) -> tuple[Step, ...] | None:
        """The first solution from ``state`` in successor order (depth first), or None."""
        goal = goal if goal is not None else self.state(((TARGET, 1),))
        if not self.solvable(state, goal):
            return None
        steps = []
        while state is not goal:
            step, state = next((a, c) for a, c in self.successors(state) if self.solvable(c, goal))
            steps.append(step)
        return tuple(steps)

    def reachable(self, state: Game24State) -> set[Game24State]:
        """Every state reachable from ``state`` (itself included)."""
        seen = {state}
        stack = [state]
        add, push, pop = seen.add, stack.append, stack.pop
        while stack:
            s = pop()
            succ = s.succ if s.succ is not None else self.successors(s)
            for _, c in succ:
                if c not in seen:
                    add(c)
                    if len(c.numbers) > 1:  # a single number has no successors
                        push(c)
        return seen


def _canonical(numbers) -> bool:
    return (isinstance(numbers, tuple) and all(isinstance(x, tuple) and len(x) == 2 for x in numbers)
            and list(numbers) == sorted(numbers) and all(x == _norm(*x) for x in numbers))


class Game24Model:
    """One puzzle as a state model (see the module docstring for states, actions, goal, atoms)."""

    # goal_is_mask: {target} with count 1 is exactly the state with atoms (target, 1) and #1
    goal_is_mask = True
    __slots__ = ("target", "name", "space", "horizon", "root", "goal", "_atom_bits", "_atom_keys",
                 "_masks", "goal_mask")

    def __init__(self, numbers, target: int = TARGET, name: str | None = None,
                 space: StateSpace | None = None):
        if not numbers:
            raise UserError("a Game of 24 puzzle needs at least one number")
        self.space = space if space is not None else StateSpace()
        self.root = self.space.state(numbers)
        self.goal = self.space.state(((target, 1),))
        self.target = target
        self.name = name or str(self.root)
        self.horizon = len(self.root) - 1
        self._atom_bits: dict[int, int] = {}  # space atom id -> 1 << (this model's atom int)
        self._atom_keys: list[int] = []  # this model's atom int -> space atom id
        self._masks: dict[Game24State, int] = {}
        self.goal_mask = self.atom_mask(self.goal)

    # -- state model protocol -------------------------------------------------------------
    def initial_state(self) -> Game24State:
        return self.root

    def successors(self, state: Game24State) -> list[tuple[Step, Game24State]]:
        r = state.succ
        return r if r is not None else self.space.successors(state)

    def is_goal(self, state: Game24State) -> bool:
        return state is self.goal

    def atoms(self, state: Game24State) -> list[int]:
        return bits(self.atom_mask(state))

    def atom_mask(self, state: Game24State) -> int:
        m = self._masks.get(state)
        if m is None:
            # the space's atom ids are global (large); the model renumbers them densely (0, 1, ...)
            m = 0
            bit = self._atom_bits
            for g in state.atom_ids:
                b = bit.get(g)
                if b is None:
                    b = bit[g] = 1 << len(self._atom_keys)
                    self._atom_keys.append(g)
                m |= b
            self._masks[state] = m
        return m

    # -- helpers --------------------------------------------------------------------------
    def state(self, numbers) -> Game24State:
        """The state (of this model's space) holding these numbers."""
        return self.space.state(numbers)

    def describe_state(self, state: Game24State) -> str:
        return f"{state} ({len(state)} left)"

    def describe_atom(self, i: int) -> str:
        key = self.space.atom_key(self._atom_keys[i])
        if key[0] == "#":
            return f"count={key[1]}"
        x, n = key
        return number_text(x) + (f" (copy {n})" if n > 1 else "")

    def tree_size(self) -> int:
        """Nodes of the full state tree from the initial state (finite: depth <= count - 1)."""
        return self.space.tree_size(self.root)

    def reachable_count(self) -> int:
        return len(self.space.reachable(self.root))

    def solution(self) -> tuple[Step, ...] | None:
        """The first solution (action labels) in successor order, or None if the puzzle has none."""
        return self.space.solution(self.root, self.goal)
