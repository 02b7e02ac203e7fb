"""Difficulty features, bins, the logistic slope and accuracy by difficulty (issue 21).

Features are recomputed independently (breadth-first distances, the reference IW, atom sets); the
logistic fit is checked on its score equations and invariances; a simulated model whose error rate
grows with plan length by a known logistic slope gets that slope back inside the interval, and
sim:noisy:P gives flat curves (noise does not depend on difficulty); strata fill their bins exactly
or name each bin that fell short."""

from __future__ import annotations

import math
import random
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from widthbench.core.errors import UserError
from widthbench.planners import strips
from widthbench.planners.bfs import shortest_plan
from widthbench.planners.state_model import StripsModel
from widthbench.subtasks.results.difficulty import (FEATURES, Bin, auto_bins, bin_of, breakdown, parse_bins)
from widthbench.subtasks.items import ItemOptions, Pool, build_items
from widthbench.subtasks.results.stats import logistic_slope

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "planners"))
from iw_reference import reference_width  # noqa: E402

SUBTASKS = ("action-generation", "successor-mapping", "plan-verification", "novelty", "width-estimate")


@pytest.fixture(scope="module", params=["blocksworld", "logistics"])
def built(request):
    pool = Pool(request.param, 4, initial=5)
    return pool, {s: build_items(s, pool, 5) for s in SUBTASKS}


def test_features_equal_an_independent_computation(built):
    pool, items = built
    by_id = {pool.instance(i).id: i for i in range(len(pool))}
    for sub, its in items.items():
        for item in its:
            f = item.features
            task = item.task
            i = by_id[item.instance_id]
            assert f["objects"] == len(task.objects)
            assert f["plan-length"] == len(shortest_plan(task).plan)
            assert f["width"] == reference_width(StripsModel(task), pool.max_width) and f["max-width"] == 4
            assert f["atoms"] == len(strips.state_atoms(task, item.state))
            assert f["h-star"] == len(shortest_plan(task, item.state).plan)
            if sub == "novelty":
                assert f["list-length"] == len(item.previous) == item.info["list_length"]
                assert f["novelty-level"] is None or 1 <= f["novelty-level"] <= f["atoms"]
                # IW's verdict agrees: kept iff novelty <= width (and not a repeat)
                kept = item.truth
                assert kept == (f["novelty-level"] is not None and f["novelty-level"] <= item.width)
            else:
                assert "list-length" not in f
            if sub == "successor-mapping":
                s = set(strips.state_atoms(task, item.state))
                want = sum(len(s ^ set(strips.state_atoms(task, t))) for t in item.truth.values())
                assert f["atoms-changed"] == want
            assert set(f) <= set(FEATURES) | {"max-width"}
            assert pool.instance(i).id == item.instance_id


def test_width_above_the_cap_is_none_and_the_cap_is_recorded():
    pool = Pool("blocksworld", 4, initial=3, max_width=1)
    items = build_items("plan-verification", pool, 3)
    for item in items:
        w = reference_width(StripsModel(item.task), 1)
        assert item.features["width"] == w and item.features["max-width"] == 1
    assert any(item.features["width"] is None for item in items)


# ---- bins ---------------------------------------------------------------------------------------


def test_parse_bins_reads_ranges_and_refuses_overlaps_and_nonsense():
    assert parse_bins("9-12,2-4,5-8") == (Bin(2, 4), Bin(5, 8), Bin(9, 12))
    assert parse_bins("3") == (Bin(3, 3),)
    for bad in ("2-4,4-6", "4-2", "a-b", "2-4,", "1-2-3"):
        with pytest.raises(UserError):
            parse_bins(bad)
    bins = parse_bins("2-4,5-8")
    assert bin_of(4, bins) == Bin(2, 4) and bin_of(5, bins) == Bin(5, 8)
    assert bin_of(9, bins) is None and bin_of(None, bins) is None


@given(st.lists(st.integers(0, 40), min_size=1, max_size=200), st.integers(1, 9))
@settings(max_examples=200, deadline=None)
def test_auto_bins_put_every_value_in_exactly_one_bin(values, most):
    bins = auto_bins(values, most)
    assert len(bins) <= max(most, len(set(values)) if len(set(values)) <= most else most)
    for v in values:
        assert sum(b.holds(v) for b in bins) == 1
    assert all(a.hi < b.lo for a, b in zip(bins, bins[1:]))


# ---- the logistic slope ------------------------------------------------------------------------


def _sigmoid(z):
    return 1 / (1 + math.exp(-z))


@given(st.lists(st.tuples(st.integers(0, 12), st.booleans()), min_size=4, max_size=120))
@settings(max_examples=200, deadline=None)
def test_logistic_fit_solves_its_score_equations_and_flips_sign_with_the_outcomes(pairs):
    xs, ys = [x for x, _ in pairs], [int(y) for _, y in pairs]
    fit = logistic_slope(xs, ys)
    if fit["slope"] is None:
        assert fit["note"]
        return
    a, b = fit["intercept"], fit["slope"]
    p = [_sigmoid(a + b * x) for x in xs]
    # maximum likelihood: sum(y - p) = 0 and sum(x (y - p)) = 0 (up to the rounding to 4 places)
    assert abs(sum(y - q for y, q in zip(ys, p))) < 0.05 * len(xs)
    assert abs(sum(x * (y - q) for x, y, q in zip(xs, ys, p))) < 0.5 * len(xs)
    assert fit["slope_low"] <= b <= fit["slope_high"]
    flipped = logistic_slope(xs, [1 - y for y in ys])
    assert flipped["slope"] == pytest.approx(-b, abs=2e-4)
    shifted = logistic_slope([x + 5 for x in xs], ys)
    assert shifted["slope"] == pytest.approx(b, abs=2e-4)
    assert fit["odds_ratio"] == pytest.approx(math.exp(b), rel=1e-3)


