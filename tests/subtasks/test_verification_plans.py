"""Plan-verification data: labelled valid / invalid-goal / invalid-precondition plans, reproducible."""

from __future__ import annotations

import random

import pytest

from widthbench.planners.strips import execute_plan, ground, is_goal, load_domain
from widthbench.subtasks.exact import (KINDS, NoSuchPlan, VerificationPlan, classify_plan,
                                      precondition_violation_plan, random_walk_plan, verification_plans)


def sussman():
    return ground(load_domain("blocksworld"), ["a", "b", "c"],
                  ["(on c a)", "(ontable a)", "(ontable b)", "(clear c)", "(clear b)", "(handempty)"],
                  ["(on a b)", "(on b c)"], name="sussman")


def tasks():
    from widthbench.generators import generate

    return [sussman()] + [i.task() for i in generate("blocksworld", 4, 2, blocks="3-5")] + \
        [i.task() for i in generate("logistics", 3, 2, cities="1-2", locations="1-2", airplanes="1", packages="1-2")]


def test_same_seed_same_plans_and_different_seeds_differ():
    task = sussman()
    a = verification_plans(task, 7, n_goal=3, n_precondition=3)
    assert a == verification_plans(task, 7, n_goal=3, n_precondition=3)
    others = [verification_plans(task, s, n_goal=3, n_precondition=3) for s in range(8, 12)]
    assert any(o != a for o in others)


def test_kinds_are_in_order_and_labels_match_execution():
    for task in tasks():
        items = verification_plans(task, 1, n_valid=1, n_goal=2, n_precondition=2)
        assert [v.kind for v in items] == ["valid", "invalid-goal", "invalid-goal",
                                           "invalid-precondition", "invalid-precondition"]
        for v in items:
            assert isinstance(v, VerificationPlan) and v.kind in KINDS
            r = execute_plan(task, v.plan)
            assert v.valid == r.valid and v.reason == r.reason()
            if v.kind == "valid":
                assert v.how == "optimal" and v.failed_step is None and v.unmet == ()
            elif v.kind == "invalid-goal":
                # an executable walk ending outside the goal
                assert v.failed_step is None and r.failed_step is None
                assert not is_goal(task, r.states[-1]) and len(r.states) == len(v.plan) + 1
                assert v.unmet and "does not satisfy the goal" in v.reason
            else:
                # the steps before the first failing one execute; the failing one does not
                assert 1 <= v.failed_step <= len(v.plan)
                assert execute_plan(task, v.plan[:v.failed_step - 1]).failed_step is None
                assert v.failed_action == v.plan[v.failed_step - 1]
                assert v.unmet == r.unmet_preconditions and v.unmet
                assert f"step {v.failed_step}" in v.reason and "unmet precondition" in v.reason


def test_random_walk_length_stays_near_the_optimal_length():
    task = sussman()
    rng = random.Random(3)
    lengths = {len(random_walk_plan(task, rng, 6).plan) for _ in range(40)}
    assert lengths <= set(range(4, 9)) and len(lengths) > 1


def test_mutations_cover_replace_delete_swap():
    task = sussman()
    opt = verification_plans(task, 0, n_goal=0, n_precondition=0)[0].plan
    rng = random.Random(0)
    hows = {precondition_violation_plan(task, rng, opt).how.split("@")[0] for _ in range(40)}
    assert hows == {"replace", "delete", "swap"}


def test_given_optimal_plan_is_used_and_checked():
    task = sussman()
    opt = ("(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b c)", "(pick-up a)", "(stack a b)")
    assert verification_plans(task, 0, opt, n_goal=0, n_precondition=0)[0].plan == opt
    with pytest.raises(ValueError):
        verification_plans(task, 0, opt[:-1])


def test_classify_plan_labels_each_kind():
    task = sussman()
    assert classify_plan(task, ["(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b c)", "(pick-up a)",
                                "(stack a b)"]).kind == "valid"
    v = classify_plan(task, ["(unstack c a)", "(pick-up a)", "(stack a b)"])
    assert (v.kind, v.failed_step, v.failed_action, v.unmet) == ("invalid-precondition", 2, "(pick-up a)",
                                                                   ("(handempty)",))
    v = classify_plan(task, ["(unstack c a)", "(put-down c)"])
    assert (v.kind, v.failed_step, set(v.unmet)) == ("invalid-goal", None, {"(on a b)", "(on b c)"})


def test_trivial_goal_has_no_invalid_goal_walk():
    task = ground(load_domain("blocksworld"), ["a", "b"], ["(ontable a)", "(ontable b)", "(clear a)", "(clear b)",
                                                          "(handempty)"], [], name="trivial")
    with pytest.raises(NoSuchPlan):
        verification_plans(task, 0, n_goal=1, n_precondition=0)
    items = verification_plans(task, 0, n_goal=0, n_precondition=2)
    assert items[0].plan == () and all(v.kind == "invalid-precondition" for v in items[1:])
