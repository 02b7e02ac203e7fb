"""Confidence intervals for proportions (one answer per item, or several answers clustered by item),
and the logistic slope of outcomes against a feature."""

from __future__ import annotations

import math

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials (Wilson 1927); (0, 1) when n = 0.

    Unlike the normal approximation it stays inside [0, 1] and is sensible at k = 0 and k = n,
    which is where small sub-task grids often land.
    """
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    return wilson_of(k / n, n, z)



def cell_stats(correct: int, n: int) -> dict:
    """k/n with its accuracy and Wilson 95% interval: the numbers of every cell, bin and solve run."""
    lo, hi = wilson(correct, n)
    return {"n": n, "correct": correct, "accuracy": round(correct / n, 4) if n else None,
            "ci_low": round(lo, 4), "ci_high": round(hi, 4)}

def wilson_of(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval around the proportion ``p`` observed on ``n`` trials; ``n`` may be an
    effective (non-integer) count, as `clustered_wilson` hands it."""
    if not 0 <= p <= 1 or n <= 0:
        raise ValueError(f"need 0 <= p <= 1 and n > 0, got p={p}, n={n}")
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def clustered_wilson(right, n, samples=None, z: float = Z95) -> tuple[float, float]:
    """Wilson interval for a cell's proportion Σright / Σn when an item's answers are not independent
    (several samples of one item, or several units of one answer, like successor mapping's
    per-action counts): the items are the clusters.

    ``right`` and ``n`` are per item: the item's right answers (or units) and its answers (or units);
    an item-level estimate in [0, 1] such as an item's pass@k is ``right`` with ``n`` 1. The variance
    of the ratio is the cluster-robust one with the items as clusters (CR0, no small-sample factor),
    V = Σ(right_i − p n_i)² / (Σn)², and the Wilson interval is taken on the effective count
    p (1 − p) / V (the effective sample size of Korn and Graubard 1998, with Wilson's interval in
    place of theirs). With one 0/1 answer per item this is the plain Wilson interval on the items,
    exactly; tests/subtasks/test_stats.py measures its coverage on clustered samples. The
    effective count never exceeds the answers
    behind the cell (``samples``, summed; default ``n``): answers that agree within an item more
    evenly than chance do not count for more than independent ones. A cell whose answers are all
    right or all wrong has no spread to measure; it counts as one answer per item (answers of one
    item may agree completely).
    """
    import numpy as np

    r = np.asarray(right, dtype=float)
    m = np.asarray(n, dtype=float)
    if r.shape != m.shape or r.ndim != 1:
        raise ValueError(f"right and n must be two lists of the same length, got {r.shape} and {m.shape}")
    if (m < 0).any() or (r < 0).any() or (r > m).any():
        raise ValueError("need 0 <= right <= n for every item")
    total = float(m.sum())
    if total <= 0:
        return 0.0, 1.0
    cap = total if samples is None else float(np.sum(samples))
    p = min(1.0, max(0.0, float(r.sum() / total)))
    items = int((m > 0).sum())
    if p in (0.0, 1.0):
        return wilson_of(p, items, z)
    variance = float(((r - p * m) ** 2).sum() / (total * total))
    effective = cap if variance <= 0 else min(cap, p * (1 - p) / variance)
    return wilson_of(p, effective, z)


def logistic_slope(xs, ys, z: float = Z95, max_iter: int = 100) -> dict:
    """Maximum-likelihood fit of P(y = 1 | x) = 1 / (1 + exp(-(a + b x))) by Newton's method.

    Returns {"slope": b, "slope_low", "slope_high" (Wald interval b +- z SE, SE from the inverse
    Fisher information), "odds_ratio": exp(b) with "odds_low"/"odds_high", "intercept": a}; every
    value None with a "note" when no slope can be fitted: fewer than 2 distinct x, every y the same,
    or outcomes split perfectly by x (the likelihood has no maximum; the slope is infinite).
    """
    import numpy as np

    empty = {"slope": None, "slope_low": None, "slope_high": None, "odds_ratio": None, "odds_low": None,
             "odds_high": None, "intercept": None}
    x = np.asarray(list(xs), dtype=float)
    y = np.asarray(list(ys), dtype=float)
    if len(x) != len(y):
        raise ValueError(f"{len(x)} x values but {len(y)} outcomes")
    if len(set(x.tolist())) < 2:
        return {**empty, "note": "fewer than 2 distinct feature values"}
    if y.min() == y.max():
        return {**empty, "note": "every answer " + ("right" if y[0] else "wrong")}
    # Centre and scale x so that Newton's steps are well conditioned; b is scaled back at the end.
    mu, sd = x.mean(), x.std()
    X = np.column_stack([np.ones_like(x), (x - mu) / sd])
    separated = {**empty, "note": "the outcomes split perfectly by the feature (infinite slope)"}
    beta = np.zeros(2)
    try:
        for _ in range(max_iter):
            p = 1 / (1 + np.exp(-(X @ beta)))
            info = X.T @ (X * (p * (1 - p))[:, None])
            step = np.linalg.solve(info, X.T @ (y - p))
            beta = beta + step
            if np.abs(beta).max() > 30:
                return separated
            if np.abs(step).max() < 1e-10:
                break
        else:
            return {**empty, "note": f"no convergence in {max_iter} Newton steps"}
        p = 1 / (1 + np.exp(-(X @ beta)))
        cov = np.linalg.inv(X.T @ (X * (p * (1 - p))[:, None]))
    except np.linalg.LinAlgError:  # p(1 - p) -> 0 on every item: the fit runs off to infinity
        return separated
    b, se = beta[1] / sd, float(np.sqrt(cov[1, 1])) / sd
    a = beta[0] - beta[1] * mu / sd
    lo, hi = b - z * se, b + z * se
    if not np.isfinite(se) or max(abs(lo), abs(hi)) > 700:  # exp() overflows: no usable interval
        return {**empty, "note": "no finite interval (too few items, or outcomes nearly split by the feature)"}
    return {"slope": round(float(b), 4), "slope_low": round(float(lo), 4), "slope_high": round(float(hi), 4),
            "odds_ratio": round(float(np.exp(b)), 4), "odds_low": round(float(np.exp(lo)), 4),
            "odds_high": round(float(np.exp(hi)), 4), "intercept": round(float(a), 4)}


def progress_stats(values) -> dict:
    """The mean of per-item partial credits in [0, 1] (`planners.progress`; None left out) with a
    Wilson 95% interval around it: for values in [0, 1] the variance is at most p(1 - p), so the
    interval of a proportion with the same mean and n covers it conservatively. The fields every
    row and solve summary with ``progress`` carries."""
    vals = [float(v) for v in values if v is not None]
    if not vals:
        return {"mean_progress": None, "progress_ci_low": None, "progress_ci_high": None, "progress_n": 0}
    p = sum(vals) / len(vals)
    lo, hi = wilson_of(min(1.0, max(0.0, p)), len(vals))
    return {"mean_progress": round(p, 4), "progress_ci_low": round(lo, 4), "progress_ci_high": round(hi, 4),
            "progress_n": len(vals)}
