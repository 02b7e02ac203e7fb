"""PlanBench's YAML configs as template sets: word for word against PlanBench's stored prompts, round
trips over made-up configs, object encodings and variant look-up."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import DATA, PLANBENCH, cached_task, need_data
from widthbench.core.errors import UserError
from widthbench.pddl_domains import planbench_configs
from widthbench.pddl_domains.render import PDDL_WORDS, Renderer, config_template_set
from widthbench.subtasks.planbench.problems import load_planbench_domain
from widthbench.planners.strips import execute_plan, ground, load_task, parse_domain_text, with_presentation

RESULTS = DATA / "planbench-responses/llm_planning_analysis/results"
STATEMENT = re.compile(r"As initial conditions I have that, (.*)\.\nMy goal is to have that (.*)\.\n")


def _queries(variant: str, family: str, name: str, limit: int):
    need_data()
    data = json.loads((RESULTS / variant / family / name).read_text())
    return [i for i in data["instances"] if i.get("query")][:limit]


# ------------------------------------------------------------------------------------------
# Word for word against PlanBench's prompts


@pytest.mark.parametrize("variant, family, name", [
    ("mystery_blocksworld", "gpt-4_chat", "task_1_plan_generation.json"),
    ("mystery_blocksworld_3", "claude-3-opus", "task_1_plan_generation.json"),
    ("blocksworld_3", "gpt-4o_chat", "task_1_plan_generation.json"),
    ("blocksworld", "llama3-70b-8192_groq", "task_1_plan_generation.json"),
])
def test_config_renders_the_statements_and_example_plans_of_planbench_prompts(variant, family, name):
    v = planbench_configs.find_variant(PLANBENCH, [variant])
    for inst in _queries(variant, family, name, 40):
        task = cached_task(str(v.domain_file), str(v.instance_dir / f"instance-{inst['instance_id']}.pddl"))
        r = Renderer(task, "nl", v.config.path)
        blocks = inst["query"].split("[STATEMENT]")
        assert (r.state(task.init), r.goal()) == STATEMENT.search(blocks[-1]).groups(), inst["instance_id"]
        assert r.parse_state(STATEMENT.search(blocks[-1]).group(1)) == task.init
        # the one-shot example: PlanBench's plan text reads back to a valid plan and is rendered the same
        ex = cached_task(str(v.domain_file), str(v.instance_dir / f"instance-{inst['example_instance_ids'][0]}.pddl"))
        rx = Renderer(ex, "nl", v.config.path)
        plan_text = blocks[1].split("[PLAN]")[1].split("[PLAN END]")[0].strip()
        plan = rx.parse_plan(plan_text)
        assert execute_plan(ex, plan).valid
        assert rx.plan(plan) == plan_text


def test_mystery_config_reads_no_plain_blocksworld_words():
    """The Mystery set knows only its own vocabulary: a plain-Blocksworld sentence is not a fact of it."""
    need_data()
    v = planbench_configs.find_variant(PLANBENCH, ["mystery_blocksworld"])
    task = cached_task(str(v.domain_file), str(v.instance_dir / "instance-2.pddl"))
    r = Renderer(task, "nl", v.config.path)
    assert r.parse_plan("attack object b\nsuccumb object b") == ["(attack b)", "(succumb b)"]
    with pytest.raises(Exception):
        r.parse_plan("pick up object b")


# ------------------------------------------------------------------------------------------
# Made-up configs: render -> read is the identity


WORD = st.text("qwxzjkvy", min_size=4, max_size=9)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(WORD, min_size=9, max_size=9, unique=True), n=st.integers(2, 5), data=st.data())
def test_made_up_config_round_trips_states_and_plans(tmp_path_factory, words, n, data):
    """Any config's vocabulary (invented words, here) writes and reads states and plans exactly."""
    p = words
    yaml_text = f"""
domain_name: madeup
actions:
  {{{p[0]}: "{p[0]} {{}}", {p[1]}: "{p[1]} {{}}", {p[2]}: "{p[2]} {{}} over {{}}", {p[3]}: "{p[3]} {{}} over {{}}"}}
predicates:
  {{{p[4]}: "{p[4]} {{}}", {p[5]}: "{p[5]} {{}}", {p[6]}: "{p[6]}", "{p[7]}": "{{}} {p[7]} {{}}", "{p[8]}": "{p[8]} {{}}"}}
encoded_objects:
  {{"a": "thing a", "b": "thing b", "c": "thing c", "d": "thing d", "e": "thing e"}}
"""
    path = tmp_path_factory.mktemp("cfg") / "madeup.yaml"
    path.write_text(yaml_text)
    dom = parse_domain_text(f"""(define (domain madeup) (:predicates ({p[4]} ?x) ({p[5]} ?x) ({p[6]}) ({p[7]} ?x ?y) ({p[8]} ?x))
      (:action {p[0]} :parameters (?x) :precondition (and ({p[4]} ?x) ({p[5]} ?x) ({p[6]}))
         :effect (and ({p[8]} ?x) (not ({p[4]} ?x)) (not ({p[5]} ?x)) (not ({p[6]}))))
      (:action {p[1]} :parameters (?x) :precondition ({p[8]} ?x)
         :effect (and ({p[4]} ?x) ({p[5]} ?x) ({p[6]}) (not ({p[8]} ?x))))
      (:action {p[2]} :parameters (?x ?y) :precondition (and ({p[8]} ?x) ({p[4]} ?y))
         :effect (and ({p[7]} ?x ?y) ({p[4]} ?x) ({p[6]}) (not ({p[8]} ?x)) (not ({p[4]} ?y))))
      (:action {p[3]} :parameters (?x ?y) :precondition (and ({p[7]} ?x ?y) ({p[4]} ?x) ({p[6]}))
         :effect (and ({p[8]} ?x) ({p[4]} ?y) (not ({p[7]} ?x ?y)) (not ({p[4]} ?x)) (not ({p[6]})))))""")
    objs = "abcde"[:n]
    init = [(p[6], ())] + [(p[5], (o,)) for o in objs] + [(p[4], (o,)) for o in objs]
    task = ground(dom, [(o, "object") for o in objs], init, [(p[7], (objs[0], objs[1]))])
    r = Renderer(task, "nl", str(path))
    assert r.names == {o: f"thing {o}" for o in objs}
    assert r.parse_state(r.state(task.init)) == task.init
    plan = [f"({p[0]} {objs[0]})", f"({p[2]} {objs[0]} {objs[1]})"]
    res = execute_plan(task, plan)
    assert res.valid
    assert r.parse_plan(r.plan(plan)) == plan
    for s in res.states:
        assert r.parse_state(r.state(s)) == s


