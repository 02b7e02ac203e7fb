"""pass@k, pass^k and maj@k against counts over every k-subset, and a sampled cell's summary."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from widthbench.subtasks.results.sampled import (Samples, majority_at_k, pass_at_k, pass_hat_k, summarise_samples)
from widthbench.subtasks.results.stats import clustered_wilson


def _subsets(n: int, k: int):
    return list(itertools.combinations(range(n), k))


@pytest.mark.parametrize("n", range(1, 9))
def test_pass_at_k_and_pass_hat_k_equal_the_share_of_k_subsets(n):
    # Independent reference: the samples 0..c-1 are right; count the k-subsets with a right one / all right.
    for c in range(n + 1):
        for k in range(1, n + 1):
            subsets = _subsets(n, k)
            any_right = sum(1 for s in subsets if min(s) < c)
            all_right = sum(1 for s in subsets if max(s) < c)
            assert pass_at_k(n, c, k) == pytest.approx(any_right / len(subsets), abs=1e-12)
            assert pass_hat_k(n, c, k) == pytest.approx(all_right / len(subsets), abs=1e-12)


def test_pass_at_k_is_stable_where_binomials_overflow_a_float():
    # C(2000, 1000) has 600 digits; the exact rational closed form is the reference.
    for n, c, k in [(2000, 3, 1000), (2000, 1, 1), (5000, 4990, 7), (1500, 0, 10), (3000, 1, 2999)]:
        exact = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
        assert pass_at_k(n, c, k) == pytest.approx(float(exact), rel=1e-12, abs=1e-15)
        exact_hat = Fraction(math.comb(c, k), math.comb(n, k))
        assert pass_hat_k(n, c, k) == pytest.approx(float(exact_hat), rel=1e-12, abs=1e-300)


def test_pass_estimators_refuse_impossible_counts():
    for args in [(5, 6, 1), (5, 2, 0), (5, 2, 6), (3, -1, 1)]:
        with pytest.raises(ValueError):
            pass_at_k(*args)
        with pytest.raises(ValueError):
            pass_hat_k(*args)


def _majority_by_enumeration(answers, correct, k):
    right = tie = none = 0
    subsets = _subsets(len(answers), k)
    for s in subsets:
        votes = Counter(answers[i] for i in s if answers[i] is not None)
        if not votes:
            none += 1
            continue
        top = max(votes.values())
        leaders = [a for a, v in votes.items() if v == top]
        if len(leaders) > 1:
            tie += 1
        elif correct[answers.index(leaders[0])]:
            right += 1
    return right / len(subsets), tie / len(subsets), none / len(subsets)


def test_majority_at_k_equals_the_vote_over_every_k_subset():
    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(1, 9))
        kinds = int(rng.integers(1, 5))
        answers = [None if rng.random() < 0.2 else f"r{rng.integers(kinds)}" for _ in range(n)]
        right_reading = f"r{rng.integers(kinds)}"
        correct = [a == right_reading for a in answers]
        for k in range(1, n + 1):
            got = majority_at_k(answers, correct, k)
            want = _majority_by_enumeration(answers, correct, k)
            assert (got.right, got.tie, got.no_reading) == pytest.approx(want, abs=1e-12), (answers, correct, k)


def test_majority_at_k_ties_are_wrong_and_said():
    # Two right, two wrong readings: every 4-draw ties; 2-draws tie when they split.
    m = majority_at_k(["x", "x", "y", "y"], [True, True, False, False], 4)
    assert (m.right, m.tie, m.no_reading) == (0.0, 1.0, 0.0)
    m2 = majority_at_k(["x", "x", "y", "y"], [True, True, False, False], 2)
    assert m2.right == pytest.approx(1 / 6) and m2.tie == pytest.approx(4 / 6)
    # Unread answers cast no vote: one right reading among unread ones wins.
    assert majority_at_k(["x", None, None], [True, False, False], 3).right == 1.0
    assert majority_at_k([None, None], [False, False], 2).no_reading == 1.0


def test_majority_at_k_refuses_inconsistent_verdicts():
    with pytest.raises(ValueError, match="both right and wrong"):
        majority_at_k(["x", "x"], [True, False], 1)
    with pytest.raises(ValueError, match="not read"):
        majority_at_k([None], [True], 1)


def _cell(rng, items=60, samples=5):
    out = []
    for i in range(items):
        p = rng.beta(0.7, 0.7)
        right = rng.random(samples) < p
        answers = tuple("right" if r else f"wrong{rng.integers(3)}" for r in right)
        out.append(Samples(f"item{i}", answers, tuple(bool(r) for r in right)))
    return out


def test_sampled_cell_pass_at_1_is_the_mean_accuracy_and_k_orders_hold():
    cell = summarise_samples(_cell(np.random.default_rng(1)))
    assert cell.samples == 5 and cell.items == 60
    assert cell.pass_at[0] == cell.mean_accuracy == cell.pass_hat[0]
    at = [e.value for e in cell.pass_at]
    hat = [e.value for e in cell.pass_hat]
    assert all(x < y for x, y in zip(at, at[1:])), at  # more draws, more chances of one right
    assert all(x > y for x, y in zip(hat, hat[1:])), hat
    for e in cell.pass_at + cell.pass_hat + cell.majority:
        assert e.ci_low <= e.value <= e.ci_high
    row = cell.as_row()
    assert row["pass@1"] == row["mean_accuracy"] and row["pass@5"] >= row["pass@1"]
    assert {f"pass@{k}" for k in range(1, 6)} <= set(row) and "maj@4_ties" in row and "pass^5_ci" in row
    # An even k can tie between "right" and one wrong reading; maj@1 never ties.
    assert row["maj@1_ties"] == 0 and row["maj@2_ties"] > 0


def test_sampled_cell_interval_is_clustered_by_item():
    items = _cell(np.random.default_rng(2))
    cell = summarise_samples(items)
    rights = [sum(s.correct) for s in items]
    assert (cell.mean_accuracy.ci_low, cell.mean_accuracy.ci_high) == \
        pytest.approx(clustered_wilson(rights, [5] * len(items)))


def test_sampled_cell_uses_the_fewest_samples_and_refuses_repeated_ids():
    items = [Samples("a", ("x", "y", "x"), (True, False, True)), Samples("b", ("x", "x"), (True, True))]
    assert summarise_samples(items).samples == 2
    with pytest.raises(ValueError, match="more than once"):
        summarise_samples([items[0], items[0]])
