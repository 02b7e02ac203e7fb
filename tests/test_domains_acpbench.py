"""Any typed STRIPS domain end to end, on ACPBench's 13 domains (../shared/data/acpbench-domains).

Pins (issue 14): every domain loads, grounds and plans; the context generated from its PDDL names
every action and predicate and carries the domain back; sim:oracle answers every sub-task prompt
kind correctly in both styles on a problem of every domain, the simulator reading the domain from the
generated context and the object types from the type facts; `widthbench score --domain FILE
--instances DIR` runs with 100% in every cell; `solve`, `widths`, `render` and `plan` take the domain
file. The grounding cross-check against tarski is tests/planners/test_grounding_tarski.py.
"""

from __future__ import annotations

import functools
import json
import random
import re

import pytest

from tests.conftest import ACP, need_data
from widthbench.cli import main
from widthbench.planners import strips

DOMAINS = ("alfred", "blocksworld-4ops", "depots", "ferry", "floor-tile", "gold-miner-typed", "grid",
           "grid-visit-all", "gripper-strips", "logistics-strips", "rover", "satellite", "swap")
STYLES = ("pddl", "nl")


def problems(name: str):
    return sorted(p for p in (ACP / name).glob("*.pddl") if p.name != "domain.pddl")


@functools.lru_cache(maxsize=None)
def domain(name: str) -> strips.Domain:
    return strips.load_domain(ACP / name / "domain.pddl")


@functools.lru_cache(maxsize=None)
def solvable_task(name: str):
    """The first sample problem of the domain with a plan and a non-goal initial state; else (satellite:
    its samples start in the goal) the first one, its initial state moved off the goal by a walk."""
    from widthbench.planners.ground_truth import GroundTruth

    for p in problems(name):
        t = strips.load_task(domain(name), p)
        if not strips.is_goal(t, t.init) and GroundTruth(t).h_star() != float("inf"):
            return t
    from widthbench.generators.instance import read_instance_set, walk_instances

    inst = walk_instances(read_instance_set(ACP / name), 1, seed=0)[0]
    return inst.task()


@functools.lru_cache(maxsize=None)
def solvable_truth(name: str):
    """The reference answers on solvable_task(name), shared by the styles' tests (a per-task cache)."""
    from widthbench.planners.ground_truth import GroundTruth

    return GroundTruth(solvable_task(name))


def test_the_data_has_13_domains():
    need_data()
    assert tuple(sorted(p.name for p in ACP.iterdir() if p.is_dir())) == DOMAINS


@pytest.mark.parametrize("name", DOMAINS)
def test_every_sample_problem_loads_and_grounds(name):
    need_data()
    for p in problems(name):
        task = strips.load_task(domain(name), p)
        assert task.atoms and task.actions, p.name


@pytest.mark.parametrize("name", DOMAINS)
def test_a_problem_of_every_domain_plans_and_the_plan_validates(name):
    need_data()
    from widthbench.planners.ground_truth import GroundTruth

    task = solvable_task(name)
    plan = GroundTruth(task).optimal_plan()
    assert plan and strips.execute_plan(task, plan).valid


# --------------------------------------------------------------------------------------------
# The generated context


@pytest.mark.parametrize("name", DOMAINS)
def test_generated_context_names_every_action_and_predicate_and_carries_the_domain(name):
    need_data()
    from widthbench.generators.instance import _canonical
    from widthbench.pddl_domains.context import domain_from_context, generated_context
    from widthbench.subtasks import prompts

    dom = domain(name)
    ctx = generated_context(dom)
    for s in dom.schemas:
        assert re.search(rf"^- \({re.escape(s.name)}\b", ctx, re.M), s.name  # in the words part
        assert f"(:action {s.name}\n" in ctx  # in the PDDL part
    for p in dom.predicates:
        assert re.search(rf"^- \({re.escape(p)}[ )]", ctx, re.M), p
    for t in dom.types:
        assert t in ctx
    back = domain_from_context(ctx)
    assert _canonical(back) == _canonical(dom) and back.types == dom.types
    assert back.static_predicates == dom.static_predicates
    label = prompts.context_label(dom)
    # ACPBench's blocksworld-4ops is our Blocksworld: it keeps the hand-written context
    assert label == ("hand-written:blocksworld" if name == "blocksworld-4ops" else "generated")


