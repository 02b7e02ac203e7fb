"""Novelty of a state: the size of the smallest tuple of atoms it makes true for the first time.

Lipovetzky & Geffner (ECAI 2012): given the states generated so far, the novelty of a new state s
is the size of the smallest set of atoms true in s that was not true together in any earlier state.
IW(k) prunes a newly generated state whose novelty exceeds k.

`NoveltyTable(k)` records every tuple of at most k atoms seen so far and answers novelty queries
up to k: `novelty(atoms)` returns 1..k, or k + 1 meaning "greater than k" (also for a state that
makes no tuple true for the first time: a duplicate, or a state whose atoms are all old).

Incremental test (the speed trick of width-based planners): when the parent of s was added to the
table, every tuple of the parent's atoms was recorded, so only tuples containing an atom that is new
relative to the parent can be new. Pass ``parent_atoms`` (a state already added to this table) to
test only those; without it every tuple is tested.

Atoms are non-negative ints. A set of atoms can be given as an iterable of ints or as an int
bitmask (bit i set = atom i true); the ``*_mask`` methods take bitmasks and are what IW calls.

Representation (flat, no tuple objects for k <= 2):
- size 1: one bitmask of the atoms seen;
- size 2: for each atom p, a bitmask of the atoms q such that {p, q} has been seen (symmetric);
- size m >= 3: a dict from each (m-1)-tuple, as the bitmask of its atoms, to a bitmask of the atoms
  that complete it to a seen m-tuple (recorded under every (m-1)-subset, so any of them can answer).

`ReferenceNoveltyTable` enumerates every tuple explicitly (plain sets of frozensets); tests check
the incremental table against it.
"""

from __future__ import annotations

from itertools import combinations

from widthbench.planners.strips import bit_values, bits


def as_mask(atoms) -> int:
    """A bitmask from an int bitmask or an iterable of atom ints."""
    if atoms is None:
        return 0
    if isinstance(atoms, int):
        return atoms
    m = 0
    for a in atoms:
        m |= 1 << a
    return m


