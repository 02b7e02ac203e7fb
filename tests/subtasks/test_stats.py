from __future__ import annotations

import pytest

from widthbench.subtasks.stats import wilson


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
