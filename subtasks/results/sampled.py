"""Metrics of repeated samples: an item asked N times, each answer read and judged.

    pass_at_k(n, c, k)                the chance that k of the n samples, drawn without
                                      replacement, hold at least one right answer (Chen et al. 2021)
    pass_hat_k(n, c, k)               the chance that k drawn samples are all right (pass^k)
    majority_at_k(answers, correct, k) -> Majority   the chance that the majority reading of k drawn
                                      samples is right; ties and draws with no reading are wrong
    summarise_samples([Samples, ...]) -> SampledCell  a cell's mean accuracy, pass@k, pass^k and
                                      maj@k for every k <= N, with intervals clustered by item

Each estimator is the average over every k-subset of an item's n samples, so it is unbiased for the
k-sample quantity and uses all n samples (the first k samples alone would be unbiased too, and
noisier). pass@1 = pass^1 = the item's fraction of right samples, so a cell's pass@1 is its mean
accuracy. The cell's value is the mean over items; its interval is `stats.clustered_wilson` with the
items as clusters (the samples of one item are not independent). docs/compare.md.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Hashable, Sequence

from widthbench.subtasks.results.stats import clustered_wilson


def _check(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """1 − C(n−c, k) / C(n, k): the unbiased estimator of pass@k from n samples with c right.

    Computed as the product 1 − Π_{i=n−c+1}^{n} (1 − k/i), which never forms the binomial
    coefficients (they overflow a float from n ≈ 1030) and loses no precision when c is small.
    """
    _check(n, c, k)
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def pass_hat_k(n: int, c: int, k: int) -> float:
    """C(c, k) / C(n, k): the unbiased estimator of pass^k (k drawn samples all right),
    as the product Π_{i=0}^{k−1} (c − i) / (n − i)."""
    _check(n, c, k)
    if c < k:
        return 0.0
    return math.prod((c - i) / (n - i) for i in range(k))


@dataclass(frozen=True, slots=True)
class Majority:
    """Over the k-subsets of an item's samples: the share whose majority reading is right, the
    share tied between readings (counted wrong), and the share with no reading at all (wrong)."""

    right: float
    tie: float
    no_reading: float


_NONE, _TIE, _RIGHT, _WRONG = range(4)


def majority_at_k(answers: Sequence[Hashable | None], correct: Sequence[bool], k: int) -> Majority:
    """maj@k of one item: the k drawn samples vote with their readings (``answers``: equal readings
    are equal keys; None for an answer that could not be read, which casts no vote); the reading
    with the most votes wins and is right or wrong as ``correct`` says. A tie for the most votes is
    wrong (no majority), and so are k draws of which none was read.

    Counted exactly over all C(n, k) subsets: a pass over the distinct readings keeps, per number
    of samples drawn so far and largest vote so far, the number of subsets whose leader is a right
    reading, a wrong one, tied, or none yet.
    """
    n = len(answers)
    if len(correct) != n:
        raise ValueError(f"{n} answers but {len(correct)} correctness values")
    _check(n, 0, k)
    verdict: dict[Hashable, bool] = {}
    for a, ok in zip(answers, correct):
        if a is None:
            if ok:
                raise ValueError("an answer that was not read cannot be right")
            continue
        if verdict.setdefault(a, bool(ok)) != bool(ok):
            raise ValueError(f"the reading {a!r} is judged both right and wrong")
    votes = Counter(a for a in answers if a is not None)
    # state (drawn, largest vote, leader kind) -> number of subsets
    states: dict[tuple[int, int, int], int] = {(0, 0, _NONE): 1}
    for reading, count in votes.items():
        kind = _RIGHT if verdict[reading] else _WRONG
        nxt: dict[tuple[int, int, int], int] = {}
        for (drawn, top, leader), ways in states.items():
            for x in range(0, min(count, k - drawn) + 1):
                if x > top:
                    key = (drawn + x, x, kind)
                elif x == top and x > 0:
                    key = (drawn + x, top, _TIE)
                else:
                    key = (drawn + x, top, leader)
                nxt[key] = nxt.get(key, 0) + ways * math.comb(count, x)
        states = nxt
    unread = n - sum(votes.values())
    totals = [0, 0, 0, 0]
    for (drawn, _, leader), ways in states.items():
        if k - drawn <= unread:
            totals[leader] += ways * math.comb(unread, k - drawn)
    all_subsets = math.comb(n, k)
    return Majority(right=totals[_RIGHT] / all_subsets, tie=totals[_TIE] / all_subsets,
                    no_reading=totals[_NONE] / all_subsets)


@dataclass(frozen=True, slots=True)
class Samples:
    """One item's samples as read: per sample its reading (a hashable key, equal for equal readings;
    None when the answer could not be read) and whether it is right."""

    item_id: str
    answers: tuple[Hashable | None, ...]
    correct: tuple[bool, ...]

    def __post_init__(self) -> None:
        if len(self.answers) != len(self.correct) or not self.answers:
            raise ValueError(f"item {self.item_id}: {len(self.answers)} answers, {len(self.correct)} verdicts")


@dataclass(frozen=True, slots=True)
class Estimate:
    """A cell's value (the mean over its items) with its 95% interval clustered by item."""

    value: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True, slots=True)