def test_context_with_the_domain_file_appends_it_verbatim():
    need_data()
    from widthbench.pddl_domains.context import generated_context

    dom = domain("ferry")
    assert generated_context(dom, include_domain_file=True).endswith(dom.text)


def test_a_hand_written_context_file_overrides_and_is_recorded(tmp_path):
    need_data()
    from widthbench.pddl_domains.context import generated_context
    from widthbench.subtasks import prompts

    ctx = tmp_path / "ferry.txt"
    ctx.write_text("Ferry, told by hand.\n\n" + generated_context(domain("ferry")).split("\n\n", 1)[1])
    dom = strips.load_domain(ACP / "ferry" / "domain.pddl", context_file=ctx)
    text, label = prompts.context_for(dom)
    assert text.startswith("Ferry, told by hand.") and label == f"file:{ctx.resolve()}"
    assert prompts.domain_of_system_message(text)[0].name == "ferry"  # it kept the PDDL block


# --------------------------------------------------------------------------------------------
# sim:oracle on every prompt kind, both styles


@functools.cache
def _simulator():
    from widthbench.simulated import Simulator

    return Simulator()


def _ask(messages, seed=0):
    text, _ = _simulator().answer("oracle", messages, False, random.Random(seed))
    assert "simulated model" not in text, text  # the simulator could read the prompt
    return text


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("name", DOMAINS)
def test_sim_oracle_answers_every_prompt_kind_correctly(name, style):
    need_data()
    from widthbench.subtasks import api
    from widthbench.subtasks.exact import novelty_of

    task = solvable_task(name)
    gt = solvable_truth(name)
    s = task.init
    applicable = [str(a) for a in strips.applicable_actions(task, s)]
    # action generation
    got = api.parse_action_list(task, _ask(api.action_generation_prompt(task, s, style)), style)
    assert sorted(got) == sorted(applicable)
    # next action (any optimal next action)
    best = {str(a) for a in gt.optimal_next_actions(s)}
    assert api.parse_single_action(task, _ask(api.next_action_prompt(task, s, style)), style) in best
    # successor, and the successor mapping of up to 4 actions
    a = applicable[0]
    want = strips.successor(s, strips.parse_action(task, a))
    assert api.parse_successor(task, _ask(api.successor_prompt(task, s, a, style)), style) == want
    acts = applicable[:4]
    mapping = api.parse_successor_mapping(task, _ask(api.successor_mapping_prompt(task, s, acts, style)), style, acts)
    assert mapping == {x: strips.successor(s, strips.parse_action(task, x)) for x in acts}
    # plan verification: the optimal plan holds, a plan one step short does not
    plan = [str(x) for x in gt.optimal_plan()]
    assert api.parse_verdict(_ask(api.verification_prompt(task, plan, style))) is True
    assert api.parse_verdict(_ask(api.verification_prompt(task, plan[:-1], style))) is False
    # goal check
    end = strips.execute_plan(task, plan).states[-1]
    assert api.parse_yes_no(_ask(api.goal_check_prompt(task, end, style))) is True
    assert api.parse_yes_no(_ask(api.goal_check_prompt(task, s, style))) is False
    # novelty (IW(1) criterion and any size) and its integer estimate, after a few states
    prev = [s] + [strips.successor(s, strips.parse_action(task, x)) for x in applicable[1:3]]
    new = want
    for width in (1, None):
        truth = (new not in prev and novelty_of(new, prev, 1) is not None) if width else \
            not any(p & new == new for p in prev)
        got = api.parse_novelty(_ask(api.novelty_prompt(task, prev, new, style, width=width)))
        assert got is truth
    n = novelty_of(new, prev)
    value = n if n is not None else bin(new).count("1") + 1
    assert api.parse_integer(_ask(api.novelty_estimate_prompt(task, prev, new, style))) == value


