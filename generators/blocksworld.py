"""Blocksworld instances with initial and goal configurations drawn uniformly at random.

A *configuration* of n labelled blocks (arm empty) is a set of towers, each an ordered list of
blocks from the table up; the order of the towers does not matter. Their number is

    T(0) = 1,   T(n) = sum_{k=1..n} C(n-1, k-1) * k! * T(n-k)

(1, 1, 3, 13, 73, 501, 4051, … — the sum of the Lah numbers L(n, m) = C(n-1, m-1) n!/m!, which
count configurations with exactly m towers). The recursion reads: the tower holding the first
remaining block has some size k; choose its k-1 other blocks (C(n-1, k-1) ways), order the k blocks
(k! ways), and arrange the other n-k blocks in any of T(n-k) ways.

Uniformity. ``sample_configuration`` follows the recursion: it draws k with probability
C(n-1,k-1) k! T(n-k) / T(n) (exactly, with an integer ``randrange(T(n))``, no floating point), a
uniform (k-1)-subset of the other blocks, a uniform order of the k blocks, and recurses on the rest.
A given configuration is produced by exactly one sequence of choices, with probability
[C(n-1,k-1) k! T(n-k)/T(n)] * [1/C(n-1,k-1)] * [1/k!] * [1/T(n-k)] = 1/T(n) by induction on n.
(Tests: chi-square over the 13 configurations of 3 blocks.)

An instance draws the initial and the goal configuration independently and uniformly; the goal is
the set of ``on`` atoms of the goal configuration (PlanBench style: no ``ontable``/``clear`` goals,
arm empty initially, nothing said about the arm at the end). Pairs whose goal already holds (which
includes every goal configuration with all blocks on the table: an empty goal) are rejected, so the
accepted pairs are uniform over the valid ones. The number of blocks is drawn uniformly from the
requested range, per instance.

Counting valid pairs. The ``on`` atoms of a configuration g with m towers hold exactly in the
configurations where each tower of g is a contiguous piece, in order: T(m) of them (treat each tower
as one super-block). So there are sum_{m=1..n-1} L(n, m) * (T(n) - T(m)) valid (initial, goal) pairs
(132 for 3 blocks); asking for more distinct instances fails at once.

Every instance is solvable (any configuration can be reached from any other). Optimal plans have
even length (each block move is pick-up/unstack then put-down/stack) of at most 4(n-1) (put every
block on the table, then build the goal towers).

Object names: ``a`` … ``z``, then ``aa``, ``ab``, … (bijective base 26), so up to 26 blocks the names
are PlanBench's single letters.
"""

from __future__ import annotations

import functools
import math
import random

from widthbench.core.errors import UserError
from widthbench.generators.common import (
    DEFAULT_MAX_FAILED_DRAWS, DEFAULT_TIMEOUT, Candidate, IntRange, check_count, check_length_filter,
    collect, derive_seed, int_range, shuffled,
)
from widthbench.generators.instance import to_instances
from widthbench.planners.strips import ground, load_domain, state_from_atoms

DOMAIN = "blocksworld"
ID_PREFIX = "bw"
DEFAULT_BLOCKS = "4-5"

Configuration = tuple[tuple[str, ...], ...]  # towers bottom-up, towers sorted


def block_names(n: int) -> list[str]:
    """``a`` … ``z``, ``aa``, ``ab``, … ``az``, ``ba`` … (bijective base 26)."""
    out = []
    for i in range(1, n + 1):
        s = ""
        while i:
            i, r = divmod(i - 1, 26)
            s = chr(ord("a") + r) + s
        out.append(s)
    return out


@functools.lru_cache(maxsize=None)
def count_configurations(n: int) -> int:
    """T(n): the number of configurations of n labelled blocks (sum of Lah numbers)."""
    if n == 0:
        return 1
    return sum(_tower_weight(n, k) for k in range(1, n + 1))


def _tower_weight(n: int, k: int) -> int:
    # configurations of n blocks whose first block sits in a tower of exactly k blocks
    return math.comb(n - 1, k - 1) * math.factorial(k) * count_configurations(n - k)


def lah(n: int, m: int) -> int:
    """L(n, m): configurations of n blocks with exactly m towers."""
    if n == 0 or m == 0:
        return int(n == m)
    return math.comb(n - 1, m - 1) * math.factorial(n) // math.factorial(m)


def count_instances(n: int) -> int:
    """Distinct (initial configuration, goal) pairs of n blocks whose goal does not already hold."""
    t = count_configurations(n)
    return sum(lah(n, m) * (t - count_configurations(m)) for m in range(1, n))


def sample_configuration(rng: random.Random, blocks) -> Configuration:
    """A configuration of ``blocks`` drawn uniformly from all T(n) (see the module docstring)."""
    remaining = list(blocks)
    towers = []
    while remaining:
        n = len(remaining)
        r = rng.randrange(count_configurations(n))
        k = 1
        while True:
            w = _tower_weight(n, k)
            if r < w:
                break
            r -= w
            k += 1
        first, rest = remaining[0], remaining[1:]
        companions = shuffled(rng, rest)[: k - 1]
        towers.append(tuple(shuffled(rng, [first] + companions)))
        chosen = set(companions)
        remaining = [b for b in rest if b not in chosen]
    return tuple(sorted(towers))


