"""The STRIPS engine against PlanBench gold plans and an independent naive simulator."""

from __future__ import annotations

import functools
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import (ACP, BW_DIR, BW_DOMAIN, BW_INFO, BWH_DIR, BWH_DOMAIN, BWH_INFO, IPC, LOG_DIR,
                            LOG_DOMAIN, LOG_GOLD, cached_task, need_data)
from tests.planners.reference_strips import RefTask
from widthbench.core.errors import UserError
from widthbench.planners import strips
from widthbench.planners.strips import (applicable_actions, execute_plan, ground, is_goal, load_domain,
                                        parse_action, state_atoms, successor)


@functools.lru_cache(maxsize=None)
def _ref(domain: str, problem: str) -> RefTask:
    return RefTask(domain, problem)


def _plan_lines(text: str) -> list[str]:
    return [l.strip() for l in text.splitlines() if l.strip()]


def _bw_gold():
    need_data()
    info = json.loads(BW_INFO.read_text())
    return [(BW_DIR / f"instance-{i}.pddl", _plan_lines(info[f"instance-{i}.pddl"]["plan"]),
             info[f"instance-{i}.pddl"]["length"]) for i in range(1, 201)]


def test_planbench_blocksworld_gold_plans_all_valid():
    cases = _bw_gold()
    assert len(cases) == 200
    for path, plan, length in cases:
        task = cached_task(str(BW_DOMAIN), str(path))
        assert len(plan) == length
        r = execute_plan(task, plan)
        assert r.valid, (path.name, r.reason())


def test_planbench_blocksworld_hard_gold_plans_all_valid():
    need_data()
    info = json.loads(BWH_INFO.read_text())
    files = sorted(BWH_DIR.glob("instance-*.pddl"))
    assert len(files) == 110
    for path in files:
        task = cached_task(str(BWH_DOMAIN), str(path))
        r = execute_plan(task, _plan_lines(info[path.name]["plan"]))
        assert r.valid, (path.name, r.reason())


def test_planbench_logistics_gold_plans_all_valid():
    need_data()
    gold = json.loads(LOG_GOLD.read_text())
    assert len(gold) == 285
    for name, entry in gold.items():
        task = cached_task(str(LOG_DOMAIN), str(LOG_DIR / name))
        steps = _plan_lines(entry["plan"])
        assert len(steps) == entry["length"]
        r = execute_plan(task, steps)
        assert r.valid, (name, r.reason())


@pytest.mark.parametrize("mutation", ["remove", "swap"])
def test_mutated_gold_plans_fail_at_the_step_the_reference_simulator_names(mutation):
    rng = random.Random(7)
    checked = invalid = 0
    for path, plan, _ in _bw_gold()[:45]:
        if len(plan) < 2:
            continue
        bad = list(plan)
        i = rng.randrange(len(bad) - 1)
        if mutation == "remove":
            del bad[i]
        else:
            bad[i], bad[i + 1] = bad[i + 1], bad[i]
        task = cached_task(str(BW_DOMAIN), str(path))
        ref = _ref(str(BW_DOMAIN), str(path))
        ref_step, ref_final = ref.first_failure(bad)
        r = execute_plan(task, bad)
        assert r.failed_step == ref_step
        if ref_step is None:
            assert r.valid == ref.goal <= ref_final
        else:
            invalid += 1
            assert not r.valid and r.failed_action == bad[ref_step - 1]
            # every unmet precondition named is really false in the state before that step
            state_before = set(state_atoms(task, r.states[-1]))
            assert r.unmet_preconditions and not set(r.unmet_preconditions) & state_before
        checked += 1
    assert checked >= 40 and invalid >= 25


def test_invalid_plan_reports_unmet_goal_atoms():
    need_data()
    task = cached_task(str(BW_DOMAIN), str(BW_DIR / "instance-1.pddl"))
    r = execute_plan(task, [])
    assert not r.valid and r.failed_step is None
    assert set(r.unmet_goals) == set(state_atoms(task, task.goal & ~task.init))
    assert "unmet goal" in r.reason()


