"""The paired statistics against independent references: scipy's exact binomial test, swap tests by
enumeration, Holm's procedure written out, and simulation (coverage, type I error, power)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from widthbench.subtasks.results.paired import (detectable_difference, holm, items_needed, mcnemar_exact, mcnemar_power,
                                        paired_bootstrap, ratio_difference, swap_test)

stats = pytest.importorskip("scipy.stats")


def test_mcnemar_equals_the_exact_binomial_test_of_the_discordant_counts():
    pairs = [(i, j) for i in range(31) for j in range(31)] + [(120, 151), (400, 350), (1000, 1000), (0, 900)]
    for b01, b10 in pairs:
        want = 1.0 if b01 + b10 == 0 else stats.binomtest(b01, b01 + b10, 0.5).pvalue
        assert mcnemar_exact(b01, b10) == pytest.approx(want, rel=1e-9, abs=1e-300), (b01, b10)
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 3)


def _binary(rng, m, p11, p10, p01):
    """m items; both right with p11, only A with p10, only B with p01 (B − A = p01 − p10)."""
    cat = rng.choice(4, size=m, p=[p11, p10, p01, 1 - p11 - p10 - p01])
    return np.isin(cat, [0, 1]).astype(float), np.isin(cat, [0, 2]).astype(float)


def test_exact_swap_test_on_0_1_outcomes_is_mcnemar():
    rng = np.random.default_rng(3)
    for _ in range(40):
        m = int(rng.integers(5, 40))
        a, b = _binary(rng, m, 0.3, 0.15, 0.2)
        ones = np.ones(m)
        got = swap_test(a, ones, b, ones, seed=0)
        b01, b10 = int(((a == 0) & (b == 1)).sum()), int(((a == 1) & (b == 0)).sum())
        if b01 + b10 <= 20:
            assert got.exact and got.p == pytest.approx(mcnemar_exact(b01, b10), abs=1e-12)


def test_monte_carlo_swap_test_agrees_with_the_exact_p_value():
    # 60 discordant items: too many to enumerate, so 10,000 random swaps (SE of p <= 0.005).
    a = np.array([1.0] * 25 + [0.0] * 35 + [1.0] * 40)
    b = np.array([0.0] * 25 + [1.0] * 35 + [1.0] * 40)
    ones = np.ones(100)
    got = swap_test(a, ones, b, ones, seed=5)
    assert not got.exact and got.differing == 60 and got.resamples == 10_000
    assert got.p == pytest.approx(mcnemar_exact(35, 25), abs=0.02)
    assert swap_test(a, ones, b, ones, seed=5) == got  # seeded


def test_swap_test_of_ratios_matches_enumeration():
    """Counts with unequal denominators (per-action successor counts): the statistic is
    Σrb/Σnb − Σra/Σna, and every one of the 2^d swaps is enumerated independently here."""
    rng = np.random.default_rng(9)
    for _ in range(10):
        m = int(rng.integers(3, 11))
        na = rng.integers(1, 6, m).astype(float)
        nb = na.copy()
        nb[rng.random(m) < 0.3] += 1
        ra = np.floor(rng.random(m) * (na + 1))
        rb = np.floor(rng.random(m) * (nb + 1))
        obs = abs(ratio_difference(ra, na, rb, nb))
        hits = 0
        for swap in itertools.product((0, 1), repeat=m):
            s = np.array(swap, dtype=bool)
            xa, xna = np.where(s, rb, ra), np.where(s, nb, na)
            xb, xnb = np.where(s, ra, rb), np.where(s, na, nb)
            hits += abs(xb.sum() / xnb.sum() - xa.sum() / xna.sum()) >= obs - 1e-12
        # swaps of items whose outcomes are equal change nothing: they count 2^(m - d) times each
        assert swap_test(ra, na, rb, nb, seed=0).p == pytest.approx(hits / 2 ** m, abs=1e-12)


def test_a_run_against_itself_has_difference_0_and_p_1():
    rng = np.random.default_rng(0)
    a, _ = _binary(rng, 80, 0.3, 0.2, 0.2)
    ones = np.ones(80)
    assert ratio_difference(a, ones, a, ones) == 0
    assert paired_bootstrap(a, ones, a, ones, seed=1) == (0.0, 0.0)
    assert swap_test(a, ones, a, ones, seed=1).p == 1.0
    tokens = rng.integers(100, 900, 80).astype(float)
    assert swap_test(tokens, ones, tokens, ones, seed=1).p == 1.0


def test_paired_bootstrap_covers_the_true_difference():
    """200 seeded simulated paired data sets of 100 items (B − A = 0.1, discordance 0.3): the 95%
    interval covers the true difference at least 93% of the time."""
    rng = np.random.default_rng(2024)
    ones = np.ones(100)
    covered = 0
    for i in range(200):
        a, b = _binary(rng, 100, 0.4, 0.1, 0.2)
        lo, hi = paired_bootstrap(a, ones, b, ones, seed=i, resamples=4000)
        covered += lo <= 0.1 <= hi
    assert covered / 200 >= 0.93, covered / 200


def test_paired_bootstrap_is_seeded_and_resamples_items_whole():
    rng = np.random.default_rng(4)
    a, b = _binary(rng, 60, 0.4, 0.1, 0.2)
    ones = np.ones(60)
    assert paired_bootstrap(a, ones, b, ones, seed=3) == paired_bootstrap(a, ones, b, ones, seed=3)
    # Pairing matters: the same marginals with the pairs broken give a wider interval.
    lo, hi = paired_bootstrap(a, ones, a, ones, seed=3)
    assert (lo, hi) == (0.0, 0.0)
    shuffled = rng.permutation(a)
    lo2, hi2 = paired_bootstrap(a, ones, shuffled, ones, seed=3)
    assert hi2 - lo2 > 0.1


def test_under_the_null_p_below_005_at_most_8_percent():
    """Two runs of the same noisy model on the same items (item difficulties shared, seeds differing):
    over 100 pairs, McNemar's p < 0.05 in at most 8% of them; likewise the sign-flip test on
    5 samples per item."""
    rng = np.random.default_rng(77)
    items = 200
    mcnemar_hits = sampled_hits = 0
    for _ in range(100):
        p = rng.beta(2, 2, size=items)  # each item's chance of a right answer
        a, b = (rng.random(items) < p).astype(float), (rng.random(items) < p).astype(float)
        b01, b10 = int(((a == 0) & (b == 1)).sum()), int(((a == 1) & (b == 0)).sum())
        mcnemar_hits += mcnemar_exact(b01, b10) < 0.05
        fives = np.full(items, 5.0)
        sampled_hits += swap_test(rng.binomial(5, p), fives, rng.binomial(5, p), fives, seed=0,
                                  resamples=2000).p < 0.05
    assert mcnemar_hits <= 8 and sampled_hits <= 8, (mcnemar_hits, sampled_hits)


def test_holm_against_a_hand_computed_example():
    # sorted: 0.005 x4 = 0.02; 0.01 x3 = 0.03; 0.03 x2 = 0.06; 0.04 x1 = 0.04 -> kept at 0.06
    assert holm([0.01, 0.04, 0.03, None, 0.005]) == pytest.approx([0.03, 0.06, 0.06, None, 0.02])
    assert holm([0.5, 0.9]) == [1.0, 1.0] and holm([]) == [] and holm([None]) == [None]


def test_holm_is_monotone_and_rejects_what_the_step_down_procedure_rejects():
    rng = np.random.default_rng(12)
    for _ in range(300):
        m = int(rng.integers(1, 15))
        p = list(rng.random(m) ** 3)
        adj = holm(p)
        assert all(q >= x for q, x in zip(adj, p)) and all(q <= 1 for q in adj)
        for i, j in itertools.product(range(m), repeat=2):
            if p[i] <= p[j]:
                assert adj[i] <= adj[j]
        # Holm's procedure: walk up the sorted p-values, reject while p_(i) <= alpha / (m - i + 1).
        alpha = 0.05
        rejected = set()
        for rank, i in enumerate(sorted(range(m), key=lambda i: p[i])):
            if p[i] > alpha / (m - rank):
                break
            rejected.add(i)
        assert {i for i in range(m) if adj[i] <= alpha} == rejected


def _simulated_power(items, discordance, difference, rng, trials=4000):
    p01, p10 = (discordance + difference) / 2, (discordance - difference) / 2
    counts = rng.multinomial(items, [p01, p10, 1 - discordance], size=trials)
    return float(np.mean([mcnemar_exact(int(x), int(y)) <= 0.05 for x, y, _ in counts]))


def test_power_matches_simulation():
    rng = np.random.default_rng(8)
    for items, disc, diff in [(50, 0.3, 0.2), (200, 0.25, 0.1), (120, 0.08, 0.06)]:
        assert mcnemar_power(items, disc, diff) == pytest.approx(_simulated_power(items, disc, diff, rng), abs=0.025)


def test_detectable_difference_has_80_percent_power_by_simulation():
    rng = np.random.default_rng(21)
    for items, disc in [(50, 0.3), (200, 0.2), (500, 0.1)]:
        d = detectable_difference(items, disc)
        assert 0 < d <= disc
        assert _simulated_power(items, disc, d, rng) == pytest.approx(0.8, abs=0.03)
        # and a difference 2 points smaller falls short
        assert mcnemar_power(items, disc, max(d - 0.02, 0)) < 0.8
    assert detectable_difference(50, 0.0) is None
    assert detectable_difference(20, 0.1) is None  # about 2 discordant items: nothing is detectable


def test_items_needed_is_the_smallest_count_with_80_percent_power():
    rng = np.random.default_rng(5)
    for diff, disc in [(0.1, 0.3), (0.2, 0.3), (0.05, 0.1), (0.38, 0.38)]:
        m = items_needed(diff, disc)
        assert mcnemar_power(m, disc, diff) >= 0.8 > mcnemar_power(m - 1, disc, diff)
        assert _simulated_power(m, disc, diff, rng) == pytest.approx(0.8, abs=0.04)
    assert items_needed(0.1, 0.02) == items_needed(0.1, 0.1)  # discordance at least the difference
    with pytest.raises(ValueError):
        items_needed(0.0, 0.3)
