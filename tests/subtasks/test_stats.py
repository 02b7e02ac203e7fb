from __future__ import annotations

import pytest

from widthbench.subtasks.results.stats import wilson


def test_wilson_matches_published_values():
    # Newcombe (1998), Table I: 81/263 -> 0.2553 .. 0.3662; 15/148 -> 0.0624 .. 0.1605
    lo, hi = wilson(81, 263)
    assert lo == pytest.approx(0.2553, abs=1e-4) and hi == pytest.approx(0.3662, abs=1e-4)
    lo, hi = wilson(15, 148)
    assert lo == pytest.approx(0.0624, abs=1e-4) and hi == pytest.approx(0.1605, abs=1e-4)


def test_wilson_edges():
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(50, 50)
    assert hi == 1.0 and lo == pytest.approx(0.9287, abs=1e-4)
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and 0.27 < hi < 0.28
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_clustered_wilson_with_one_answer_per_item_is_wilson_on_the_items():
    import numpy as np

    from widthbench.subtasks.results.stats import clustered_wilson

    rng = np.random.default_rng(0)
    for m in (1, 7, 50, 263):
        y = (rng.random(m) < rng.random()).astype(int)
        assert clustered_wilson(y, [1] * m) == pytest.approx(wilson(int(y.sum()), m), abs=1e-12)
    assert clustered_wilson([3, 3], [3, 3]) == pytest.approx(wilson(2, 2))  # all right: one per item
    assert clustered_wilson([], []) == (0.0, 1.0)
    with pytest.raises(ValueError):
        clustered_wilson([2], [1])


def test_clustered_wilson_covers_where_the_plain_interval_over_samples_does_not():
    """Items of varied difficulty asked 5 times: the samples of an item agree more than chance.
    The clustered interval covers the mean accuracy over items about 95% of the time; Wilson's on
    all 500 samples, as if independent, far less (its interval is about sqrt(3) too narrow here)."""
    import numpy as np

    from widthbench.subtasks.results.stats import clustered_wilson

    rng = np.random.default_rng(11)
    items, samples, trials = 100, 5, 400
    true = 0.5  # the mean of Beta(0.5, 0.5): item accuracies spread from 0 to 1
    clustered = plain = 0
    for _ in range(trials):
        p = rng.beta(0.5, 0.5, size=items)
        right = rng.binomial(samples, p)
        lo, hi = clustered_wilson(right, [samples] * items)
        clustered += lo <= true <= hi
        lo, hi = wilson(int(right.sum()), items * samples)
        plain += lo <= true <= hi
    assert clustered / trials >= 0.93, clustered / trials
    assert plain / trials < 0.85, plain / trials
