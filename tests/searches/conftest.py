"""Fixtures for the search tests: a few Blocksworld instances of optimal length <= 8."""

from __future__ import annotations

import pytest

from widthbench.simulated import open_model


@pytest.fixture(scope="session")
def bw_problems():
    from widthbench.searches.solve_run import load_problems

    problems = load_problems("blocksworld", count=6, seed=11, max_plan_length=8)
    assert all(p.optimal_length <= 8 for p in problems)
    return problems


@pytest.fixture()
def model_factory(tmp_path):
    def make(spec: str = "sim:oracle", cache: str = "cache"):
        return open_model(spec, cache_dir=tmp_path / cache)

    return make
