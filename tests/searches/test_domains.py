"""Game of 24 and --tasks question sets as search problems."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from widthbench.core.errors import ParseError, UserError
from widthbench.searches import question_sets
from widthbench.searches import game24_problem as game24
from widthbench.searches.config import SearchConfig
from widthbench.searches.solve_run import load_problems, read_items, solve


def test_game24_steps_are_exact():
    s = game24.numbers("4 6 8")
    assert game24.apply(s, ((4, 1), "+", (8, 1))) == game24.numbers("6 12")
    assert game24.apply(s, ((4, 1), "/", (6, 1))) == game24.numbers("2/3 8")
    assert game24.apply(s, ((5, 1), "+", (8, 1))) is None
    assert game24.apply(game24.numbers("0 3"), ((3, 1), "/", (0, 1))) is None
    action, result, rest = game24.parse_step("4 + 8 = 12 (left: 6 12)")
    assert action == ((4, 1), "+", (8, 1)) and result == "12" and rest.startswith("(left")
    assert game24.parse_step("(1/2) × 8")[0] == ((1, 2), "*", (8, 1))
    with pytest.raises(ParseError):
        game24.parse_step("add four and eight")
    assert game24.evaluate("(6 - 4) * (4 + 8)") == (Fraction(24), [6, 4, 4, 8])
    with pytest.raises(ParseError):
        game24.evaluate("__import__('os')")


def test_game24_one_step_answers_are_one_line_and_say_how_many_they_found():
    p = load_problems("game24", rows="901-905")[0]
    assert p.parse_next_action("Answer:\n4 + 8 = 12", p.initial) == ((4, 1), "+", (8, 1))
    assert p.parse_direct("4 + 8 = 12 (left: 6 12)", p.initial) == (((4, 1), "+", (8, 1)), game24.numbers("6 12"))
    with pytest.raises(ParseError, match=r"^expected one step, found 2 lines$"):
        p.parse_next_action("4 + 8 = 12\n6 * 2 = 12", p.initial)
    with pytest.raises(ParseError, match=r"^expected one step line, found 0 lines$"):
        p.parse_direct("  \n", p.initial)
    with pytest.raises(ParseError, match=r"no '\(left: \.\.\.\)' list after the step in '4 \+ 8 = 12'"):
        p.parse_direct("4 + 8 = 12", p.initial)


def test_game24_problem_checks_plans_and_expressions():
    p = load_problems("game24", rows="901-905")[0]
    sol = game24.solution_expression(p.initial)
    assert sol and p.check(sol)["solved"]
    assert not p.check("+".join(map(str, p.puzzle.numbers)))["solved"]
    steps, s = [], p.initial
    while s != game24.GOAL:  # follow the engine's best-first steps
        a, s = p.engine_ranked(s)[0]
        steps.append(a)
    assert p.check(steps)["solved"] and len(steps) == 3
    assert not p.check(steps[:2])["solved"]


@pytest.mark.parametrize("method", ["naive", "tot-bfs", "tot-dfs", "mcts", "cat"])
def test_game24_oracle_model_solves_tot_rows(model_factory, tmp_path, method):
    problems = load_problems("game24", count=4, seed=2)
    assert all(901 <= p.puzzle.rank <= 1000 for p in problems)
    model = model_factory()
    for mapping, novelty in (("direct", "oracle"), ("esa", "llm")):
        s = solve(SearchConfig(method=method, mapping=mapping, novelty=novelty, seed=2), problems, model,
                  tmp_path / mapping, progress=False)
        assert s["solved"] == s["n"] == 4, (method, mapping)


def test_answer_checker():
    assert question_sets.answers_equal("395", "395")
    assert question_sets.answers_equal("\\boxed{\\frac{3}{4}}", "3/4")
    assert question_sets.answers_equal("0.75", "\\dfrac{3}{4}")
    assert question_sets.answers_equal("$x^2$", "x^2")
    assert not question_sets.answers_equal("396", "395") and not question_sets.answers_equal(None, "1")
    assert question_sets.final_answer("work\nFinal answer: 12") == "12"
    assert question_sets.final_answer("so \\boxed{7}") == "7"


def test_tasks_file_solved_by_oracle_arithmetic(model_factory, tmp_path):
    f = tmp_path / "qa.jsonl"
    rows = [{"id": "a", "question": "What is 17 * 23 + 4?", "answer": "395"},
            {"problem": "Compute 1/2 + 1/4.", "solution": "We get $\\boxed{\\frac{3}{4}}$."},
            {"id": "c", "question": "Name the capital of France.", "answer": "Paris"}]
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    problems = load_problems(None, tasks=str(f))
    model = model_factory()
    for method, mapping in (("naive", "direct"), ("tot-dfs", "direct"), ("mcts", "esa"), ("cat", "esa")):
        s = solve(SearchConfig(method=method, mapping=mapping, novelty="llm", seed=1), problems, model,
                  tmp_path / f"{method}-{mapping}", progress=False)
        items = {it["id"]: it for it in read_items(tmp_path / f"{method}-{mapping}")}
        assert items["a"]["solved"] and items["task-0002"]["solved"] and not items["c"]["solved"]
        assert s["solved"] == 2
    with pytest.raises(UserError, match="novelty oracle"):
        solve(SearchConfig(method="tot-bfs", novelty="oracle"), problems, model, tmp_path / "x", progress=False)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "no answer"}\n')
    with pytest.raises(UserError, match="bad.jsonl:1"):
        load_problems(None, tasks=str(bad))
