"""The rows of `widthbench compare`: alignment by item id, the test each cell gets, Holm over the grid,
the planning columns, and the refusals."""

from __future__ import annotations

import numpy as np
import pytest

from widthbench.core.errors import UserError
from widthbench.subtasks.results.comparison import (AMOUNT, CSV_COLUMNS, MCNEMAR, NO_TEST, SIGN_FLIP_EXACT, SIGN_FLIP_MC,
                                         ComparedCell, CellOutcomes, Outcome, compare_cells)
from widthbench.subtasks.results.paired import detectable_difference, holm, items_needed, mcnemar_exact

SUBTASKS = ("action-generation", "successor", "plan-verification", "novelty")


def _cell(sub, style="pddl", thinking="off", metric="exact"):
    return ComparedCell(sub, style, thinking, "off", "blocksworld", metric)


def _run(rng, difficulty, noise, samples=1):
    """One answer (or ``samples``) per item: right unless the item is hard for the model or the noise
    strikes; a harder item is hard for every model (runs on the same items are correlated)."""
    p = (1 - noise) * (1 - difficulty)
    return rng.binomial(samples, p)


def _grid(seed, noise_a, noise_b, items=200, same=False):
    rng = np.random.default_rng(seed)
    ids = [f"bw-{i:03d}" for i in range(items)]
    cells = []
    for sub in SUBTASKS:
        for style in ("pddl", "nl"):
            difficulty = rng.uniform(0, 0.3, items)
            a = _run(rng, difficulty, noise_a)
            b = a if same else _run(rng, difficulty, noise_b)
            cells.append(CellOutcomes(_cell(sub, style), tuple(Outcome(i, float(x), 1) for i, x in zip(ids, a)),
                                      tuple(Outcome(i, float(x), 1) for i, x in zip(ids, b))))
    # five samples per item, and tokens per answer
    difficulty = rng.uniform(0, 0.3, items)
    a = _run(rng, difficulty, noise_a, 5)
    b = a if same else _run(rng, difficulty, noise_b, 5)
    cells.append(CellOutcomes(_cell("successor", metric="exact@5"), tuple(Outcome(i, float(x), 5) for i, x in zip(ids, a)),
                              tuple(Outcome(i, float(x), 5) for i, x in zip(ids, b))))
    ta = rng.gamma(4, 100, items)
    tb = ta if same else ta * rng.uniform(1.1, 1.6, items)
    cells.append(CellOutcomes(_cell("successor", metric="completion_tokens"),
                              tuple(Outcome(i, float(x), 1) for i, x in zip(ids, ta)),
                              tuple(Outcome(i, float(x), 1) for i, x in zip(ids, tb)), kind=AMOUNT))
    return cells


def test_noisy_01_against_noisy_04_is_found_in_every_cell():
    rows = compare_cells(_grid(1, 0.1, 0.4), seed=0)
    assert len(rows) == 10
    for r in rows:
        assert r.n == 200 and r.p < 0.01 and r.p_adjusted < 0.01, r
        assert r.ci_low <= r.diff <= r.ci_high
    rates = [r for r in rows if r.kind != AMOUNT]
    assert all(r.diff < 0 and r.ci_high < 0 for r in rates)  # B (noisier) is worse: B - A < 0
    assert [r.test for r in rows] == [MCNEMAR] * 8 + [SIGN_FLIP_MC, SIGN_FLIP_MC]
    tokens = rows[-1]
    assert tokens.diff > 0 and tokens.a == pytest.approx(tokens.value_a)


def test_a_run_against_itself_gives_difference_0_and_p_1():
    rows = compare_cells(_grid(2, 0.2, 0.2, same=True), seed=0)
    for r in rows:
        assert (r.diff, r.ci_low, r.ci_high, r.p, r.p_adjusted) == (0, 0, 0, 1, 1), r
        assert r.a == r.b
    mc = [r for r in rows if r.test == MCNEMAR]
    assert all(r.discordant == (0, 0) and r.detectable is None and r.needed is None for r in mc)
    assert {r.test for r in rows} == {MCNEMAR, SIGN_FLIP_EXACT}  # nothing differs: the 1 swap is exact


