"""What the paper's Table 1 differences would need: docs/compare.md, "The paper's Table 1".

    python scripts/compare_table1.py            # prints the markdown table of docs/compare.md

Table 1 gives k/50 per cell and not which items each run got right, so the discordance (the items
exactly one of the two runs got right) is unknown; every discordance the marginals allow is
possible. This prints, for a few of them, what `widthbench compare` would report: the 95% paired
bootstrap interval, the exact McNemar p, the smallest difference 50 items detect with 80% power at
that discordance, and the items needed for the observed difference (for a tie: for 10 points).
"""

from __future__ import annotations

from widthbench.subtasks.results.comparison import ComparedCell, CellOutcomes, Outcome, compare_cells

PAIRS = ((22, 23), (12, 12), (15, 34))
ITEMS = 50
SEED = 0


def outcomes(a_right: int, b_right: int, b10: int) -> CellOutcomes:
    """50 items with b10 right only in A, b01 = b10 + (b_right − a_right) right only in B."""
    b01 = b10 + b_right - a_right
    both = a_right - b10
    neither = ITEMS - both - b10 - b01
    if min(b01, both, neither) < 0:
        raise ValueError(f"{a_right}/{ITEMS} vs {b_right}/{ITEMS} cannot have {b10} items right only in A")
    a = [1] * both + [1] * b10 + [0] * b01 + [0] * neither
    b = [1] * both + [0] * b10 + [1] * b01 + [0] * neither
    ids = [f"item{k:02d}" for k in range(ITEMS)]
    cell = ComparedCell("table1", "pddl", "off", "off", "blocksworld", "exact")
    return CellOutcomes(cell, tuple(Outcome(i, x, 1) for i, x in zip(ids, a)),
                        tuple(Outcome(i, x, 1) for i, x in zip(ids, b)))


def scenarios(a_right: int, b_right: int) -> list[tuple[str, int]]:
    """(name, b10): the fewest discordant items, about 10, 20 and 30% discordant, the count
    expected if the runs' answers were independent of each other, and the most."""
    gap = b_right - a_right
    most = min(a_right, ITEMS - b_right)  # b10 is bounded by A's right and B's wrong items
    pa, pb = a_right / ITEMS, b_right / ITEMS
    independent = round((pa * (1 - pb) + pb * (1 - pa)) * ITEMS)
    out = [("fewest", 0)]
    for name, disc in (("10%", 5), ("20%", 10), ("30%", 15), ("independent", independent)):
        b10 = max(0, round((disc - gap) / 2))
        if 0 < b10 <= most:
            out.append((f"{name} ({2 * b10 + gap})", b10))
    out.append(("most", most))
    seen, unique = set(), []
    for name, b10 in out:
        if b10 not in seen:
            seen.add(b10)
            unique.append((name, b10))
    return unique


def main() -> None:
    print("| A | B | discordant (b01/b10) | diff [95% CI] | McNemar p | detectable at 50 items | items needed |")
    print("|---|---|---|---|---|---|---|")
    for a_right, b_right in PAIRS:
        target = None if a_right != b_right else 0.1
        for name, b10 in scenarios(a_right, b_right):
            [row] = compare_cells([outcomes(a_right, b_right, b10)], seed=SEED, target=target)
            b01, b10 = row.discordant
            detect = "none" if row.detectable is None else f"±{100 * row.detectable:.1f} pt"
            need = "–" if row.needed is None else f"{row.needed:,} (for ±{100 * row.target:.0f} pt)"
            print(f"| {a_right}/50 | {b_right}/50 | {name}: {b01}/{b10} | {100 * row.diff:+.0f} "
                  f"[{100 * row.ci_low:+.0f}, {100 * row.ci_high:+.0f}] pt | {row.p:.3g} | {detect} | {need} |")


if __name__ == "__main__":
    main()
