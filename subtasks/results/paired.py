"""Paired comparisons of two runs on the same items, and the item counts a comparison needs.

Each item carries, per run, a numerator and a denominator: right answers and answers (one 0/1
answer: right in {0, 1} over 1; N samples: the right ones over N; a count metric: right units
over units), or an amount (tokens) over answers. A run's value is Σright / Σn over the common
items, and the difference is B's value minus A's.

    ratio_difference(ra, na, rb, nb) -> float               B − A
    paired_bootstrap(ra, na, rb, nb, seed=) -> (low, high)  percentile interval, items resampled
    swap_test(ra, na, rb, nb, seed=) -> SwapTest            paired permutation (sign-flip) p-value
    mcnemar_exact(b01, b10) -> p                            exact McNemar test of 0/1 outcomes
    holm(pvalues) -> adjusted                               Holm's step-down correction
    mcnemar_power(items, discordance, difference) -> power  exact, at level 0.05
    detectable_difference(items, discordance) -> d | None   smallest d with 80% power
    items_needed(difference, discordance) -> items          smallest item count with 80% power

Every random draw takes an explicit seed. docs/compare.md explains the choices.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Sequence

import numpy as np

RESAMPLES = 10_000
EXACT_ITEMS = 5_000  # items_needed bisects on the exact power up to this count
EXACT_UP_TO = 20  # a swap test enumerates all 2^d swaps of d differing items up to this d
_CELLS = 2_000_000  # numbers held at once by the vectorised loops (about 16 MB of floats)


def _arrays(ra, na, rb, nb) -> tuple[np.ndarray, ...]:
    arrays = tuple(np.asarray(x, dtype=float) for x in (ra, na, rb, nb))
    if len({a.shape for a in arrays}) != 1 or arrays[0].ndim != 1:
        raise ValueError("ra, na, rb, nb must be four lists of one length (one entry per common item)")
    if arrays[1].sum() <= 0 or arrays[3].sum() <= 0:
        raise ValueError("a run has nothing counted on the common items (every n is 0)")
    return arrays


def ratio_difference(ra, na, rb, nb) -> float:
    """Σrb / Σnb − Σra / Σna: B's value minus A's on the common items."""
    ra, na, rb, nb = _arrays(ra, na, rb, nb)
    return float(rb.sum() / nb.sum() - ra.sum() / na.sum())


def paired_bootstrap(ra, na, rb, nb, *, seed: int, resamples: int = RESAMPLES,
                     level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of `ratio_difference` over ``resamples`` resamplings of the items with
    replacement, each item keeping both runs' outcomes (the pairing) and all its samples (the
    clustering). Seeded: the same data and seed give the same interval."""
    ra, na, rb, nb = _arrays(ra, na, rb, nb)
    rng = np.random.default_rng(seed)
    m = len(ra)
    chunk = max(1, _CELLS // m)
    diffs = []
    for start in range(0, resamples, chunk):
        idx = rng.integers(0, m, size=(min(chunk, resamples - start), m))
        with np.errstate(invalid="ignore", divide="ignore"):
            diffs.append(rb[idx].sum(1) / nb[idx].sum(1) - ra[idx].sum(1) / na[idx].sum(1))
    tail = (1 - level) / 2
    lo, hi = np.nanquantile(np.concatenate(diffs), [tail, 1 - tail])
    return float(lo), float(hi)


@dataclass(frozen=True, slots=True)
class SwapTest:
    """A paired permutation test's two-sided p-value; ``exact`` when every one of the 2^d swaps of
    the d items whose outcomes differ was counted, else ``resamples`` seeded random swaps were."""

    p: float
    exact: bool
    differing: int
    resamples: int = 0


def swap_test(ra, na, rb, nb, *, seed: int, resamples: int = RESAMPLES,
              exact_up_to: int = EXACT_UP_TO) -> SwapTest:
    """Paired permutation test of `ratio_difference`: under the null hypothesis that the two runs
    are exchangeable on every item, swapping an item's A and B outcomes leaves the distribution
    unchanged (for plain differences, a sign flip). The p-value is the share of swaps whose
    |difference| is at least the observed one: over all 2^d swaps of the d differing items when
    d <= ``exact_up_to``, else over ``resamples`` random swaps counted with the observed one,
    (1 + hits) / (1 + resamples), which is never 0 (Phipson and Smyth 2010). On 0/1 outcomes
    the exact test is McNemar's exact test."""
    ra, na, rb, nb = _arrays(ra, na, rb, nb)
    differ = (ra != rb) | (na != nb)
    d = int(differ.sum())
    if d == 0:
        return SwapTest(1.0, True, 0)
    dr, dn = (rb - ra)[differ], (nb - na)[differ]
    totals = ra.sum(), na.sum(), rb.sum(), nb.sum()

    def stats(swaps: np.ndarray) -> np.ndarray:
        r, n = swaps @ dr, swaps @ dn
        return (totals[2] - r) / (totals[3] - n) - (totals[0] + r) / (totals[1] + n)

    observed = abs(float(stats(np.zeros((1, d)))[0]))
    bar = observed - 1e-9 * max(1.0, observed)  # equal statistics, summed in another order, still count
    chunk = max(1, _CELLS // d)
    hits = 0
    if d <= exact_up_to:
        bits = np.arange(d)
        for start in range(0, 2 ** d, chunk):
            codes = np.arange(start, min(2 ** d, start + chunk))
            hits += int((np.abs(stats(((codes[:, None] >> bits) & 1).astype(float))) >= bar).sum())
        return SwapTest(hits / 2 ** d, True, d)
    rng = np.random.default_rng(seed)
    for start in range(0, resamples, chunk):
        swaps = rng.integers(0, 2, size=(min(chunk, resamples - start), d)).astype(float)
        hits += int((np.abs(stats(swaps)) >= bar).sum())
    return SwapTest((1 + hits) / (1 + resamples), False, d, resamples)


def mcnemar_exact(b01: int, b10: int) -> float:
    """Exact McNemar p-value: the two-sided exact binomial test of b01 successes in b01 + b10
    trials at probability 1/2, min(1, 2 P(X <= min(b01, b10))); 1 with no discordant pair.
    b01 counts items A got wrong and B right, b10 the reverse. Exact integer arithmetic."""
    if b01 < 0 or b10 < 0:
        raise ValueError(f"discordant counts must be >= 0, got {b01}, {b10}")
    b = b01 + b10
    if b == 0:
        return 1.0
    term, tail = 1, 1
    for i in range(min(b01, b10)):
        term = term * (b - i) // (i + 1)
        tail += term
    return min(1.0, 2 * tail / 2 ** b)


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjustment (Holm 1979) of a family of p-values, in their order: the i-th
    smallest of m becomes max over j <= i of min(1, (m − j + 1) p_(j)). Rejecting where the
    adjusted p < alpha keeps the chance of any false rejection in the family below alpha. None
    (a row without a test) stays None and does not count in m."""
    tested = sorted((i for i, p in enumerate(pvalues) if p is not None), key=lambda i: pvalues[i])
    out: list[float | None] = list(pvalues)
    running = 0.0
    for rank, i in enumerate(tested):
        running = max(running, min(1.0, (len(tested) - rank) * pvalues[i]))
        out[i] = running
    return out


# --- planning -------------------------------------------------------------------------------------


def _log_factorials(n: int) -> np.ndarray:
    return np.array([math.lgamma(i + 1) for i in range(n + 1)])


def _lower_tail(lf: np.ndarray, b: np.ndarray, c: np.ndarray, p: float) -> np.ndarray:
    """P(X <= c) for X ~ Binomial(b, p), per entry of the vectors b and c (c = −1: 0). The terms
    are summed over a window of 6 √b + 10 on each side of c (beyond it lie more than 12 standard
    deviations, terms below 1e-30): below c when the mean is above c, else 1 minus the terms
    above c."""
    w = np.ceil(6 * np.sqrt(b) + 10).astype(int)
    k = (c - w)[:, None] + np.arange(2 * w.max() + 2)[None, :]
    valid = (k >= 0) & (k <= b[:, None]) & (k <= (c + w + 1)[:, None])
    kk = np.where(valid, k, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        logp = math.log(p) if p > 0 else -np.inf
        logq = math.log1p(-p) if p < 1 else -np.inf
        terms = lf[b][:, None] - lf[kk] - lf[np.where(valid, b[:, None] - kk, 0)]
        terms = terms + np.where(kk > 0, kk * logp, 0.0) + np.where(b[:, None] - kk > 0, (b[:, None] - kk) * logq, 0.0)
        pmf = np.exp(np.where(valid, terms, -np.inf))
    below = (pmf * (k <= c[:, None])).sum(1)
    above = (pmf * (k > c[:, None])).sum(1)
    out = np.where(b * p > c, below, 1.0 - above)
    return np.clip(np.where(c < 0, 0.0, out), 0.0, 1.0)


def _critical(lf: np.ndarray, b: np.ndarray, alpha: float) -> np.ndarray:
    """Per number of discordant pairs b, the largest count c with 2 P(X <= c) <= alpha for
    X ~ Binomial(b, 1/2) (−1: the exact McNemar test cannot reject at b)."""
    w = np.ceil(6 * np.sqrt(b) + 10).astype(int)
    start = np.maximum(0, b // 2 - w)
    k = start[:, None] + np.arange((b // 2 - start).max() + 1)[None, :]
    valid = k <= (b // 2)[:, None]
    kk = np.where(valid, k, 0)
    pmf = np.exp(np.where(valid, lf[b][:, None] - lf[kk] - lf[np.where(valid, b[:, None] - kk, 0)]
                          - b[:, None] * math.log(2), -np.inf))
    cdf = np.cumsum(pmf, axis=1)
    ok = (2 * cdf <= alpha * (1 + 1e-9)) & valid
    return np.where(ok.any(1), start + ok.sum(1) - 1, -1)


def mcnemar_power(items: int, discordance: float, difference: float, alpha: float = 0.05) -> float:
    """Power of the exact McNemar test at level ``alpha`` on ``items`` items when a share
    ``discordance`` of them is discordant and B − A = ``difference`` (so a discordant item favours
    B with probability (discordance + difference) / (2 discordance)): the sum over the number of
    discordant items b ~ Binomial(items, discordance) of the chance that the exact test rejects
    (p <= alpha) given b. Exact up to terms below 1e-12."""
    if items < 1:
        raise ValueError(f"need at least 1 item, got {items}")
    if not 0 < discordance <= 1 or abs(difference) > discordance:
        raise ValueError(f"need 0 < discordance <= 1 and |difference| <= discordance, got {discordance}, {difference}")
    lf = _log_factorials(items)
    b = np.arange(items + 1)
    with np.errstate(divide="ignore"):
        logq = math.log1p(-discordance) if discordance < 1 else -np.inf
        log_pb = lf[items] - lf[b] - lf[items - b] + b * math.log(discordance) + np.where(items - b > 0, (items - b) * logq, 0.0)
    pb = np.exp(log_pb - log_pb.max())
    keep = pb >= 1e-12
    b, weight = b[keep], np.exp(log_pb[keep])
    c = _critical(lf, b, alpha)
    q = (discordance + abs(difference)) / (2 * discordance)  # a discordant item favours the better run
    reject = _lower_tail(lf, b, c, 1 - q) + _lower_tail(lf, b, c, q)
    return float(min(1.0, (weight * reject).sum()))


def detectable_difference(items: int, discordance: float, power: float = 0.8,
                          alpha: float = 0.05) -> float | None:
    """The smallest |B − A| that the exact McNemar test on ``items`` items detects with probability
    ``power`` at level ``alpha``, when a share ``discordance`` of the items is discordant (the
    observed b01 + b10 over the items). None when even a difference as large as the discordance
    (every discordant item going one way) is detected less often, or nothing is discordant."""
    if discordance <= 0 or mcnemar_power(items, discordance, discordance, alpha) < power:
        return None
    lo, hi = 0.0, discordance
    while hi - lo > 1e-5:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if mcnemar_power(items, discordance, mid, alpha) >= power else (mid, hi)
    return hi


def items_needed(difference: float, discordance: float, power: float = 0.8, alpha: float = 0.05) -> int:
    """The smallest item count at which the exact McNemar test detects B − A = ``difference`` with
    probability ``power`` at level ``alpha``, when a share ``discordance`` of the items is
    discordant (raised to |difference| when below it: a difference needs at least that many
    discordant items). Found by bisection around the normal approximation of Connor (1987); the
    exact test's power saw-tooths by a point or two as items grow, so a count a little above may
    fall short. Beyond ``EXACT_ITEMS`` items, Connor's count itself (docs/compare.md measures how
    close it is there)."""
    d = abs(difference)
    if d <= 0:
        raise ValueError("a difference of 0 cannot be detected")
    psi = max(discordance, d)
    z = NormalDist().inv_cdf
    guess = (z(1 - alpha / 2) * math.sqrt(psi) + z(power) * math.sqrt(max(psi - d * d, 0.0))) ** 2 / (d * d)
    if guess > EXACT_ITEMS:
        return math.ceil(guess)
    lo, hi = max(1, math.floor(0.8 * guess)), math.ceil(1.25 * guess) + 10
    while lo > 1 and mcnemar_power(lo, psi, d, alpha) >= power:
        lo //= 2
    while mcnemar_power(hi, psi, d, alpha) < power:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:  # power(lo) < power <= power(hi), or lo = 1 (no test on 1 item rejects)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if mcnemar_power(mid, psi, d, alpha) >= power else (mid, hi)
    return hi
