"""How well the comparison statistics hold their promises, by simulation: docs/compare.md, "Calibration".

    python scripts/compare_calibration.py [--trials 400] [--seed 0]

Prints, each over --trials seeded simulated data sets:
1. the paired bootstrap's 95% interval: how often it covers the true B − A, for 50, 100 and 200
   items and a few mixes of (both right, only A right, only B right);
2. under the null (two runs of one noisy model on the same items, item difficulties shared):
   how often McNemar's exact p and the sign-flip test on 5 samples per item fall below 0.05;
3. the clustered interval of a cell's accuracy with 5 samples per item, against Wilson's interval
   on all the samples as if they were independent;
4. the item counts for 80% power: the exact McNemar count against Connor's normal approximation.
"""

from __future__ import annotations

import argparse
import math
from statistics import NormalDist

import numpy as np

from widthbench.subtasks.results.paired import (EXACT_ITEMS, items_needed, mcnemar_exact, mcnemar_power, paired_bootstrap,
                                        swap_test)
from widthbench.subtasks.results.stats import clustered_wilson, wilson

MIXES = ((0.4, 0.1, 0.2), (0.3, 0.05, 0.15), (0.5, 0.2, 0.2), (0.2, 0.02, 0.06), (0.6, 0.15, 0.1))


def bootstrap_coverage(trials: int, seed: int) -> None:
    print("1. Paired bootstrap, 95% interval: share of data sets whose interval covers the true B - A")
    print("| items | " + " | ".join(f"{p11}/{p10}/{p01}" for p11, p10, p01 in MIXES) + " |")
    print("|---|" + "---|" * len(MIXES))
    for m in (50, 100, 200):
        cells = []
        for k, (p11, p10, p01) in enumerate(MIXES):
            rng = np.random.default_rng([seed, m, k])
            ones = np.ones(m)
            hits = 0
            for t in range(trials):
                cat = rng.choice(4, size=m, p=[p11, p10, p01, 1 - p11 - p10 - p01])
                a, b = np.isin(cat, [0, 1]).astype(float), np.isin(cat, [0, 2]).astype(float)
                lo, hi = paired_bootstrap(a, ones, b, ones, seed=t)
                hits += lo <= p01 - p10 <= hi
            cells.append(f"{hits / trials:.3f}")
        print(f"| {m} | " + " | ".join(cells) + " |")
    print("(columns: P(both right)/P(only A)/P(only B); B - A = P(only B) - P(only A))\n")


def null_rate(trials: int, seed: int) -> None:
    rng = np.random.default_rng([seed, 2])
    items, mc, flip = 200, 0, 0
    for _ in range(trials):
        p = rng.beta(2, 2, size=items)
        a, b = (rng.random(items) < p), (rng.random(items) < p)
        mc += mcnemar_exact(int((~a & b).sum()), int((a & ~b).sum())) < 0.05
        fives = np.full(items, 5.0)
        flip += swap_test(rng.binomial(5, p), fives, rng.binomial(5, p), fives, seed=0).p < 0.05
    print(f"2. Null (same model twice, {items} items, {trials} pairs): p < 0.05 in {mc / trials:.3f} (McNemar), "
          f"{flip / trials:.3f} (sign-flip, 5 samples per item)\n")


def clustered_coverage(trials: int, seed: int) -> None:
    print("3. Accuracy interval with 5 samples per item (100 items; item accuracies ~ Beta(a, a), mean 0.5)")
    print("| a | clustered | Wilson on all samples |")
    print("|---|---|---|")
    for a in (0.5, 2.0, 10.0):
        rng = np.random.default_rng([seed, 3, int(a * 10)])
        c = w = 0
        for _ in range(trials):
            right = rng.binomial(5, rng.beta(a, a, size=100))
            lo, hi = clustered_wilson(right, [5] * 100)
            c += lo <= 0.5 <= hi
            lo, hi = wilson(int(right.sum()), 500)
            w += lo <= 0.5 <= hi
        print(f"| {a:g} | {c / trials:.3f} | {w / trials:.3f} |")
    print()


def counts() -> None:
    print("4. Items for 80% power (exact McNemar, level 0.05) against Connor's approximation")
    print("| difference | discordance | exact | Connor | power at Connor's count |")
    print("|---|---|---|---|---|")
    z = NormalDist().inv_cdf
    for d, psi in ((0.3, 0.3), (0.1, 0.3), (0.05, 0.3), (0.025, 0.3), (0.022, 0.3), (0.01, 0.3), (0.05, 0.1),
                   (0.02, 0.05)):
        connor = math.ceil((z(0.975) * math.sqrt(psi) + z(0.8) * math.sqrt(psi - d * d)) ** 2 / (d * d))
        exact = f"{items_needed(d, psi):,}" if connor <= EXACT_ITEMS else f"(Connor's above {EXACT_ITEMS:,})"
        print(f"| {d} | {psi} | {exact} | {connor:,} | {mcnemar_power(connor, psi, d):.3f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    bootstrap_coverage(args.trials, args.seed)
    null_rate(args.trials, args.seed)
    clustered_coverage(args.trials, args.seed)
    counts()


if __name__ == "__main__":
    main()