def _random_blocks_task(rng: random.Random, n: int):
    blocks = [chr(97 + i) for i in range(n)]
    rng.shuffle(blocks)
    init, towers = [("handempty", ())], []
    for b in blocks:
        if towers and rng.random() < 0.5:
            t = rng.choice(towers)
            init.append(("on", (b, t[-1])))
            t.append(b)
        else:
            init.append(("ontable", (b,)))
            towers.append([b])
    init += [("clear", (t[-1],)) for t in towers]
    goal = [("on", (blocks[0], blocks[-1]))] if n > 1 else [("holding", (blocks[0],))]
    return ground(load_domain("blocksworld"), sorted(blocks), init, goal, name="random")


def _walk(task, rng, steps):
    s = task.init
    states = [s]
    for _ in range(steps):
        acts = applicable_actions(task, s)
        if not acts:
            break
        s = successor(s, rng.choice(acts))
        states.append(s)
    return states


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 5), steps=st.integers(0, 12))
def test_applicable_iff_preconditions_hold_and_successor_is_s_minus_del_plus_add(seed, n, steps):
    rng = random.Random(seed)
    task = _random_blocks_task(rng, n)
    for s in _walk(task, rng, steps):
        acts = applicable_actions(task, s)
        assert [a.id for a in acts] == sorted(a.id for a in acts)
        assert [str(a) for a in acts] == sorted(str(a) for a in acts)  # name, then arguments
        atoms = set(state_atoms(task, s))
        for a in task.actions:
            holds = (set(state_atoms(task, a.pre)) <= atoms and not set(state_atoms(task, a.neg_pre)) & atoms)
            assert (a in acts) == holds
        for a in acts:
            expected = (atoms - set(state_atoms(task, a.dele))) | set(state_atoms(task, a.add))
            assert set(state_atoms(task, successor(s, a))) == expected


def test_engine_agrees_with_naive_reference_on_logistics_walks():
    need_data()
    rng = random.Random(3)
    for name in ["instance-1.pddl", "instance-7.pddl", "instance-30.pddl"]:
        task = cached_task(str(LOG_DOMAIN), str(LOG_DIR / name))
        ref = RefTask(LOG_DOMAIN, LOG_DIR / name)
        statics = set(task.static_atoms)
        s, rs = task.init, ref.init
        assert set(state_atoms(task, s)) == set(rs) - statics
        for _ in range(15):
            acts = [str(a) for a in applicable_actions(task, s)]
            assert set(acts) == ref.applicable(rs)
            a = rng.choice(acts)
            s, rs = successor(s, parse_action(task, a)), ref.step(rs, a)
            assert set(state_atoms(task, s)) == set(rs) - statics


def test_ipc_files_with_upper_case_load_and_ground():
    need_data()
    for path in sorted((IPC / "blocksworld").glob("probBLOCKS-*.pddl")):
        task = cached_task(str(IPC / "blocksworld/domain.pddl"), str(path))
        assert task.goal and not is_goal(task, task.init)
    for path in sorted((IPC / "logistics").glob("probLOGISTICS-*.pddl")):
        task = cached_task(str(IPC / "logistics/domain.pddl"), str(path))
        assert "(in-city apt1 cit1)" in task.static_atoms or task.static_atoms


def test_action_outside_grounded_set_is_invalid_with_its_static_reason():
    need_data()
    task = cached_task(str(IPC / "logistics/domain.pddl"), str(IPC / "logistics/probLOGISTICS-4-0.pddl"))
    a = parse_action(task, "(DRIVE-TRUCK tru1 pos1 apt2 cit1)")  # apt2 is in cit2: never applicable
    assert a.id == -1 and a.impossible == ("(in-city apt2 cit1)",)
    r = execute_plan(task, ["(drive-truck tru1 pos1 apt1 cit1)", "(drive-truck tru1 apt1 apt2 cit1)"])
    assert r.failed_step == 2 and r.unmet_preconditions == ("(in-city apt2 cit1)",)
    with pytest.raises(UserError, match="unknown object"):
        parse_action(task, "(drive-truck tru9 pos1 apt1 cit1)")
    with pytest.raises(UserError, match="takes 4 argument"):
        parse_action(task, "(drive-truck tru1 pos1 apt1)")


