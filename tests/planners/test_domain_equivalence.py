"""`planners.domain_equivalence`: the judgement of formalize-domain (issue 44). The true domain with
its predicates, actions and parameter orders renamed is equivalent on a Blocksworld (and a Logistics)
instance set, with the bijections reported; a domain with any one effect removed is not, with the
instance and a transition on which the domains differ."""

from __future__ import annotations

import functools
import re

import pytest

from widthbench.generators import generate
from widthbench.planners.bfs import reachable_states
from widthbench.planners.domain_equivalence import domain_equivalence
from widthbench.planners.strips import execute_plan, load_domain, parse_domain_text

BW = load_domain("blocksworld")
LOG = load_domain("logistics")
BW_NAMES = {"clear": "free", "ontable": "on-floor", "handempty": "arm-idle", "holding": "grasped", "on": "above",
            "pick-up": "lift", "put-down": "lower", "stack": "put-on", "unstack": "take-off"}
LOG_NAMES = {"package": "pkg", "truck": "lorry", "airplane": "plane", "airport": "port", "location": "place",
             "in-city": "within", "city": "town", "at": "sits", "in": "inside", "load-truck": "lt",
             "load-airplane": "la", "unload-truck": "ut", "unload-airplane": "ua", "drive-truck": "drive",
             "fly-airplane": "fly"}


@functools.cache
def bw_instances() -> tuple:
    return tuple(i.task() for i in generate("blocksworld", 5, 7, blocks="3-4", optimal=False))


@functools.cache
def log_instances() -> tuple:
    return tuple(i.task() for i in generate("logistics", 3, 7, packages="1-2", optimal=False))


def rename(text: str, names: dict) -> str:
    """Every whole PDDL name in ``names`` replaced (longest first)."""
    for k in sorted(names, key=len, reverse=True):
        text = re.sub(r"(?<=[(\s])" + re.escape(k) + r"(?=[\s)])", names[k], text)
    return text


def test_the_true_domain_renamed_and_reordered_is_equivalent_with_the_bijections_reported():
    text = rename(BW.text, BW_NAMES).replace("(domain blocksworld)", "(domain bw-model)")
    text = text.replace(":parameters (?ob ?underob)\n    :precondition (and (free",
                        ":parameters (?underob ?ob)\n    :precondition (and (free")  # stack's, reordered
    text = text.replace("(free ?underob) (grasped ?ob))", "(grasped ?ob) (free ?underob))")
    assert text.count("(?underob ?ob)") == 1
    verdict = domain_equivalence(BW, text, bw_instances())
    assert verdict.equivalent is True and verdict.reason == "equivalent", verdict.message
    assert dict(verdict.predicates) == {k: v for k, v in BW_NAMES.items() if k in BW.predicates}
    assert set(verdict.actions) == {("pick-up", "lift", (0,)), ("put-down", "lower", (0,)),
                                    ("stack", "put-on", (1, 0)), ("unstack", "take-off", (0, 1))}
    assert verdict.states == sum(len(reachable_states(t)) for t in bw_instances())


def test_actions_whose_names_are_swapped_are_matched_by_what_they_do():
    text = BW.text.replace("pick-up", "tmp").replace("put-down", "pick-up").replace("tmp", "put-down")
    verdict = domain_equivalence(BW, text, bw_instances())
    assert verdict.equivalent is True
    assert ("pick-up", "put-down", (0,)) in verdict.actions and ("put-down", "pick-up", (0,)) in verdict.actions


def test_logistics_with_every_name_changed_is_equivalent():
    verdict = domain_equivalence(LOG, rename(LOG.text, LOG_NAMES), log_instances())
    assert verdict.equivalent is True, verdict.message
    assert ("drive-truck", "drive", (0, 1, 2, 3)) in verdict.actions


def effects(text: str) -> list[tuple[str, str]]:
    """(action, effect literal) for every effect literal of every action of a domain text."""
    out = []
    for m in re.finditer(r"\(:action (\S+).*?:effect (\(and .*?\)\))(?=\s*\(:action|\s*\)\s*$)", text, re.S):
        body = m.group(2)[len("(and"):-1]
        for lit in re.findall(r"\(not \([^()]*\)\)|\([^()]*\)", body):
            out.append((m.group(1), lit))
    return out