class SampledCell:
    """A cell of a sampled run. ``samples`` is the k range: the fewest samples any item has (the
    estimators need k <= n on every item). ``pass_at[k-1]`` is pass@k, likewise ``pass_hat`` and
    ``majority``; ``majority_ties[k-1]`` / ``majority_no_reading[k-1]`` are the shares of k-draws,
    averaged over items, that had no majority because readings tied / none was read (both count
    as wrong in maj@k)."""

    items: int
    samples: int
    mean_accuracy: Estimate
    pass_at: tuple[Estimate, ...]
    pass_hat: tuple[Estimate, ...]
    majority: tuple[Estimate, ...]
    majority_ties: tuple[float, ...]
    majority_no_reading: tuple[float, ...]

    def as_row(self) -> dict:
        """The fields a summary row of a sampled run carries: ``samples``, ``mean_accuracy`` and
        ``pass@k``, ``pass^k``, ``maj@k`` for each k <= samples, each with ``<name>_ci`` [low, high];
        ``maj@k_ties`` and ``maj@k_no_reading``."""
        row: dict = {"samples": self.samples, "mean_accuracy": round(self.mean_accuracy.value, 4),
                     "mean_accuracy_ci": _ci(self.mean_accuracy)}
        for k in range(1, self.samples + 1):
            for name, values in (("pass@", self.pass_at), ("pass^", self.pass_hat), ("maj@", self.majority)):
                row[f"{name}{k}"] = round(values[k - 1].value, 4)
                row[f"{name}{k}_ci"] = _ci(values[k - 1])
            row[f"maj@{k}_ties"] = round(self.majority_ties[k - 1], 4)
            row[f"maj@{k}_no_reading"] = round(self.majority_no_reading[k - 1], 4)
        return row


def _ci(e: Estimate) -> list[float]:
    return [round(e.ci_low, 4), round(e.ci_high, 4)]


def _estimate(values: list[float], samples: list[int]) -> Estimate:
    lo, hi = clustered_wilson(values, [1] * len(values), samples=samples)
    return Estimate(sum(values) / len(values), lo, hi)


def summarise_samples(items: Sequence[Samples]) -> SampledCell:
    """Mean accuracy, pass@k, pass^k and maj@k (k = 1 .. the fewest samples of any item) of a cell:
    each the mean over items of the item's estimate, with the clustered 95% interval. The mean
    accuracy is the mean of the items' fractions right, so it equals pass@1."""
    if not items:
        raise ValueError("no items to summarise")
    ids = [s.item_id for s in items]
    if len(set(ids)) != len(ids):
        dup = next(i for i, c in Counter(ids).items() if c > 1)
        raise ValueError(f"item {dup} appears more than once")
    counts = [len(s.answers) for s in items]
    rights = [sum(bool(c) for c in s.correct) for s in items]
    top = min(counts)
    accuracy = [c / n for c, n in zip(rights, counts)]
    pass_at, pass_hat, majority, ties, none = [], [], [], [], []
    for k in range(1, top + 1):
        pass_at.append(_estimate([pass_at_k(n, c, k) for n, c in zip(counts, rights)], counts))
        pass_hat.append(_estimate([pass_hat_k(n, c, k) for n, c in zip(counts, rights)], counts))
        votes = [majority_at_k(s.answers, s.correct, k) for s in items]
        majority.append(_estimate([v.right for v in votes], counts))
        ties.append(sum(v.tie for v in votes) / len(votes))
        none.append(sum(v.no_reading for v in votes) / len(votes))
    return SampledCell(items=len(items), samples=top,
                       mean_accuracy=_estimate(accuracy, counts),
                       pass_at=tuple(pass_at), pass_hat=tuple(pass_hat), majority=tuple(majority),
                       majority_ties=tuple(ties), majority_no_reading=tuple(none))