def all_configurations(blocks) -> list[Configuration]:
    """Every configuration of ``blocks`` (for tests and exhaustive checks; T(n) grows fast)."""
    blocks = list(blocks)
    if not blocks:
        return [()]
    first, rest = blocks[0], blocks[1:]
    out = []
    from itertools import combinations, permutations

    for k in range(1, len(blocks) + 1):
        for comp in combinations(rest, k - 1):
            others = [b for b in rest if b not in comp]
            for order in permutations((first,) + comp):
                for sub in all_configurations(others):
                    out.append(tuple(sorted((tuple(order),) + sub)))
    return out


def state_atoms(config: Configuration) -> list[str]:
    """The initial-state atoms of a configuration with the arm empty, in a fixed order."""
    ontable = sorted(t[0] for t in config)
    on = sorted((upper, lower) for t in config for lower, upper in zip(t, t[1:]))
    clear = sorted(t[-1] for t in config)
    return (["(handempty)"] + [f"(ontable {b})" for b in ontable]
            + [f"(on {x} {y})" for x, y in on] + [f"(clear {b})" for b in clear])


def goal_atoms(config: Configuration) -> list[str]:
    """The ``on`` atoms of a configuration (a PlanBench goal)."""
    return sorted(f"(on {upper} {lower})" for t in config for lower, upper in zip(t, t[1:]))


def sample_instance(seed: int, blocks: int) -> Candidate:
    """The instance drawn from ``seed`` with ``blocks`` blocks (a manifest row's seed and parameters)."""
    rng = random.Random(seed)
    names = block_names(blocks)
    init = sample_configuration(rng, names)
    goal = sample_configuration(rng, names)
    return Candidate({"blocks": blocks}, seed, tuple(names), tuple(state_atoms(init)), tuple(goal_atoms(goal)))


def ground_blocks(dom, n: int):
    """The grounded task of n blocks. Every configuration with the arm empty relaxed-reaches every
    atom, so atoms and actions are the same for all instances of n blocks: ground once, then swap
    initial state and goal with ``with_init_and_goal`` (tests check it equals a fresh ``ground``)."""
    names = block_names(n)
    tower = (tuple(names),)
    return ground(dom, names, state_atoms(tower), [], name=f"{ID_PREFIX}-{n}-blocks")


def with_init_and_goal(task, init, goal):
    from dataclasses import replace


    return replace(task, init=state_from_atoms(task, init), goal=state_from_atoms(task, goal))


def generate(count: int, seed: int, blocks=DEFAULT_BLOCKS, min_plan_length: int | None = None,
             max_plan_length: int | None = None, width: int | None = None, optimal: bool = True,
             planner: str = "auto",
             timeout: float = DEFAULT_TIMEOUT, max_failed_draws: int = DEFAULT_MAX_FAILED_DRAWS,
             progress=None) -> list:
    """``count`` distinct Blocksworld instances (see the module docstring), as ``Instance`` objects.

    ``optimal`` computes an optimal plan for every instance; a plan-length filter always does.
    ``progress`` (e.g. ``tqdm.update``) is called with 1 per accepted instance.
    """
    count = check_count(count)
    rng_blocks = int_range(blocks, "--blocks", minimum=2)
    lo, hi = check_length_filter(min_plan_length, max_plan_length)
    _check_lengths_possible(rng_blocks, lo, hi)

    dom = load_domain(DOMAIN)
    grounded: dict[int, object] = {}

    def draw(master: random.Random) -> Candidate:
        n = rng_blocks.draw(master)
        return sample_instance(derive_seed(master), n)

    def to_task(c: Candidate):
        n = c.params["blocks"]
        if n not in grounded:
            grounded[n] = ground_blocks(dom, n)
        return with_init_and_goal(grounded[n], c.init, c.goal)

    capacity = sum(count_instances(n) for n in rng_blocks.values())
    accepted = collect(
        what=f"Blocksworld instances with {_plural(rng_blocks, 'block')}", count=count, seed=seed,
        draw=draw, to_task=to_task, capacity=capacity, min_plan_length=lo, max_plan_length=hi,
        width=width,
        optimal=optimal, planner=planner, timeout=timeout, max_failed_draws=max_failed_draws,
        progress=progress)
    return to_instances(ID_PREFIX, DOMAIN, accepted)


def _plural(r: IntRange, word: str) -> str:
    return f"{r} {word}" + ("" if r.lo == r.hi == 1 else "s")


def _check_lengths_possible(blocks: IntRange, lo: int | None, hi: int | None) -> None:
    longest = 4 * (blocks.hi - 1)
    a = 2 if lo is None else max(lo, 2)
    b = longest if hi is None else min(hi, longest)
    if a + (a % 2) > b:
        raise UserError(f"no Blocksworld instance with {_plural(blocks, 'block')} has an optimal plan length "
                        f"in [{'' if lo is None else lo}, {'' if hi is None else hi}]: optimal plans have "
                        f"even length between 2 and {longest} (4 x (blocks - 1))")
