"""`widthbench equivalent-domain DOMAIN MODEL_DOMAIN PROBLEM...`: the true Blocksworld domain with its
names changed is EQUIVALENT (exit 0) on an instance set, with the action bijection; with one effect
removed it is NOT EQUIVALENT (exit 1), naming the instance and a differing transition; a fault in the
model's domain is a verdict, one in the reference bad input (exit 2)."""

from __future__ import annotations

import json

import pytest

from widthbench.cli import main
from widthbench.generators import generate
from widthbench.planners.strips import load_domain

BW = load_domain("blocksworld")
NAMES = {"clear": "free", "ontable": "floor", "handempty": "idle", "holding": "grasped", "on": "above",
         "pick-up": "lift", "put-down": "lower", "stack": "put-on", "unstack": "take-off"}


def renamed() -> str:
    import re

    text = BW.text
    for k in sorted(NAMES, key=len, reverse=True):
        text = re.sub(r"(?<=[(\s])" + re.escape(k) + r"(?=[\s)])", NAMES[k], text)
    return text


@pytest.fixture
def problems(tmp_path):
    paths = []
    for inst in generate("blocksworld", 3, 11, blocks="3-4", optimal=False):
        p = tmp_path / f"{inst.id}.pddl"
        p.write_text(inst.problem_pddl)
        paths.append(str(p))
    return paths


def run(capsys, tmp_path, model_text, problems, *flags):
    (tmp_path / "model.pddl").write_text(model_text)
    code = main(["equivalent-domain", "blocksworld", str(tmp_path / "model.pddl"), *problems, *flags])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_domain_renamed_is_equivalent_exit_0_with_the_actions_matched(capsys, tmp_path, problems):
    code, out, _ = run(capsys, tmp_path, renamed(), problems, "--json")
    got = json.loads(out)
    assert code == 0 and got["equivalent"] is True
    assert {(a["truth"], a["model"]) for a in got["actions"]} == {(k, v) for k, v in NAMES.items()
                                                                 if k in {s.name for s in BW.schemas}}
    assert got["predicates"]["ontable"] == "floor"


def test_one_effect_removed_is_not_equivalent_exit_1_naming_instance_and_transition(capsys, tmp_path, problems):
    model = renamed().replace("(not (grasped ?ob))))\n\n  (:action take-off", "))\n\n  (:action take-off")
    assert model != renamed()
    code, out, _ = run(capsys, tmp_path, model, problems)
    assert code == 1 and out.startswith("NOT EQUIVALENT (")
    assert "put-on" in out and ("bw-" in out or "instance" in out) and len(out.strip().splitlines()) == 1
    code, out, _ = run(capsys, tmp_path, model, problems, "--json")
    t = json.loads(out)["transition"]
    assert t["action"].startswith("(stack ") and t["truth_successor"] != t["model_successor"]


def test_a_model_domain_that_does_not_parse_is_a_verdict_exit_1(capsys, tmp_path, problems):
    code, out, _ = run(capsys, tmp_path, renamed()[:-3], problems)
    assert code == 1 and "parse-error" in out


@pytest.mark.parametrize("case", ["missing-model", "bad-problem", "max-states"])
def test_bad_input_is_one_line_exit_2(case, capsys, tmp_path, problems):
    (tmp_path / "bad.pddl").write_text("(define (problem x")
    argv = {"missing-model": ["blocksworld", str(tmp_path / "nope.pddl"), *problems],
            "bad-problem": ["blocksworld", str(tmp_path / "bad.pddl"), str(tmp_path / "bad.pddl")],
            "max-states": ["blocksworld", problems[0], problems[0], "--max-states", "0"]}[case]
    code = main(["equivalent-domain", *argv])
    out, err = capsys.readouterr()
    assert code == 2 and not out and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_past_its_budgets_the_verdict_is_unknown_exit_3(capsys, tmp_path, problems):
    model = renamed().replace("(not (grasped ?ob))))\n\n  (:action take-off", "))\n\n  (:action take-off")
    code, out, _ = run(capsys, tmp_path, model, problems, "--max-states", "2")
    assert code == 3 and out.startswith("UNKNOWN (unknown)"), out
