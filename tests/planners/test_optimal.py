"""Optimal planning: exact search (BFS, A* with LM-cut / h_max / Blocksworld heuristic) and Fast
Downward through unified-planning agree; failures raise; `widthbench plan` prints plan + length."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from widthbench.core.errors import UserError
from widthbench.planners.astar import astar, is_blocksworld, make_heuristic
from widthbench.planners.bfs import shortest_plan
from widthbench.planners.optimal import (OptimalPlan, PlanningTimeout, Unsolvable, bounded_optimal_plan,
                                         optimal_plan)
from widthbench.planners.strips import execute_plan, ground, load_domain, load_task
from widthbench.planners.ground_truth import GroundTruth
from tests.conftest import PLANBENCH
from tests.conftest import need_data as require_data

PB = PLANBENCH
BW = PB / "plan-bench" / "instances" / "blocksworld"
LG = PB / "plan-bench" / "instances" / "logistics"
HARD = PB / "llm_planning_analysis" / "instances" / "blocksworld_hard"
need_data = pytest.mark.usefixtures("_planbench_data")


@pytest.fixture
def _planbench_data():
    require_data()


def sussman():
    return ground(load_domain("blocksworld"), ["a", "b", "c"],
                  ["(on c a)", "(ontable a)", "(ontable b)", "(clear c)", "(clear b)", "(handempty)"],
                  ["(on a b)", "(on b c)"], name="sussman")


def impossible():
    return ground(load_domain("blocksworld"), ["a", "b"],
                  ["(ontable a)", "(ontable b)", "(clear a)", "(clear b)", "(handempty)"],
                  ["(on a b)", "(on b a)"], name="cyclic-goal")


def random_tasks(n: int, seed: int):
    from widthbench.generators import generate

    return ([i.task() for i in generate("blocksworld", n, seed, blocks="3-5", optimal=False)]
            + [i.task() for i in generate("logistics", n, seed, cities="1-2", locations="1-2", airplanes="1",
                                          packages="1-2", optimal=False)])


@pytest.mark.parametrize("planner", ["exact", "fd", "auto"])
def test_sussman_anomaly_has_optimal_length_6_with_every_planner(planner):
    r = optimal_plan(sussman(), planner=planner, timeout=60)
    assert r.length == len(r.plan) == 6
    assert r.planner == ("exact" if planner == "auto" else planner)
    assert execute_plan(sussman(), r.plan).valid


def test_optimal_plan_is_a_frozen_dataclass_of_text_actions():
    r = optimal_plan(sussman(), planner="exact")
    assert isinstance(r, OptimalPlan) and r.plan[0] == "(unstack c a)"
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.length = 3


def test_every_exact_heuristic_finds_the_breadth_first_length():
    for task in random_tasks(6, seed=3):
        n = len(shortest_plan(task).plan)
        for h in ("lmcut", "hmax", "blind") + (("blocksworld",) if is_blocksworld(task) else ()):
            assert len(astar(task, heuristic=h).plan) == n, (task.problem_name, h)


def test_heuristics_are_admissible_on_every_state_of_small_spaces():
    from widthbench.generators import generate

    # exhaustive for the cheap heuristics, every 7th state for LM-cut (the expensive one)
    for inst in generate("blocksworld", 6, 11, blocks="3-5", optimal=False):
        task = inst.task()
        gt = GroundTruth(task)
        gt.h_star()
        hs = {name: make_heuristic(task, name) for name in ("lmcut", "hmax", "blocksworld")}
        for k, (s, d) in enumerate(gt._h.items()):
            for name, h in hs.items():
                if name != "lmcut" or k % 7 == 0:
                    assert h(s) <= d, (inst.id, name, s)


def test_blocksworld_is_recognised_structurally_and_logistics_is_not():
    assert is_blocksworld(sussman())
    if PB.is_dir():
        assert is_blocksworld(load_task(BW / "generated_domain.pddl", BW / "generated_basic" / "instance-1.pddl"))
        assert not is_blocksworld(load_task(LG / "generated_domain.pddl", LG / "generated_basic" / "instance-2.pddl"))
    with pytest.raises(ValueError):
        make_heuristic(random_tasks(1, 0)[-1], "blocksworld")


@need_data
def test_exact_and_fd_agree_on_planbench_instances():
    cases = [(BW / "generated_domain.pddl", BW / "generated_basic" / f"instance-{i}.pddl") for i in (3, 50, 120)]
    cases += [(LG / "generated_domain.pddl", LG / "generated_basic" / f"instance-{i}.pddl") for i in (5, 13)]
    for dom, prob in cases:
        task = load_task(dom, prob)
        a, b = optimal_plan(task, "exact"), optimal_plan(task, "fd", timeout=60)
        assert a.length == b.length, prob


@need_data
def test_auto_solves_blocksworld_hard_without_fast_downward():
    task = load_task(HARD / "generated_domain.pddl", HARD / "generated" / "instance-11.pddl")  # 14 blocks
    r = optimal_plan(task, "auto", timeout=60)
    assert (r.length, r.planner) == (40, "exact")


@pytest.mark.parametrize("planner", ["exact", "fd"])
def test_unsolvable_task_raises_unsolvable_a_user_error(planner):
    with pytest.raises(Unsolvable) as exc:
        optimal_plan(impossible(), planner=planner, timeout=60)
    assert isinstance(exc.value, UserError) and "cyclic-goal" in str(exc.value)


@need_data
def test_fd_timeout_raises_planning_timeout():
    task = load_task(HARD / "generated_domain.pddl", HARD / "generated" / "instance-6.pddl")  # FD needs minutes
    with pytest.raises(PlanningTimeout):
        optimal_plan(task, planner="fd", timeout=1.0)


@need_data
def test_exact_timeout_raises_planning_timeout():
    task = load_task(LG / "generated_domain.pddl", LG / "generated_basic" / "instance-250.pddl")
    with pytest.raises(PlanningTimeout):
        optimal_plan(task, planner="exact", timeout=1.0)


def test_bad_planner_or_timeout_is_a_user_error():
    with pytest.raises(UserError):
        optimal_plan(sussman(), planner="lama")
    with pytest.raises(UserError):
        optimal_plan(sussman(), timeout=0)


@pytest.mark.parametrize("planner", ["exact", "fd"])
def test_bounded_plan_is_none_below_h_star_and_optimal_at_or_above(planner):
    task = sussman()
    assert bounded_optimal_plan(task, 5, planner=planner, timeout=60) is None
    assert bounded_optimal_plan(task, 6, planner=planner, timeout=60).length == 6
    assert bounded_optimal_plan(task, 9, planner=planner, timeout=60).length == 6
    assert bounded_optimal_plan(task, -1, planner=planner) is None


def test_optimal_plan_from_an_arbitrary_state():
    from widthbench.planners.strips import parse_action, successor

    task = sussman()
    s = successor(task.init, parse_action(task, "(pick-up b)"))  # a wrong first move
    for planner in ("exact", "fd"):
        r = optimal_plan(task, planner=planner, state=s, timeout=60)
        assert r.length == 7 and execute_plan(task, r.plan, s).valid


def test_concurrent_fd_calls_do_not_collide_or_write_to_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tasks = [sussman(), impossible(), sussman()]
    results = [None] * len(tasks)

    def solve(i):
        try:
            results[i] = optimal_plan(tasks[i], planner="fd", timeout=60).length
        except Unsolvable:
            results[i] = "unsolvable"

    threads = [threading.Thread(target=solve, args=(i,)) for i in range(len(tasks))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [6, "unsolvable", 6]
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------------------------
# CLI


def _plan_cli(args, capsys):
    from widthbench.cli import main

    code = main(["plan", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


@need_data
@pytest.mark.parametrize("planner", ["exact", "fd", "auto"])
def test_cli_plan_prints_one_action_per_line_then_the_length(planner, capsys):
    prob = BW / "generated_basic" / "instance-7.pddl"
    code, out, err = _plan_cli(["blocksworld", str(prob), "--planner", planner], capsys)
    lines = out.strip().split("\n")
    assert code == 0 and err == ""
    assert lines[-1].startswith("; length 8")
    assert len(lines) == 9 and all(line.startswith("(") for line in lines[:-1])
    task = load_task("blocksworld", prob)
    assert execute_plan(task, lines[:-1]).valid


@need_data
def test_cli_plan_on_logistics_domain_path(capsys):
    code, out, _ = _plan_cli([str(LG / "generated_domain.pddl"), str(LG / "generated_basic" / "instance-7.pddl")],
                             capsys)
    assert code == 0 and out.strip().split("\n")[-1].startswith("; length 7")


def test_cli_plan_bad_inputs_exit_2_with_one_line(tmp_path, capsys):
    code, out, err = _plan_cli(["blocksworld", str(tmp_path / "missing.pddl")], capsys)
    assert code == 2 and out == "" and len(err.strip().split("\n")) == 1
    prob = tmp_path / "p.pddl"
    prob.write_text("(define (problem p) (:domain blocksworld) (:objects a b) (:init (ontable a) (ontable b) "
                    "(clear a) (clear b) (handempty)) (:goal (and (on a b) (on b a))))")
    code, out, err = _plan_cli(["blocksworld", str(prob), "--planner", "exact"], capsys)
    assert code == 2 and "no plan exists" in err
    code, out, err = _plan_cli(["blocksworld", str(prob), "--planner", "lama"], capsys)
    assert code == 2 and out == "" and len(err.strip().split("\n")) == 1 and "--planner" in err