@pytest.mark.parametrize("name", ["gripper-strips", "logistics-strips", "swap"])
def test_sim_oracle_width_estimate_is_the_effective_width(name):
    need_data()
    from widthbench.planners.iw import iterated_width
    from widthbench.planners.state_model import StripsModel
    from widthbench.subtasks import api

    task = solvable_task(name)
    width = iterated_width(StripsModel(task), max_k=max(1, task.n_atoms)).width
    for style in STYLES:
        assert api.parse_integer(_ask(api.width_estimate_prompt(task, style))) == width


# --------------------------------------------------------------------------------------------
# The commands, with a domain file


@pytest.fixture(scope="module")
def derived_sets(tmp_path_factory):
    """Instance sets of 16 problems derived from the samples by walks (generators.walk_instances)."""
    need_data()
    from widthbench.generators.instance import read_instance_set, walk_instances, write_instance_set

    out = {}
    for name in ("gripper-strips", "logistics-strips", "satellite"):
        insts = walk_instances(read_instance_set(ACP / name), 16, seed=1)
        d = tmp_path_factory.mktemp(name)
        write_instance_set(d, domain(name), insts)
        out[name] = d
    return out


@pytest.mark.parametrize("name", ["gripper-strips", "logistics-strips", "satellite"])
def test_score_with_a_domain_file_is_100_percent_in_every_cell_with_sim_oracle(name, derived_sets, tmp_path, capsys):
    d = derived_sets[name]
    run = tmp_path / "run"
    code = main(["score", "--domain", str(ACP / name / "domain.pddl"), "--instances", str(d), "--model", "sim:oracle",
                 "--subtask", "all", "--count", "2", "--thinking", "off", "--out", str(run), "--quiet"])
    assert code == 0, capsys.readouterr().err
    summary = json.loads((run / "summary.json").read_text())
    cells = [r for r in summary["rows"] if r["n"]]
    assert cells and all(r["correct"] == r["n"] for r in cells), [
        (r["subtask"], r["metric"], r["style"]) for r in cells if r["correct"] != r["n"]]
    assert {r["style"] for r in cells} == {"pddl", "nl"}
    assert summary["config"]["context"] == "generated"
    assert summary["config"]["domain_file"] == str(ACP / name / "domain.pddl")


def test_score_records_a_hand_written_context_and_templates(derived_sets, tmp_path, capsys):
    need_data()
    from widthbench.pddl_domains.context import generated_context

    ctx = tmp_path / "ctx.txt"
    ctx.write_text("Gripper by hand.\n\n" + generated_context(domain("gripper-strips")))
    tpl = tmp_path / "gripper.toml"
    tpl.write_text('set = "mine"\n[predicates]\nat-robby = ["{0} stands in {1}"]\nfree = ["{1} of {0} is free"]\n'
                   'carry = ["{0} holds {1} in {2}"]\nat = ["{0} lies in {1}"]\n[actions]\n'
                   'move = ["move {0} from {1} to {2}"]\npick = ["{0} picks {1} in {2} with {3}"]\n'
                   'drop = ["{0} drops {1} in {2} from {3}"]\n[types]\nball = ["{0} is a ball"]\n')
    run = tmp_path / "run"
    code = main(["score", "--domain", str(ACP / "gripper-strips" / "domain.pddl"), "--instances",
                 str(derived_sets["gripper-strips"]), "--context", str(ctx), "--templates", str(tpl),
                 "--model", "sim:oracle", "--subtask", "action-generation,successor-mapping", "--count", "2",
                 "--thinking", "off", "--out", str(run), "--quiet"])
    assert code == 0, capsys.readouterr().err
    summary = json.loads((run / "summary.json").read_text())
    assert summary["config"]["context"] == f"file:{ctx.resolve()}"
    assert summary["config"]["templates_file"] == str(tpl)
    # The simulated models read the built-in and generated template sets only (docs/domains.md):
    # in PDDL they answer as always; a user's NL phrasing is for real models.
    assert all(r["correct"] == r["n"] for r in summary["rows"] if r["n"] and r["style"] == "pddl")
    recs = [json.loads(x) for x in (run / "items.jsonl").read_text().splitlines()]
    nl = next(r for r in recs if r["style"] == "nl")
    assert nl["prompt"][0]["content"].startswith("Gripper by hand.") and "stands in" in nl["prompt"][1]["content"]


