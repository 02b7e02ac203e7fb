"""`rescore planbench` on PlanBench's back-prompting files (validator feedback rounds): every round
judged on the engine, the first round that succeeds, PlanBench's verdict per round beside ours, and
the settings each file records (issue 42)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import DATA, PLANBENCH, need_data
from widthbench.cli import main
from widthbench.pddl_domains import planbench_configs
from widthbench.planners.strips import execute_plan, load_task
from widthbench.subtasks.planbench.files import conversation
from widthbench.subtasks.planbench.run import rescore

BACKPROMPTING = DATA / "planbench-backprompting/llm_planning_analysis"
NAME = ("task_1_plan_generation_backprompting_zero_shot_pddl_sound_verifier_sound_critique_zero_shot_val_form_1_"
        "history_feedback_type_1_tv0.0_tg1.0.json")
HARD = BACKPROMPTING / "results_backprompting/blocksworld_hard/o1-mini_chat" / NAME
FILES = sorted(BACKPROMPTING.rglob("*.json")) + [
    DATA / "planbench-responses/llm_planning_analysis/results/mystery_blocksworld/gpt-4_chat/"
           "task_1_plan_generation_backprompting.json"]
FEEDBACK = "The above plan is invalid. The following action at step 1 has an unmet precondition: ..."


def _made_up(tmp_path, verdicts=(False, True)):
    """A newer-format conversation on a 20-40-step Blocksworld problem: round 1 the optimal plan
    without its last step (the goal not reached), round 2 the optimal plan; PlanBench's validator
    verdicts per round as given."""
    data = json.loads(HARD.read_text())
    inst = data["instances"][0]
    v = planbench_configs.find_variant(PLANBENCH, ["blocksworld_hard"])
    task = load_task(v.domain_file, v.instance_dir / f"instance-{inst['instance_id']}.pddl")
    info = json.loads((v.instance_dir.parent / "info.json").read_text())
    plan = [s for s in info[f"instance-{inst['instance_id']}.pddl"]["plan"].splitlines() if s.strip()]
    assert execute_plan(task, plan).valid and not execute_plan(task, plan[:-1]).valid
    query = next(m["content"] for m in inst["messages"] if m["role"] == "user")
    messages = [{"role": "user", "content": query}, {"role": "assistant", "content": "\n".join(plan[:-1])},
                {"role": "user", "content": FEEDBACK}, {"role": "assistant", "content": "\n".join(plan)}]
    steps = {str(k): {"sound_verifier_json": str({"validation_info": {"is_valid_plan": ok}})}
             for k, ok in enumerate(verdicts)}
    data["instances"] = [dict(inst, messages=messages, step_wise_dict=steps, steps=1, act_correct=verdicts[-1],
                              verifier_states_correct=verdicts[-1])]
    dst = tmp_path / "results_backprompting" / "blocksworld_hard" / "o1-mini_chat" / NAME
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(json.dumps(data))
    return dst


def test_every_round_is_judged_and_the_first_success_is_found(tmp_path):
    need_data()
    f = _made_up(tmp_path)
    out = tmp_path / "out"
    assert main(["rescore", "planbench", str(f), "--instances", str(PLANBENCH), "--out", str(out),
                 "--disagreements", "none"]) == 0
    (rec,) = [json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines()]
    one, two = rec["rounds"]
    assert (one["round"], one["read"], one["valid"], one["feedback"], one["planbench_valid"]) == \
        (1, True, False, FEEDBACK, False)
    assert "goal" in one["reason"]
    assert (two["round"], two["valid"], two["feedback"], two["planbench_valid"]) == (2, True, None, True)
    assert len(one["plan"]) + 1 == len(two["plan"])
    assert rec["first_success_round"] == rec["planbench_first_success_round"] == 2
    assert rec["flexible"]["valid"] is True and rec["planbench_correct"] is True  # the last round is the answer
    summary = json.loads((out / "summary.json").read_text())["files"][str(f)]
    assert summary["settings"] == {"model": "o1-mini_chat", "prompt_type": "oneshot",
                                   "task_info": "backprompting_with_feedback_type_1", "verifier": "sound",
                                   "critique": "sound", "feedback_form": 1, "feedback_type": 1,
                                   "verifier_temperature": 0.0, "generator_temperature": 1.0, "history": True}
    assert summary["rounds"]["first_success_round"] == {"2": 1}
    assert (summary["rounds"]["round_agreement"], summary["rounds"]["planbench_judged_rounds"]) == (2, 2)


def test_a_round_planbench_judged_otherwise_is_a_disagreement(tmp_path):
    need_data()
    f = _made_up(tmp_path, verdicts=(True, True))  # PlanBench's validator passed the short plan
    judged, summary = rescore([f], [PLANBENCH])
    ((_, (a,)),) = judged
    assert a.first_success_round == 2 and a.planbench_first_success_round == 1
    rounds = summary["files"][str(f)]["rounds"]
    assert (rounds["round_agreement"], rounds["first_success_agreement"]) == (1, 0)
    assert rounds["planbench_first_success_round"] == {"1": 1}


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_every_backprompting_file_reads_and_each_conversation_has_all_its_rounds(path, tmp_path):
    need_data()
    data = json.loads(path.read_text())
    data["instances"] = data["instances"][:4]
    copy = tmp_path / path.relative_to(path.parents[3])  # keeps results*/<variant>/<model>/
    copy.parent.mkdir(parents=True)
    copy.write_text(json.dumps(data))
    judged, summary = rescore([copy], [PLANBENCH])
    ((rf, results),) = judged
    assert len(results) == 4 and rf.settings is not None
    for inst, a in zip(data["instances"], results):
        turns = conversation(inst)
        assert [x["round"] for x in a.rounds] == list(range(1, 1 + sum(t["role"] == "assistant" for t in turns)))
        assert all(x["feedback"] is not None for x in a.rounds[:-1]) and a.rounds[-1]["feedback"] is None
        assert all(x["valid"] is None for x in a.rounds if not x["read"])
        # the last round is the answer the file is judged on
        assert (a.rounds[-1]["read"], a.rounds[-1]["valid"]) == (a.flexible.read, a.flexible.valid)
        assert a.rounds[-1]["planbench_valid"] == a.planbench_correct
    rounds = summary["files"][str(copy)]["rounds"]
    assert rounds["answers"] == 4 and rounds["rounds"] == sum(len(a.rounds) for a in results)
    assert sum(rounds["first_success_round"].values()) == 4
