"""Ground truth: h*(s) and the set of optimal next actions, on hand-built states and exhaustively."""

from __future__ import annotations

import math

import pytest

from widthbench.planners.optimal import Unsolvable
from widthbench.planners.strips import (applicable_actions, ground, load_domain, load_task, parse_action,
                                        parse_domain_text, state_from_atoms, successor)
from widthbench.planners.ground_truth import GroundTruth, h_star, optimal_next_actions
from tests.conftest import PLANBENCH, need_data

PB = PLANBENCH
HARD = PB / "llm_planning_analysis" / "instances" / "blocksworld_hard"


def bw(objects, init, goal, name="bw"):
    return ground(load_domain("blocksworld"), objects, init, goal, name=name)


def sussman():
    return bw(["a", "b", "c"], ["(on c a)", "(ontable a)", "(ontable b)", "(clear c)", "(clear b)", "(handempty)"],
              ["(on a b)", "(on b c)"], name="sussman")


def names(actions):
    return [str(a) for a in actions]


@pytest.mark.parametrize("options", [{}, {"max_space": 0, "planner": "exact"}, {"max_space": 0, "planner": "fd"}])
def test_sussman_anomaly_h_star_6_and_its_only_optimal_first_action_is_unstack_c_a(options):
    gt = GroundTruth(sussman(), **options)
    assert gt.h_star() == 6
    assert names(gt.optimal_next_actions()) == ["(unstack c a)"]
    assert len(gt.optimal_plan()) == 6


def test_sussman_after_the_wrong_first_move():
    task = sussman()
    s = successor(task.init, parse_action(task, "(pick-up b)"))
    gt = GroundTruth(task)
    assert gt.h_star(s) == 7
    assert names(gt.optimal_next_actions(s)) == ["(put-down b)"]  # stack b c would bury a


def test_ties_give_every_optimal_next_action_sorted():
    # two towers a/b and c/d; goal: everything on the table -> either tower can be taken down first
    task = bw(["a", "b", "c", "d"],
              ["(on a b)", "(on c d)", "(ontable b)", "(ontable d)", "(clear a)", "(clear c)", "(handempty)"],
              ["(ontable a)", "(ontable c)"])
    gt = GroundTruth(task)
    assert gt.h_star() == 4
    assert names(gt.optimal_next_actions()) == ["(unstack a b)", "(unstack c d)"]
    assert gt.is_optimal_next_action(task.init, "(unstack c d)")
    assert not gt.is_optimal_next_action(task.init, "(stack a a)")


def test_goal_state_has_h_star_0_and_no_next_action():
    task = sussman()
    goal = state_from_atoms(task, ["(on a b)", "(on b c)", "(ontable c)", "(clear a)", "(handempty)"])
    for gt in (GroundTruth(task), GroundTruth(task, max_space=0, planner="exact")):
        assert gt.h_star(goal) == 0 and gt.optimal_next_actions(goal) == [] and gt.optimal_plan(goal) == ()


def test_hand_built_state_outside_the_initial_space_is_handled():
    task = sussman()
    held = state_from_atoms(task, ["(holding a)", "(on c b)", "(ontable b)", "(clear c)"])
    gt = GroundTruth(task)
    # put a down, unstack c, put c down, pick b, stack b c, pick a, stack a b
    assert gt.h_star(held) == 7
    assert names(gt.optimal_next_actions(held)) == ["(put-down a)"]
    assert gt.h_star(held) == GroundTruth(task, max_space=0, planner="exact").h_star(held)


def test_definition_holds_on_every_state_of_a_4_block_space():
    from widthbench.generators import generate

    task = generate("blocksworld", 1, 4, blocks="4", optimal=False)[0].task()
    gt = GroundTruth(task)
    gt.h_star()
    assert gt.exhaustive and len(gt._h) == 125
    for s in list(gt._h):
        h = gt.h_star(s)
        best = {a.id for a in gt.optimal_next_actions(s)}
        for a in applicable_actions(task, s):
            assert (a.id in best) == (h > 0 and gt.h_star(successor(s, a)) == h - 1)
        if h > 0:
            assert best