def test_score_rejects_a_domain_file_without_instances(tmp_path, capsys):
    need_data()
    code = main(["score", "--domain", str(ACP / "ferry" / "domain.pddl"), "--model", "sim:oracle",
                 "--out", str(tmp_path / "r")])
    assert code == 2 and "--instances" in capsys.readouterr().err


def test_solve_widths_render_and_plan_take_the_domain_file(derived_sets, tmp_path, capsys):
    d = derived_sets["gripper-strips"]
    dom = str(ACP / "gripper-strips" / "domain.pddl")
    assert main(["solve", "--domain", dom, "--instances", str(d), "--model", "sim:oracle", "--method", "tot-bfs", "--max-depth", "20",
                 "--count", "2", "--out", str(tmp_path / "solve"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "solved 2/2" in out, out
    assert main(["widths", str(d), "--domain", dom, "--max-k", "2", "--out", str(tmp_path / "w"), "--quiet"]) == 0
    assert (tmp_path / "w" / "widths.jsonl").read_text().count("\n") == 16
    problem = sorted(d.glob("instance-*.pddl"))[0]
    capsys.readouterr()
    assert main(["render", str(problem), "--domain", dom]) == 0
    text = capsys.readouterr().out
    assert "ball1 is a ball" in text and "robby robot1 is at" in text
    assert main(["plan", dom, str(problem)]) == 0
    assert "; length" in capsys.readouterr().out


def test_typed_logistics_renders_its_airports_with_the_logistics_templates(capsys):
    need_data()
    problem = problems("logistics-strips")[0]
    for templates in ("widthbench", "planbench"):
        assert main(["render", str(problem), "--templates", templates]) == 0
        assert "is an airport" in capsys.readouterr().out


@pytest.mark.parametrize("name", DOMAINS)
def test_solve_runs_on_every_domain(name, tmp_path, capsys):
    """`solve` on a problem derived from the domain's samples: the simulated oracle's naive plan
    validates (the search methods, all of them on every domain, are measured by
    scripts/bench_domains.py --solve)."""
    need_data()
    from widthbench.generators.instance import read_instance_set, walk_instances, write_instance_set

    d = tmp_path / name
    write_instance_set(d, domain(name), walk_instances(read_instance_set(ACP / name), 1, seed=0))
    code = main(["solve", "--domain", str(d / "domain.pddl"), "--instances", str(d), "--model", "sim:oracle",
                 "--method", "naive", "--count", "1", "--out", str(tmp_path / "run"), "--quiet"])
    out = capsys.readouterr()
    assert code == 0, out.err
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert (summary["solved"], summary["n"], summary["plan_valid"]) == (1, 1, 1), summary


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("name", DOMAINS)
def test_one_ground_action_of_every_schema_and_every_atom_read_back_from_their_rendering(name, style):
    """Rendered actions and facts read back to themselves (grid's `pickup-and-loose` is one name:
    a hyphen-joined "and" separates no clauses)."""
    need_data()
    from widthbench.subtasks import api

    task = solvable_task(name)
    r = api.renderer(task, style)
    firsts = {}
    for a in task.actions:
        firsts.setdefault(a.name, a)
    assert firsts
    for a in firsts.values():
        assert r.parse_action(r.action(a)) == str(a)
    atoms = list(task.atoms)[:200]
    assert set(r.parse_atoms(r.atoms(atoms))) == set(atoms)
