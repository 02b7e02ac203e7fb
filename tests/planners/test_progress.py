"""progress(task, plan) = 1 - h*(s_k)/h*(s_0), checked against a breadth-first search written here."""

from __future__ import annotations

import math
import random
from collections import deque

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from widthbench.planners.ground_truth import GroundTruth
from widthbench.planners.progress import applicable_prefix_state, progress
from widthbench.planners.strips import applicable_actions, ground, load_domain, parse_domain_text, successor

# a small domain with one-way actions: dead ends and unsolvable goals exist
ONE_WAY = parse_domain_text("""
(define (domain oneway)
  (:requirements :strips)
  (:predicates (at ?x) (link ?x ?y) (burnt ?x))
  (:action go :parameters (?x ?y)
    :precondition (and (at ?x) (link ?x ?y))
    :effect (and (at ?y) (not (at ?x))))
  (:action burn :parameters (?x)
    :precondition (and (at ?x))
    :effect (and (burnt ?x) (not (at ?x)))))
""")


def bfs_distance(task, s):
    """The length of a shortest plan from s, by breadth-first search over the successors (inf: none)."""
    goal = task.goal
    seen = {s}
    frontier = deque([(s, 0)])
    while frontier:
        t, d = frontier.popleft()
        if t & goal == goal:
            return d
        for a in applicable_actions(task, t):
            u = successor(t, a)
            if u not in seen:
                seen.add(u)
                frontier.append((u, d + 1))
    return math.inf


def random_blocksworld(rng: random.Random):
    blocks = ["a", "b", "c", "d"][:rng.randint(2, 4)]

    def towers():
        order = blocks[:]
        rng.shuffle(order)
        atoms, below = [], None
        for b in order:
            if below is None or rng.random() < 0.4:
                if below is not None:
                    atoms.append(f"(clear {below})")
                atoms.append(f"(ontable {b})")
            else:
                atoms.append(f"(on {b} {below})")
            below = b
        atoms.append(f"(clear {below})")
        return atoms

    init = towers() + ["(handempty)"]
    goal = [a for a in towers() if a.startswith("(on ")] or ["(ontable a)"]
    return ground(load_domain("blocksworld"), blocks, init, goal, name="random-bw")


def random_one_way(rng: random.Random):
    places = ["p", "q", "r", "s"]
    links = [f"(link {x} {y})" for x in places for y in places if x != y and rng.random() < 0.4]
    goal = [f"(at {rng.choice(places)})"] + ([f"(burnt {rng.choice(places)})"] if rng.random() < 0.3 else [])
    return ground(ONE_WAY, places, ["(at p)", *links], goal, name="random-oneway")


def random_plan(task, rng: random.Random, length: int):
    """Mostly applicable steps, now and then any action of the task (which may fail)."""
    s, plan = task.init, []
    for _ in range(length):
        acts = applicable_actions(task, s)
        if acts and rng.random() < 0.85:
            a = rng.choice(acts)
            s = successor(s, a)
        else:
            a = rng.choice(task.actions)
        plan.append(str(a))
    return plan


def expected(task, plan):
    h0 = bfs_distance(task, task.init)
    if h0 == math.inf:
        return None
    if h0 == 0:
        return 1.0
    _, sk = applicable_prefix_state(task, plan)
    hk = bfs_distance(task, sk)
    return 0.0 if hk == math.inf else max(0.0, 1 - hk / h0)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), length=st.integers(0, 10), kind=st.sampled_from(["bw", "oneway"]))
def test_progress_agrees_with_an_independent_breadth_first_search(seed, length, kind):
    rng = random.Random(seed)
    task = random_blocksworld(rng) if kind == "bw" else random_one_way(rng)
    plan = random_plan(task, rng, length)
    want = expected(task, plan)
    got = progress(task, plan)
    assert (got is None) == (want is None)
    if want is not None:
        assert got == pytest.approx(want, abs=1e-6)
        assert progress(task, plan, truth=GroundTruth(task, max_space=0, planner="exact")) == pytest.approx(want, abs=1e-6)


def sussman():
    return ground(load_domain("blocksworld"), ["a", "b", "c"],
                  ["(on c a)", "(ontable a)", "(ontable b)", "(clear c)", "(clear b)", "(handempty)"],
                  ["(on a b)", "(on b c)"], name="sussman")


def test_a_plan_whose_last_step_fails_scores_strictly_between_0_and_1_when_its_prefix_gets_closer():
    task = sussman()  # h* = 6
    prefix = ["(unstack c a)", "(put-down c)", "(pick-up b)"]
    plan = prefix + ["(pick-up a)"]  # the hand is full: fails
    assert progress(task, plan) == pytest.approx(1 - 3 / 6)
    assert 0 < progress(task, plan) < 1


def test_valid_plan_scores_1_no_applicable_step_0_and_moving_away_0():
    task = sussman()
    best = [str(a) for a in GroundTruth(task).optimal_plan()]
    assert progress(task, best) == 1.0
    assert progress(task, ["(pick-up a)"]) == 0.0  # not applicable: no step applies
    assert progress(task, ["(fly a)"]) == 0.0  # names no action of the task
    assert progress(task, []) == 0.0
    # picking up b moves no closer to the goal (h* stays 6 or grows): no progress
    assert progress(task, ["(pick-up b)"]) == 0.0


def test_unsolvable_task_has_no_progress_value():
    task = ground(ONE_WAY, ["p", "q"], ["(at p)"], ["(at q)"], name="nolink")
    assert progress(task, ["(burn p)"]) is None