def test_enumerated_and_per_state_search_agree_on_random_states():
    import random

    from widthbench.generators import generate

    rng = random.Random(5)
    for inst in (generate("blocksworld", 3, 6, blocks="4-5", optimal=False)
                 + generate("logistics", 3, 6, cities="1-2", locations="2", airplanes="1", packages="1-2",
                            optimal=False)):
        task = inst.task()
        enum, search = GroundTruth(task), GroundTruth(task, max_space=0, planner="exact")
        s = task.init
        for _ in range(6):
            assert enum.h_star(s) == search.h_star(s)
            assert names(enum.optimal_next_actions(s)) == names(search.optimal_next_actions(s))
            s = successor(s, rng.choice(applicable_actions(task, s)))


def test_self_loop_moves_are_never_optimal():
    dom = load_domain("logistics")
    task = ground(dom, ["t", "p", "l1", "l2", "c", "a"],
                  ["(truck t)", "(package p)", "(location l1)", "(location l2)", "(city c)", "(airplane a)",
                   "(in-city l1 c)", "(in-city l2 c)", "(at t l1)", "(at p l1)", "(at a l1)", "(airport l1)"],
                  ["(at p l2)"])
    gt = GroundTruth(task)
    assert gt.h_star() == 3
    assert "(drive-truck t l1 l1 c)" in names(applicable_actions(task, task.init))
    assert names(gt.optimal_next_actions()) == ["(load-truck p t l1)"]


DEAD_END_DOMAIN = """
(define (domain vase)
  (:requirements :strips)
  (:predicates (intact) (on-shelf) (on-floor))
  (:action drop :parameters () :precondition (and (on-shelf) (intact))
     :effect (and (on-floor) (not (on-shelf)) (not (intact))))
  (:action lower :parameters () :precondition (and (on-shelf) (intact))
     :effect (and (on-floor) (not (on-shelf)))))
"""


@pytest.mark.parametrize("options", [{}, {"max_space": 0, "planner": "exact"}])
def test_dead_ends_have_infinite_h_star_and_no_optimal_action(options):
    dom = parse_domain_text(DEAD_END_DOMAIN, "vase")
    task = ground(dom, [], ["(intact)", "(on-shelf)"], ["(on-floor)", "(intact)"], name="vase")
    gt = GroundTruth(task, **options)
    assert gt.h_star() == 1 and names(gt.optimal_next_actions()) == ["(lower)"]
    broken = successor(task.init, parse_action(task, "(drop)"))
    assert gt.h_star(broken) == math.inf and gt.optimal_next_actions(broken) == []
    with pytest.raises(Unsolvable):
        gt.optimal_plan(broken)


def test_cache_no_second_planner_call_for_the_same_state():
    gt = GroundTruth(sussman(), max_space=0, planner="exact")
    gt.optimal_next_actions()
    calls = gt.planner_calls
    gt.h_star()
    gt.optimal_next_actions()
    assert gt.planner_calls == calls


def test_module_level_helpers():
    assert h_star(sussman()) == 6
    assert names(optimal_next_actions(sussman())) == ["(unstack c a)"]


def test_large_blocksworld_is_never_enumerated():
    from widthbench.generators import generate

    task = generate("blocksworld", 1, 9, blocks="9", optimal=False)[0].task()
    gt = GroundTruth(task)
    h = gt.h_star()
    assert not gt.exhaustive and len(gt._h) <= h + 1


def test_blocksworld_hard_initial_state_next_actions():
    need_data()
    task = load_task(HARD / "generated_domain.pddl", HARD / "generated" / "instance-6.pddl")  # 12 blocks, h* 30
    gt = GroundTruth(task)
    assert gt.h_star() == 30
    best = gt.optimal_next_actions()
    assert best
    for a in applicable_actions(task, task.init):
        assert (a in best) == (gt.h_star(successor(task.init, a)) == 29)