def test_a_cell_counts_right_answers_discordance_and_plans_from_them():
    ids = [f"i{k}" for k in range(50)]
    a = [1] * 22 + [0] * 28
    b = [1] * 15 + [0] * 7 + [1] * 8 + [0] * 20  # 15 both, 7 only A, 8 only B
    co = CellOutcomes(_cell("plan-verification"), tuple(Outcome(i, x, 1) for i, x in zip(ids, a)),
                      tuple(Outcome(i, x, 1) for i, x in zip(ids, b)))
    [r] = compare_cells([co], seed=0, target=0.2)
    assert (r.n, r.a, r.b, r.discordant) == (50, 22, 23, (8, 7))
    assert r.diff == pytest.approx(1 / 50) and r.p == mcnemar_exact(8, 7) == r.p_adjusted
    assert r.detectable == detectable_difference(50, 15 / 50)
    assert r.target == 0.2 and r.needed == items_needed(0.2, 15 / 50)
    [r_default] = compare_cells([co], seed=0)
    assert r_default.target == pytest.approx(1 / 50) and r_default.needed == items_needed(1 / 50, 15 / 50)


def test_items_align_by_id_not_by_order_and_uncommon_items_are_counted():
    rng = np.random.default_rng(5)
    ids = [f"x{k}" for k in range(120)]
    a = [Outcome(i, float(v), 1) for i, v in zip(ids, rng.random(120) < 0.7)]
    b = [Outcome(i, float(v), 1) for i, v in zip(ids, rng.random(120) < 0.5)]
    cell = _cell("novelty")
    [ref] = compare_cells([CellOutcomes(cell, tuple(a[:100]), tuple(b[10:]))], seed=3)
    assert (ref.n, ref.only_a, ref.only_b) == (90, 10, 20)
    shuffled = [b[k] for k in rng.permutation(np.arange(10, 120))]
    [got] = compare_cells([CellOutcomes(cell, tuple(reversed(a[:100])), tuple(shuffled))], seed=3)
    assert got == ref
    common_a = sum(o.right for o in a[10:100])
    assert ref.a == common_a and ref.value_a == pytest.approx(common_a / 90)


def test_a_cells_interval_depends_on_its_seed_and_itself_not_on_the_grid():
    cells = _grid(3, 0.1, 0.3, items=60)
    rows = compare_cells(cells, seed=11)
    again = compare_cells(list(reversed(cells)), seed=11)
    assert [(r.ci_low, r.ci_high) for r in rows] == [(r.ci_low, r.ci_high) for r in reversed(again)]
    other = compare_cells(cells, seed=12)
    assert any((r.ci_low, r.ci_high) != (o.ci_low, o.ci_high) for r, o in zip(rows, other))


def test_holm_runs_over_the_whole_grid_and_cells_without_items_are_left_out():
    cells = _grid(4, 0.15, 0.25, items=80)
    only_a = CellOutcomes(_cell("successor", "nl", "on"), cells[0].a, ())
    rows = compare_cells(cells + [only_a], seed=0)
    assert rows[-1].test == NO_TEST and rows[-1].n == 0 and rows[-1].p is None and rows[-1].only_a == 80
    assert [r.p_adjusted for r in rows] == holm([r.p for r in rows])
    assert any(r.p_adjusted > r.p for r in rows[:-1])


def test_counts_and_samples_get_the_sign_flip_test_exact_when_few_items_differ():
    ids = [f"s{k}" for k in range(30)]
    a = tuple(Outcome(i, 3, 5) for i in ids)
    b = tuple(Outcome(i, 3 if k >= 6 else 5, 5) for k, i in enumerate(ids))  # 6 items differ, all for B
    [r] = compare_cells([CellOutcomes(_cell("successor", metric="per-action"), a, b)], seed=0)
    assert r.test == SIGN_FLIP_EXACT and r.p == pytest.approx(2 / 2 ** 6)
    assert r.diff == pytest.approx(12 / 150) and r.discordant is None and r.needed is None


def test_csv_row_has_exactly_the_contract_columns():
    [r] = compare_cells(_grid(6, 0.1, 0.4, items=40)[:1], seed=0)
    row = r.csv_row()
    assert tuple(row) == CSV_COLUMNS == ("subtask", "style", "thinking", "extension", "domain", "metric", "n",
                                         "a", "b", "diff", "ci_low", "ci_high", "p", "p_adjusted", "test")
    assert row["p"] > 0  # a tiny p keeps its digits instead of rounding to 0


def test_refusals_are_one_line_user_errors():
    a = (Outcome("a1", 1, 1), Outcome("a2", 0, 1))
    b = (Outcome("b1", 1, 1),)
    with pytest.raises(UserError, match="no item in common") as err:
        compare_cells([CellOutcomes(_cell("novelty"), a, b)], seed=0)
    assert "\n" not in str(err.value)
    with pytest.raises(UserError, match="item a1 appears 2 times"):
        compare_cells([CellOutcomes(_cell("novelty"), a + a[:1], a)], seed=0)
    with pytest.raises(UserError, match="target"):
        compare_cells([CellOutcomes(_cell("novelty"), a, a)], seed=0, target=0)