def test_negative_preconditions_and_equality_are_supported_when_declared(tmp_path):
    dom = tmp_path / "d.pddl"
    dom.write_text("""(define (domain toggles) (:requirements :strips :negative-preconditions :equality :typing)
      (:types switch)
      (:predicates (on ?s - switch) (linked ?a - switch ?b - switch))
      (:action turn-on :parameters (?s - switch) :precondition (not (on ?s)) :effect (on ?s))
      (:action copy :parameters (?a - switch ?b - switch)
        :precondition (and (on ?a) (not (on ?b)) (not (= ?a ?b)) (linked ?a ?b)) :effect (on ?b)))""")
    prob = tmp_path / "p.pddl"
    prob.write_text("""(define (problem p) (:domain toggles) (:objects s1 s2 s3 - switch)
      (:init (linked s1 s2) (linked s2 s2)) (:goal (and (on s2) (on s3))))""")
    task = strips.load_task(dom, prob)
    names = [str(a) for a in applicable_actions(task, task.init)]
    assert names == ["(turn-on s1)", "(turn-on s2)", "(turn-on s3)"]
    s = successor(task.init, parse_action(task, "(turn-on s1)"))
    assert "(copy s1 s2)" in [str(a) for a in applicable_actions(task, s)]
    assert "(copy s2 s2)" not in task.action_index  # equality folded away at grounding
    r = execute_plan(task, ["(turn-on s1)", "(copy s1 s2)", "(turn-on s3)"])
    assert r.valid
    r = execute_plan(task, ["(turn-on s1)", "(turn-on s1)"])
    assert r.failed_step == 2 and r.unmet_preconditions == ("(not (on s1))",)


def test_unsupported_requirement_is_named(tmp_path):
    dom = tmp_path / "d.pddl"
    dom.write_text("(define (domain x) (:requirements :strips :conditional-effects) (:predicates (p))"
                   " (:action a :parameters () :precondition (p) :effect (p)))")
    with pytest.raises(UserError, match="conditional-effects"):
        load_domain(str(dom))


def test_fast_problem_reader_grounds_exactly_like_the_pddl_package_reader():
    need_data()
    pairs = [(BW_DOMAIN, sorted(BW_DIR.glob("*.pddl"))[::40]), (BWH_DOMAIN, sorted(BWH_DIR.glob("*.pddl"))[::37]),
             (LOG_DOMAIN, sorted(LOG_DIR.glob("*.pddl"))[::57]),
             (IPC / "blocksworld/domain.pddl", sorted((IPC / "blocksworld").glob("prob*.pddl"))[::7]),
             (IPC / "logistics/domain.pddl", sorted((IPC / "logistics").glob("prob*.pddl"))[::7])]
    n = 0
    for dom, files in pairs:
        for f in files:
            a, b = strips.load_task(dom, f), strips.load_task(dom, f, reader="pddl")
            assert (a.atoms, a.init, a.goal, a.goal_neg, a.static_atoms, a.objects, a.problem_name) == \
                   (b.atoms, b.init, b.goal, b.goal_neg, b.static_atoms, b.objects, b.problem_name)
            assert [str(x) for x in a.actions] == [str(x) for x in b.actions]
            n += 1
    assert n >= 15


# ------------------------------------------------------------------------------------------
# Typed PDDL (issue 14): the implicit object type, either types, disjunctions of static facts,
# tolerated requirement flags, and problems that do not fit the domain


TYPED = """(define (domain typed) (:requirements :strips :typing :disjunctive-preconditions)
  (:types room thing - object ball - thing)
  (:predicates (at ?x - object ?r - room) (holding ?x - object) (light ?b - ball) (heavy ?t - thing))
  (:action pick :parameters (?x - object ?r - room)
    :precondition (and (at ?x ?r)) :effect (and (holding ?x) (not (at ?x ?r))))
  (:action kick :parameters (?b - (either ball room) ?r - room)
    :precondition (and (at ?b ?r) (or (light ?b) (heavy ?b))) :effect (and (not (at ?b ?r)))))"""
TYPED_PROBLEM = """(define (problem p) (:domain typed) (:objects r1 - room b1 b2 - ball t1 - thing x - object)
  (:init (at b1 r1) (at b2 r1) (at t1 r1) (at x r1) (light b1)) (:goal (and (holding b1))))"""


