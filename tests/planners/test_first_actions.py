"""Optimal next actions as one problem (planners.first_actions, the joint GroundTruth, planners.fd_search),
each answer checked against the slow path: enumerated distances or one planner call per successor."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from widthbench.planners.astar import make_heuristic
from widthbench.planners.fd_search import SasTask
from widthbench.planners.planning_errors import Unsolvable
from widthbench.planners.first_actions import optimal_first_actions
from widthbench.planners.bfs import shortest_plan
from widthbench.planners.strips import applicable_actions, load_domain, load_task, successor
from widthbench.planners.truth import GroundTruth

ACP = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "acpbench-domains"
needs_acp = pytest.mark.skipif(not ACP.is_dir(), reason="ACPBench domains not present")


def acp_task(domain, name):
    problem = next(p for p in (ACP / domain).glob("*.pddl") if p.stem.startswith(name))
    return load_task(load_domain(ACP / domain / "domain.pddl"), problem)


def walk(task, steps, seed):
    rng = random.Random(seed)
    s = task.init
    for _ in range(steps):
        acts = applicable_actions(task, s)
        if not acts:
            break
        s = successor(s, rng.choice(acts))
    return s


def ids(actions):
    return [a.id for a in actions]


@needs_acp
@settings(max_examples=25, deadline=None)
@given(domain=st.sampled_from([("blocksworld-4ops", "bw-rand-5"), ("ferry", "ferry-l2-c10"),
                               ("logistics-strips", "logistics"), ("grid-visit-all", "grid-4-4-1")]),
       steps=st.integers(0, 12), seed=st.integers(0, 10_000), heuristic=st.sampled_from(["blind", "hmax", "lmcut"]))
def test_the_joint_search_finds_exactly_the_successors_one_step_closer_in_the_enumerated_space(
        domain, steps, seed, heuristic):
    task = acp_task(*domain)
    s = walk(task, steps, seed)
    exact = GroundTruth(task, next_actions="per-successor")  # enumerated: every h* is a lookup
    h = exact.h_star(s)
    expected = [a for a in applicable_actions(task, s) if successor(s, a) != s and exact.h_star(successor(s, a)) == h - 1]
    if h in (0, float("inf")):
        expected = []
    assert ids(exact.optimal_next_actions(s)) == ids(expected)
    assert ids(optimal_first_actions(task, s, h, make_heuristic(task, heuristic))) == ids(expected)


@needs_acp
def test_a_wrong_h_star_is_caught_not_answered():
    task = acp_task("ferry", "ferry-l2-c10-15757e")
    h = GroundTruth(task).h_star()
    with pytest.raises(ValueError):
        optimal_first_actions(task, task.init, h + 2, make_heuristic(task, "blind"))
    assert optimal_first_actions(task, task.init, h - 1, make_heuristic(task, "blind")) == []


@needs_acp
@pytest.mark.parametrize("domain,name", [("rover", "prob-2-3-2-2-3-2021-08c52b"), ("floor-tile", "floortile-2-3-2-a2d485"),
                                         ("alfred", "plan_trial_t20190908_214946")])
def test_fd_from_one_translation_gives_the_breadth_first_h_star_of_every_successor(domain, name):
    task = acp_task(domain, name)
    sas = SasTask.translate(task, task.init)
    for a in applicable_actions(task, task.init):
        t = successor(task.init, a)
        bfs = shortest_plan(task, t).plan
        if bfs is None:  # a dead end (floor-tile: a painted tile in the way)
            with pytest.raises(Unsolvable):
                sas.optimal_plan(t)
        else:
            assert len(sas.optimal_plan(t)) == len(bfs)


@needs_acp
@pytest.mark.parametrize("domain,name", [("rover", "prob-2-3-2-2-3-2021-679255"), ("floor-tile", "floortile-2-3-2-e8cc39"),
                                         ("ferry", "ferry-l2-c10-462f50")])
def test_joint_ground_truth_without_enumeration_equals_the_per_successor_planner_calls(domain, name):
    task = acp_task(domain, name)
    states = [task.init, walk(task, 6, 1)]
    fast = GroundTruth(task, max_space=0)
    slow = GroundTruth(task, max_space=0, next_actions="per-successor")
    for s in states:
        assert fast.h_star(s) == slow.h_star(s)
        assert ids(fast.optimal_next_actions(s)) == ids(slow.optimal_next_actions(s))


@needs_acp
@pytest.mark.slow
def test_every_acpbench_sample_problem_gets_the_slow_paths_answers():
    for folder in sorted(p for p in ACP.iterdir() if (p / "domain.pddl").is_file()):
        dom = load_domain(folder / "domain.pddl")
        for problem in sorted(folder.glob("*.pddl")):
            if problem.name == "domain.pddl":
                continue
            task = load_task(dom, problem)
            fast, slow = GroundTruth(task), GroundTruth(task, next_actions="per-successor")
            assert fast.h_star() == slow.h_star(), problem
            assert ids(fast.optimal_next_actions()) == ids(slow.optimal_next_actions()), problem
            assert len(fast.optimal_plan()) == len(slow.optimal_plan()) == fast.h_star(), problem