@given(letter=st.sampled_from("plt"), digits=st.lists(st.integers(0, 99), min_size=1, max_size=2))
def test_encoded_names_fill_the_digit_groups_of_the_pddl_name(letter, digits):
    encoded = {"p": "package_{}", "t": "truck_{}", "l": "location_{}_{}"}
    name = letter + "-".join(str(d) for d in digits)
    got = planbench_configs.encoded_name(name, encoded)
    if encoded[letter].count("{}") == len(digits):
        assert got == encoded[letter].format(*digits)
    else:
        assert got is None  # never a name with a slot left open or a digit dropped


def test_config_without_templates_is_refused_for_natural_language(tmp_path):
    path = tmp_path / "pddlonly.yaml"
    path.write_text("domain_name: x\ninstance_dir: x/generated_basic\n")
    assert config_template_set(str(path)) is None
    dom = parse_domain_text("(define (domain d) (:predicates (p ?x)) (:action a :parameters (?x) :precondition (p ?x) :effect (not (p ?x))))")
    dom = with_presentation(dom, templates_file=str(path))
    with pytest.raises(UserError, match="without 'actions' and 'predicates'"):
        Renderer(ground(dom, [("o1", "object")], [("p", ("o1",))], []), "nl")


def test_pddl_words_set_writes_names_and_arguments():
    dom = parse_domain_text("(define (domain d) (:predicates (zq1 ?x ?y) (k7) ) (:action m4 :parameters (?x ?y) "
                            ":precondition (k7) :effect (and (zq1 ?x ?y) (not (k7)))))")
    task = ground(dom, [("object_0", "object"), ("object_1", "object")], [("k7", ())], [("zq1", ("object_1", "object_0"))])
    r = Renderer(task, "nl", PDDL_WORDS)
    assert r.goal() == "zq1 object_1 object_0"
    assert r.parse_plan("m4 object_1 object_0") == ["(m4 object_1 object_0)"]


# ------------------------------------------------------------------------------------------
# Variants in the data root


@pytest.mark.parametrize("names, config", [
    (["mystery_blocksworld"], "mystery_blocksworld"),
    (["obfuscated_randomized_blocksworld_3"], "random_blocksworld_3"),
    (["blocksworld_zero_shot_3"], "blocksworld_3"),
    (["no_such_folder", "logistics_zero_shot"], "logistics"),
])
def test_find_variant_maps_result_folders_and_domain_fields_to_configs(names, config):
    need_data()
    v = planbench_configs.find_variant(PLANBENCH, names)
    assert v.name == config and v.domain_file.is_file() and any(v.instance_dir.glob("instance-*.pddl"))


def test_find_variant_names_what_it_looked_for():
    need_data()
    with pytest.raises(UserError, match="no PlanBench config for variant 'nothing_here'"):
        planbench_configs.find_variant(PLANBENCH, ["nothing_here"])


def test_a_config_given_as_templates_brings_its_domain_intro_as_the_context():
    need_data()
    from widthbench.subtasks.prompts import context_for
    from widthbench.planners.strips import load_domain

    v = planbench_configs.find_variant(PLANBENCH, ["mystery_blocksworld"])
    dom = load_domain(v.domain_file, templates_file=v.config.path)
    text, label = context_for(dom)
    assert text.startswith("I am playing with a set of objects.") and "Feast object from another object" in text
    assert label == f"planbench-config:{v.config.path}"


@pytest.mark.parametrize("variant", ["obfuscated_deceptive_logistics", "obfuscated_randomized_logistics", "logistics"])
def test_logistics_configs_round_trip_their_instances(variant):
    """Variants without stored answers: the config renders each instance's states and its optimal
    first steps, and reads them back exactly (objects by PlanBench's encoding, types hidden)."""
    need_data()
    v = planbench_configs.find_variant(PLANBENCH, [variant])
    for k in (2, 3, 4):
        task = load_task(load_planbench_domain(v.domain_file), v.instance_dir / f"instance-{k}.pddl")
        r = Renderer(task, "nl", v.config.path)
        assert r.parse_state(r.state(task.init)) == task.init
        acts = [f"({a.name} {' '.join(a.args)})" for a in strips_applicable(task)]
        assert r.parse_plan(r.plan(acts[:1])) == acts[:1]


def strips_applicable(task):
    from widthbench.planners.strips import applicable_actions

    return applicable_actions(task, task.init)