def without(text: str, action: str, literal: str) -> str:
    start = text.index(f"(:action {action}")
    eff = text.index(":effect", start)
    end = text.find("(:action", eff)
    end = len(text) if end < 0 else end
    part = text[eff:end].replace(literal, "", 1)
    return text[:eff] + part + text[end:]


BW_EFFECTS = effects(BW.text)


def test_the_effects_are_all_found():
    assert len(BW_EFFECTS) == 18 and ("stack", "(not (holding ?ob))") in BW_EFFECTS


@pytest.mark.parametrize("action,literal", BW_EFFECTS)
def test_a_domain_with_one_effect_removed_is_not_equivalent_and_the_transition_is_named(action, literal):
    model = without(BW.text, action, literal)
    parse_domain_text(model, "<model>")  # still a domain
    verdict = domain_equivalence(BW, model, bw_instances())
    assert verdict.equivalent is False and verdict.reason in ("transitions-differ", "goal-differs"), verdict.message
    t = verdict.transition
    assert t is not None and t.instance in {x.problem_name for x in bw_instances()}
    assert t.instance in verdict.message and "\n" not in verdict.message
    # the path is a plan of the instance, and the named transition differs as said
    task = next(x for x in bw_instances() if x.problem_name == t.instance)
    run = execute_plan(task, list(t.path))
    assert run.failed_step is None
    if t.truth_successor is not None and t.model_successor is not None:
        assert t.truth_successor != t.model_successor
    if verdict.reason == "transitions-differ" and t.truth_successor is not None:
        after = execute_plan(task, list(t.path) + [t.action])
        assert after.failed_step is None


def test_the_removed_stack_effect_is_the_transition_named():
    verdict = domain_equivalence(BW, without(BW.text, "stack", "(not (holding ?ob))"), bw_instances())
    t = verdict.transition
    assert t.action.startswith("(stack ") and t.model_action == t.action
    held = "(holding " + t.action.split()[1] + ")"
    assert held in t.model_successor and held not in t.truth_successor


def test_a_logistics_domain_with_an_effect_removed_and_every_name_changed_is_not_equivalent():
    broken = LOG.text.replace("(and (not (at ?obj ?loc)) (in ?obj ?truck))", "(in ?obj ?truck)")
    assert broken != LOG.text
    verdict = domain_equivalence(LOG, rename(broken, LOG_NAMES), log_instances())
    assert verdict.equivalent is False and verdict.transition.action.startswith("(load-truck ")
    assert dict(verdict.predicates)["at"] == "sits"


def test_an_added_precondition_that_blocks_an_action_is_not_equivalent():
    model = BW.text.replace(":precondition (holding ?ob)", ":precondition (and (holding ?ob) (clear ?ob))")
    verdict = domain_equivalence(BW, model, bw_instances())
    assert verdict.reason == "transitions-differ"
    assert verdict.transition.action.startswith("(put-down ") and verdict.transition.model_successor is None


@pytest.mark.parametrize("model,reason,equivalent", [
    ("(define (domain x)", "parse-error", False),
    (BW.text.replace(":strips", ":strips :conditional-effects"), "unsupported", None),
    (BW.text.replace("(on ?x ?y))", "(on ?x ?y) (spare ?x))"), "predicates-differ", False),
    (BW.text.replace("(:action pick-up\n    :parameters (?ob)", "(:action pick-up\n    :parameters (?ob ?other)"),
     "actions-differ", False),
])
def test_a_model_domain_that_cannot_be_matched_says_why(model, reason, equivalent):
    verdict = domain_equivalence(BW, model, bw_instances())
    assert (verdict.equivalent, verdict.reason) == (equivalent, reason), verdict.message


def test_past_its_budgets_the_verdict_is_unknown_not_a_guess():
    assert domain_equivalence(BW, BW.text, bw_instances(), max_states=3).equivalent is None
    broken = without(BW.text, "stack", "(not (holding ?ob))")
    # a refutation within the bound is still sound: the walk saw the conflict
    assert domain_equivalence(BW, broken, bw_instances(), max_states=30).equivalent in (False, None)
    assert domain_equivalence(LOG, rename(LOG.text, LOG_NAMES), log_instances(), max_checks=2).equivalent is None
