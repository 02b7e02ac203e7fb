"""`StripsProblem.width()`: the instance width the oracle novelty prunes at (issue 25)."""

from __future__ import annotations

from widthbench.generators import Instance
from widthbench.planners.iw import DEFAULT_MAX_WIDTH, iterated_width
from widthbench.planners.state_model import StripsModel
from widthbench.searches.strips_problem import StripsProblem

SOLVED = """(define (problem done) (:domain blocksworld) (:objects a b)
 (:init (clear a) (on a b) (ontable b) (handempty)) (:goal (and (on a b))))"""
ONE_STEP = """(define (problem one) (:domain blocksworld) (:objects a b)
 (:init (clear a) (clear b) (ontable a) (ontable b) (handempty)) (:goal (and (holding a))))"""


def _problem(name: str, text: str) -> StripsProblem:
    return StripsProblem(Instance(id=name, domain="blocksworld", problem_pddl=text), style="pddl")


def test_a_goal_true_initially_has_width_0_not_the_limit():
    assert _problem("done", SOLVED).width() == 0


def test_the_width_is_iw_s_and_the_limit_is_the_shared_default():
    p = _problem("one", ONE_STEP)
    assert p.width() == iterated_width(StripsModel(p.task), DEFAULT_MAX_WIDTH).width == 1
    assert DEFAULT_MAX_WIDTH == 4
