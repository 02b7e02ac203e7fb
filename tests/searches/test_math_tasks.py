"""MATH-format --tasks (issue 32): MATH's own JSON files (problem, level, type, solution with
\\boxed{}), a folder of them, --level, and final answers judged by mathematical equivalence
(math-verify), not by string match."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from widthbench.cli import main
from widthbench.core.errors import UserError
from widthbench.searches.question_sets import answers_equal, parse_levels, read_tasks

pytest.importorskip("math_verify")


def _forms(x: Fraction) -> list[str]:
    """Ways a MATH answer writes the rational ``x``."""
    p, q = x.numerator, x.denominator
    sign = "-" if p < 0 else ""
    forms = [f"\\frac{{{p}}}{{{q}}}", f"{sign}\\dfrac{{{abs(p)}}}{{{q}}}", f"{p}/{q}",
             f"\\boxed{{{sign}\\frac{{{abs(p) * 3}}}{{{q * 3}}}}}", f"${sign}\\tfrac{{{abs(p)}}}{{{q}}}$"]
    if q == 1:
        forms.append(str(p))
    d = q
    for prime in (2, 5):
        while d % prime == 0:
            d //= prime
    if d == 1:  # a terminating decimal
        forms.append(f"{float(x):.10f}".rstrip("0") + "0")
    return forms


fractions = st.fractions(min_value=-50, max_value=50, max_denominator=40)


@settings(max_examples=40, deadline=None)
@given(fractions, st.data())
def test_equal_answers_in_different_forms_are_judged_equal(x, data):
    forms = _forms(x)
    a = data.draw(st.sampled_from(forms))
    b = data.draw(st.sampled_from(forms))
    assert answers_equal(a, b), (a, b)


@settings(max_examples=40, deadline=None)
@given(fractions, fractions, st.data())
def test_unequal_answers_are_judged_unequal(x, y, data):
    if x == y:
        return
    a = data.draw(st.sampled_from(_forms(x)))
    b = data.draw(st.sampled_from(_forms(y)))
    assert not answers_equal(a, b), (a, b)


@pytest.mark.parametrize("given_, gold, equal", [
    ("\\sqrt{8}", "2\\sqrt{2}", True),
    ("x^2+2x", "x(x+2)", True),
    ("\\frac{\\pi}{2}", "\\pi/2", True),
    ("0.33", "\\frac{1}{3}", False),
    ("(1,2)", "(2,1)", False),
    ("\\sqrt{3}", "\\sqrt{2}", False),
])
def test_symbolic_answers(given_, gold, equal):
    assert answers_equal(given_, gold) is equal


def _math_folder(root, rows):
    for n, (typ, level, problem, answer) in enumerate(rows, 1):
        folder = root / "test" / typ
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{n}.json").write_text(json.dumps({
            "problem": problem, "level": f"Level {level}", "type": typ.title(),
            "solution": f"We compute it. The answer is $\\boxed{{{answer}}}$."}))
    return root / "test"


def test_math_folder_is_read_with_ids_levels_and_types(tmp_path):
    root = _math_folder(tmp_path, [("algebra", 5, "What is 1 + 1?", "2"),
                                   ("prealgebra", 2, "What is 3 * 3?", "\\frac{18}{2}")])
    rows = read_tasks(root)
    assert [(r["id"], r["level"], r["type"], r["answer"]) for r in rows] == [
        ("algebra/1", 5, "Algebra", "2"), ("prealgebra/2", 2, "Prealgebra", "\\frac{18}{2}")]
    assert [r["id"] for r in read_tasks(root, "4-5")] == ["algebra/1"]
    with pytest.raises(UserError, match="no questions at --level 3"):
        read_tasks(root, "3")


def test_json_list_and_single_object_files(tmp_path):
    one = tmp_path / "one.json"
    one.write_text(json.dumps({"problem": "What is 2 + 2?", "level": "Level 1", "solution": "\\boxed{4}"}))
    many = tmp_path / "many.json"
    many.write_text(json.dumps([{"problem": "a?", "solution": "\\boxed{1}"}, {"question": "b?", "answer": "2"}]))
    assert [r["answer"] for r in read_tasks(one)] == ["4"]
    assert [r["answer"] for r in read_tasks(many)] == ["1", "2"]


@pytest.mark.parametrize("text", ["five", "3-1", "0"])
def test_bad_levels_are_one_line_errors(text):
    with pytest.raises(UserError, match="--level"):
        parse_levels(text)


def test_solve_judges_math_answers_by_equivalence(tmp_path, capsys):
    # sim:oracle answers the arithmetic as "1/2"; the gold answers are other forms of it, or wrong.
    root = _math_folder(tmp_path, [("algebra", 3, "What is 1 / 4 + 1 / 4?", "\\dfrac12"),
                                   ("algebra", 3, "What is 3 / 4 - 1 / 4?", "0.50"),
                                   ("algebra", 3, "What is 1 / 6 + 1 / 6?", "\\tfrac{2}{6}"),
                                   ("algebra", 3, "What is 1 / 2 + 0?", "\\frac{1}{3}"),
                                   ("algebra", 1, "What is 1 + 1?", "2")])
    out = tmp_path / "run"
    assert main(["solve", "--tasks", str(root), "--level", "3", "--method", "naive", "--model", "sim:oracle",
                 "--no-cache", "--quiet", "--out", str(out)]) == 0
    items = {it["id"]: it for it in map(json.loads, (out / "items.jsonl").read_text().splitlines())}
    assert sorted(items) == ["algebra/1", "algebra/2", "algebra/3", "algebra/4"]
    assert {k: it["solved"] for k, it in items.items()} == {
        "algebra/1": True, "algebra/2": True, "algebra/3": True, "algebra/4": False}
