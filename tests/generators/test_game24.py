"""The Game of 24 state model: puzzles, exact arithmetic, actions, atoms, goal."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from widthbench.core.errors import UserError
from widthbench.generators.game24 import Game24Model, StateSpace, load_puzzles, make_state, parse_rows
from widthbench.planners.iw import iterated_width
from tests.planners.iw_reference import reference_width


def _replay(numbers, steps) -> list[Fraction]:
    """Apply the steps' arithmetic with Fractions, independently of the model."""
    pool = [Fraction(x) for x in numbers]
    for s in steps:
        x, y = Fraction(*s.x), Fraction(*s.y)
        pool.remove(x)
        pool.remove(y)
        v = {"+": x + y, "-": x - y, "*": x * y, "/": x / y}[s.op]
        assert v == Fraction(*s.result)
        pool.append(v)
    return pool


def test_puzzle_file_and_tot_test_split():
    all_ = load_puzzles()
    assert len(all_) == 1362 and all_[0].numbers == (1, 1, 4, 6) and all_[0].rank == 1
    test = load_puzzles("901-1000")
    assert len(test) == 100
    assert (test[0].text, test[-1].text) == ("4 5 6 10", "4 9 10 13")
    assert [p.rank for p in load_puzzles("1,5,7-9")] == [1, 5, 7, 8, 9]
    for bad in ("0-3", "5-2", "x", "1-2000"):
        with pytest.raises(UserError):
            parse_rows(bad, 1362)


def test_known_solvable_puzzles_reach_24():
    for numbers in ((4, 4, 6, 8), (1, 1, 4, 6), (4, 5, 6, 10)):
        m = Game24Model(numbers)
        sol = m.solution()
        assert sol is not None and len(sol) == 3
        assert _replay(numbers, sol) == [24]
        res = iterated_width(m, 3)
        assert res.width is not None and _replay(numbers, res.last.plan) == [24]


def test_exact_rationals_1_3_4_6():
    m = Game24Model((1, 3, 4, 6))
    sol = m.solution()
    assert sol is not None
    assert _replay((1, 3, 4, 6), sol) == [24]
    # the only way: 6 / (1 - 3/4); the intermediate values are exact fractions, not floats
    assert {Fraction(*s.result) for s in sol} == {Fraction(3, 4), Fraction(1, 4), Fraction(24)}
    assert str(sol[-1]) == "6 / (1/4) = 24 (left: 24)"
    s = m.state([Fraction(1, 3), 3])
    assert any(c is m.state([1]) for _, c in m.successors(s))  # 1/3 * 3 = 1 exactly


def test_unsolvable_puzzle_has_no_width():
    m = Game24Model((1, 1, 1, 1))
    assert m.solution() is None
    res = iterated_width(m, 4)
    assert res.width is None and res.unsolvable


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-3, 13), min_size=1, max_size=4))
def test_division_by_zero_never_happens(numbers):
    space = StateSpace()
    m = Game24Model(numbers, space=space)
    for s in space.reachable(m.root):
        for step, child in m.successors(s):
            if step.op == "/":
                assert step.y[0] != 0
            assert len(child) == len(s) - 1
            assert all(d > 0 for _, d in child.numbers)


def test_actions_per_pair_and_their_order():
    m = Game24Model((2, 5))
    assert [str(a) for a, _ in m.successors(m.root)] == [
        "2 + 5 = 7 (left: 7)", "5 - 2 = 3 (left: 3)", "2 - 5 = -3 (left: -3)", "2 * 5 = 10 (left: 10)",
        "5 / 2 = 5/2 (left: 5/2)", "2 / 5 = 2/5 (left: 2/5)"]
    same = Game24Model((3, 3))  # equal values: subtraction and division once
    assert [str(a) for a, _ in same.successors(same.root)] == [
        "3 + 3 = 6 (left: 6)", "3 - 3 = 0 (left: 0)", "3 * 3 = 9 (left: 9)", "3 / 3 = 1 (left: 1)"]
    zero = Game24Model((0, 4))
    assert [a.op for a, _ in zero.successors(zero.root)] == ["+", "-", "-", "*", "/"]  # no 4 / 0
    four = Game24Model((4, 4, 6, 8))  # value pairs: {4,4}, {4,6}, {4,8}, {6,8} (each 4 is the same choice)
    assert len(four.successors(four.root)) == 4 + 6 + 6 + 6


def test_atoms_distinguish_multisets():
    space = StateSpace()
    m = Game24Model((4, 4, 6, 8), space=space)
    masks = {}
    for s in space.reachable(m.root):
        masks.setdefault(m.atom_mask(s), set()).add(s)
    assert all(len(v) == 1 for v in masks.values())  # no two reachable states share their atoms
    a, b = m.state([4, 4, 6]), m.state([4, 6, 6])
    assert m.atom_mask(a) != m.atom_mask(b)
    texts = sorted(m.describe_atom(i) for i in m.atoms(a))
    assert texts == ["4", "4 (copy 2)", "6", "count=3"]
    assert m.is_goal(m.state([24])) and not m.is_goal(m.state([24, 1]))
    assert m.atom_mask(m.state([24])) == m.goal_mask


def test_states_are_interned_per_space():
    space = StateSpace()
    m1, m2 = Game24Model((1, 2, 3, 4), space=space), Game24Model((4, 3, 2, 1), space=space)
    assert m1.root is m2.root
    assert make_state([Fraction(1, 2), 1]) == ((1, 1), (1, 2))
    assert m1.state([Fraction(2, 4)]) is m1.state([(1, 2)])


def test_tree_size_counts_every_path():
    def brute(m, s):
        return 1 + sum(brute(m, c) for _, c in m.successors(s))

    for numbers in ((1, 2, 3, 4), (4, 4, 6, 8), (1, 1, 1, 1)):
        m = Game24Model(numbers)
        assert m.tree_size() == brute(m, m.root)
    # 6 actions per pair of distinct non-zero values: 1 + 36 + 36*18 + 36*18*6 at most
    assert Game24Model((1, 2, 3, 4)).tree_size() <= 1 + 36 + 36 * 18 + 36 * 18 * 6


def test_generic_iw_on_game24_matches_the_reference():
    for p in load_puzzles("1-6,901-904"):
        m = Game24Model(p.numbers)
        for gt in ("after-prune", "before-prune"):
            assert iterated_width(m, 3, goal_test=gt).width == reference_width(m, 3, gt)