def test_object_type_may_be_used_without_being_declared(tmp_path):
    dom = strips.parse_domain_text(TYPED, source="typed")
    task = strips.parse_problem_text(dom, TYPED_PROBLEM)
    assert dom.schema("pick").param_types == ("object", "room")
    assert {a for a in task.action_index if a.startswith("(pick")} == {
        "(pick b1 r1)", "(pick b2 r1)", "(pick t1 r1)", "(pick x r1)"}
    # and without any (:types ...) section at all
    untyped = strips.parse_domain_text("""(define (domain u) (:requirements :strips :typing)
      (:predicates (p ?x - object)) (:action a :parameters (?x - object) :precondition (p ?x) :effect (not (p ?x))))""")
    assert untyped.schema("a").param_types == ("object",)


def test_alfred_loads_grounds_and_its_disjunction_is_decided_at_grounding():
    need_data()
    d = ACP / "alfred"
    dom = load_domain(d / "domain.pddl")
    assert {"typing", "negative-preconditions", "equality"} <= dom.requirements  # what :adl implies
    slice_ = dom.schema("slice_object")
    assert slice_.pre_or and all(l.predicate == "objecttype" for l in slice_.pre_or[0])
    task = strips.load_task(dom, sorted(p for p in d.glob("*.pddl") if p.name != "domain.pddl")[0])
    knives = {a.args[3] for a in task.actions if a.name == "slice_object"}
    types = {parse(a)[1][0]: parse(a)[1][1] for a in task.static_atoms if a.startswith("(objecttype ")}
    assert knives and all(types[k] in ("knifetype", "butterknifetype") for k in knives)


def parse(a):
    return strips.parse_atom_text(a)


def test_either_types_and_static_disjunctions_ground_as_pddl_says():
    dom = strips.parse_domain_text(TYPED, source="typed")
    assert dom.schema("kick").param_types == ("(either ball room)", "room")
    task = strips.parse_problem_text(dom, TYPED_PROBLEM)
    kicks = {a for a in task.action_index if a.startswith("(kick")}
    assert kicks == {"(kick b1 r1)"}  # b2 is a ball but neither light nor heavy; t1 is not a ball
    outside = strips.parse_action(task, "(kick b2 r1)")
    assert outside.id == -1 and outside.impossible == ("(or (light b2) (heavy b2))",)


def test_a_disjunction_over_fluents_is_rejected_with_the_predicate():
    text = TYPED.replace("(or (light ?b) (heavy ?b))", "(or (light ?b) (holding ?b))")
    with pytest.raises(UserError, match="disjunctive precondition over the fluent 'holding'"):
        strips.parse_domain_text(text, source="typed-or")


def test_declared_adl_and_action_costs_are_tolerated_when_unused():
    dom = strips.parse_domain_text(TYPED.replace(":strips :typing :disjunctive-preconditions", ":adl :action-costs :typing"))
    assert "negative-preconditions" in dom.requirements and "adl" not in dom.requirements
    with pytest.raises(UserError, match="numeric functions"):
        strips.parse_domain_text(TYPED.replace(":strips :typing", ":strips :typing :action-costs")
                                 .replace("(:action pick", "(:functions (total-cost) - number) (:action pick"))


def test_typed_problem_with_the_untyped_logistics_domain_is_an_error_naming_both():
    need_data()
    d = ACP / "logistics-strips"
    problem = sorted(p for p in d.glob("*.pddl") if p.name != "domain.pddl")[0]
    with pytest.raises(UserError, match=r"object type\(s\) airplane, airport, .* not types of domain "
                                        r"'logistics' .*untyped"):
        strips.load_task("logistics", problem)
    assert strips.load_task(d / "domain.pddl", problem).actions  # with its own domain it grounds


def test_problem_for_another_domain_is_an_error_but_copies_of_one_domain_are_not():
    dom = strips.parse_domain_text(TYPED, source="typed")
    with pytest.raises(UserError, match=r"for domain 'gripper', but the domain given is 'typed'"):
        strips.parse_problem_text(dom, TYPED_PROBLEM.replace("(:domain typed)", "(:domain gripper)"))
    with pytest.raises(UserError, match="for domain 'gripper'"):
        strips.parse_problem_text(dom, TYPED_PROBLEM.replace("(:domain typed)", "(:domain gripper)"), reader="pddl")
    bw = load_domain("blocksworld")
    for name in ("blocksworld-4ops", "blocks", "BLOCKS"):
        strips.parse_problem_text(bw, f"(define (problem q) (:domain {name}) (:objects a) (:init (clear a) "
                                      "(ontable a) (handempty)) (:goal (and (holding a))))")