def test_logistic_fit_recovers_a_known_slope_and_says_when_there_is_none():
    rng = random.Random(1)
    xs = [rng.randint(0, 12) for _ in range(5000)]
    ys = [int(rng.random() < _sigmoid(2.0 - 0.35 * x)) for x in xs]
    fit = logistic_slope(xs, ys)
    assert fit["slope_low"] < -0.35 < fit["slope_high"] and fit["slope_high"] - fit["slope_low"] < 0.1
    assert fit["intercept"] == pytest.approx(2.0, abs=0.2)
    assert logistic_slope([1, 2, 3], [1, 1, 1])["note"] == "every answer right"
    assert logistic_slope([2, 2, 2], [0, 1, 1])["note"].startswith("fewer than 2")
    assert "split perfectly" in logistic_slope([1, 2, 3, 4], [1, 1, 0, 0])["note"]


# ---- accuracy by difficulty on simulated runs ---------------------------------------------------


class PlanLengthNoise:
    """A test-helper simulated model: the oracle, wrong with probability 1 - sigmoid(A + B L), L
    the optimal plan length of the prompt's problem (computed by the engine)."""

    A, B = 3.0, -0.4

    def __init__(self):
        from widthbench.simulated import Simulator

        self.inner = Simulator()
        self._length: dict[str, int] = {}

    def answer(self, label, messages, thinking, rng):
        q = self.inner.reader.read(list(messages))
        task, state = q.task, q.state()  # the prompt's task (goal) and initial state
        key = (task.atoms, task.goal, state)
        if key not in self._length:
            self._length[key] = len(shortest_plan(task, state).plan)
        corrupt = rng.random() >= _sigmoid(self.A + self.B * self._length[key])
        text, _ = q.handler(q, "noisy", corrupt, rng)
        return text, None


def _run(tmp_path, model, subtask: str, count: int, seed: int) -> list[dict]:
    from widthbench.subtasks.score_run import ScoreConfig, read_records, run_score

    config = ScoreConfig(subtasks=(subtask,), styles=("pddl",), thinking=(False,), count=count, seed=seed)
    run_score(config, model, tmp_path / "run", quiet=True)
    return read_records(tmp_path / "run")


def test_a_model_whose_errors_grow_with_plan_length_gives_its_slope(tmp_path):
    from widthbench.llm import open_model

    model = open_model("sim:noisy:0", simulator=PlanLengthNoise(), cache_dir=tmp_path / "cache")
    records = _run(tmp_path, model, "plan-verification", 240, 7)
    got = breakdown(records, "plan-length")
    (fit,) = got["slopes"]
    assert fit["n"] == 240
    assert fit["slope_low"] < PlanLengthNoise.B < fit["slope_high"] < 0  # built-in slope, and not flat
    # the curve falls: the first populated bin's accuracy is above the last's
    rows = [r for r in got["rows"] if r["n"] >= 10]
    assert rows[0]["accuracy"] > rows[-1]["accuracy"]
    for r in got["rows"]:
        assert r["n"] == sum(1 for x in records if x["features"]["plan-length"] == r["bin_lo"])


def test_noisy_model_gives_flat_curves_within_their_intervals(tmp_path):
    from widthbench.simulated import open_model

    p = 0.3
    model = open_model(f"sim:noisy:{p}", cache_dir=tmp_path / "cache")
    records = _run(tmp_path, model, "plan-verification", 200, 3)
    got = breakdown(records, "plan-length")
    (fit,) = got["slopes"]
    assert fit["slope_low"] < 0 < fit["slope_high"]
    for r in got["rows"]:
        assert r["ci_low"] <= 1 - p <= r["ci_high"], r
    assert sum(r["n"] for r in got["rows"]) == 200
    assert np.isclose(sum(r["correct"] for r in got["rows"]), sum(bool(x["correct"]) for x in records))


# ---- strata ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def folder_pool():
    from widthbench.generators import generate

    insts = generate("blocksworld", 14, 9)
    return insts, Counter(i.optimal_length for i in insts)


@st.composite
def _bins(draw):
    edges = sorted(draw(st.sets(st.integers(1, 17), min_size=2, max_size=6)))
    pairs = [(a, b - 1) for a, b in zip(edges, edges[1:]) if b - 1 >= a]
    return pairs or [(edges[0], edges[-1])]


@given(_bins(), st.integers(1, 5))
@settings(max_examples=30, deadline=None)
def test_strata_fill_every_bin_exactly_or_name_each_short_bin_with_its_count(folder_pool, pairs, per_bin):
    from widthbench.subtasks.items import NotEnoughItems, Strata

    insts, lengths = folder_pool
    bins = tuple(Bin(a, b) for a, b in pairs)
    available = {b: sum(n for k, n in lengths.items() if b.holds(k)) for b in bins}
    pool = Pool(None, 0, instances=insts)
    strata = Strata("plan-length", bins, per_bin)
    if all(n >= per_bin for n in available.values()):
        items = build_items("plan-verification", pool, 1, strata=strata)
        got = Counter(bin_of(it.features["plan-length"], bins) for it in items)
        assert got == {b: per_bin for b in bins}
        assert [it.index for it in items] == list(range(len(items)))
    else:
        with pytest.raises(NotEnoughItems) as exc:
            build_items("plan-verification", pool, 1, strata=strata)
        text = str(exc.value)
        for b, n in available.items():
            assert (f"bin {b} fell short: found {n} of {per_bin}" in text) == (n < per_bin)
        assert f"all {len(insts)} instances of the folder" in text