class NoveltyTable:
    """Tuples of at most ``k`` atoms seen so far; novelty of new states relative to them.

    ``novelty(atoms, parent_atoms=None)`` -> 1..k, or k + 1 for "greater than k";
    ``add(atoms, parent_atoms=None)`` records the tuples of a state (call it for kept states);
    ``novelty_and_add`` does both in one pass when the state is to be kept if novel.
    A table for k = 0 answers 1 (> 0) for every state: IW(0) prunes every successor.
    """

    __slots__ = ("k", "_seen1", "_seen2", "_seen_m")

    def __init__(self, k: int):
        if k < 0:
            raise ValueError(f"novelty bound must be >= 0, got {k}")
        self.k = k
        self._seen1 = 0
        self._seen2: dict[int, int] = {}
        # _seen_m[m - 3]: for tuples of size m >= 3, (m-1)-tuple as a bitmask -> mask of completing atoms
        self._seen_m: list[dict[int, int]] = [{} for _ in range(3, k + 1)]

    # -- friendly API ---------------------------------------------------------------------
    def novelty(self, atoms, parent_atoms=None) -> int:
        """Novelty of a state with these atoms (1..k, or k + 1 meaning > k)."""
        return self.novelty_mask(as_mask(atoms), as_mask(parent_atoms))

    def add(self, atoms, parent_atoms=None) -> None:
        """Record every tuple (size <= k) of the state; with ``parent_atoms`` only tuples that
        contain an atom new relative to that parent (the others are recorded already)."""
        self.add_mask(as_mask(atoms), as_mask(parent_atoms))

    def is_novel(self, atoms, parent_atoms=None) -> bool:
        return self.novelty(atoms, parent_atoms) <= self.k

    # -- bitmask API (used by IW) ---------------------------------------------------------
    def novelty_mask(self, mask: int, parent_mask: int = 0) -> int:
        k = self.k
        new = mask & ~parent_mask
        if k == 0 or not new:
            return k + 1
        if new & ~self._seen1:
            return 1
        if k == 1:
            return 2
        seen2 = self._seen2
        n = new
        while n:
            low = n & -n
            if mask & ~(seen2.get(low.bit_length() - 1, 0) | low):
                return 2
            n ^= low
        if k == 2:
            return 3
        atoms = bit_values(mask)
        fresh = [b for b in atoms if b & new]
        for m in range(3, k + 1):
            if len(atoms) < m:
                break
            get = self._seen_m[m - 3].get
            done = 0  # a tuple is tested from its first new atom: the others skip the earlier ones
            for p in fresh:
                done |= p
                others = [b for b in atoms if not b & done]
                if m == 3:
                    for q in others:
                        key = p | q
                        if mask & ~(get(key, 0) | key):
                            return 3
                    continue
                for rest in combinations(others, m - 2):
                    key = p + sum(rest)  # distinct bits: the sum is the union
                    if mask & ~(get(key, 0) | key):
                        return m
        return k + 1

    def add_mask(self, mask: int, parent_mask: int = 0) -> None:
        k = self.k
        new = mask & ~parent_mask
        if k == 0 or not new:
            return
        self._seen1 |= new
        if k == 1:
            return
        # pairs {p, q} with p new: record q in p's mask and p in q's mask
        _add_to_each(self._seen2, new, mask)
        _add_to_each(self._seen2, mask & ~new, new)
        if k == 2:
            return
        atoms = bit_values(mask)
        for m in range(3, k + 1):
            if len(atoms) < m:
                break
            table = self._seen_m[m - 3]
            get = table.get
            # a key made only of old atoms gains completions only among the new atoms
            if m == 3:
                for i, x in enumerate(atoms):
                    for y in atoms[i + 1:]:
                        key = x | y
                        table[key] = get(key, 0) | (mask if key & new else new)
                continue
            for combo in combinations(atoms, m - 1):
                key = sum(combo)
                table[key] = get(key, 0) | (mask if key & new else new)

    def novelty_and_add(self, mask: int, parent_mask: int = 0) -> int:
        """Novelty of the state, and record its tuples if that novelty is <= k."""
        nov = self.novelty_mask(mask, parent_mask)
        if nov <= self.k:
            self.add_mask(mask, parent_mask)
        return nov


def _add_to_each(seen2: dict, atoms: int, partners: int) -> None:
    """Add ``partners`` to the pair mask of every atom of ``atoms``."""
    get = seen2.get
    while atoms:
        low = atoms & -atoms
        i = low.bit_length() - 1
        seen2[i] = get(i, 0) | partners
        atoms ^= low


class ReferenceNoveltyTable:
    """Plain full tuple enumeration (tests only): every tuple of size <= k is a frozenset in a set.

    Same API as `NoveltyTable`; ``parent_atoms`` is accepted and ignored, so every tuple of the
    state is tested. Exponentially slower, obviously correct.
    """

    def __init__(self, k: int):
        self.k = k
        self.seen: set[frozenset[int]] = set()

    def _tuples(self, mask: int):
        atoms = bits(mask)
        for m in range(1, self.k + 1):
            for t in combinations(atoms, m):
                yield m, frozenset(t)

    def novelty_mask(self, mask: int, parent_mask: int = 0) -> int:
        for m, t in self._tuples(mask):
            if t not in self.seen:
                return m
        return self.k + 1

    def add_mask(self, mask: int, parent_mask: int = 0) -> None:
        for _, t in self._tuples(mask):
            self.seen.add(t)

    def novelty_and_add(self, mask: int, parent_mask: int = 0) -> int:
        nov = self.novelty_mask(mask)
        if nov <= self.k:
            self.add_mask(mask)
        return nov

    def novelty(self, atoms, parent_atoms=None) -> int:
        return self.novelty_mask(as_mask(atoms))

    def add(self, atoms, parent_atoms=None) -> None:
        self.add_mask(as_mask(atoms))
