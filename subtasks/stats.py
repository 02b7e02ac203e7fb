"""Confidence intervals for proportions, and the logistic slope of outcomes against a feature."""

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
    p = k / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


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
