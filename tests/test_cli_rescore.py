"""`widthbench rescore planbench`: real PlanBench result files re-judged with both readers."""

from __future__ import annotations

import json

import pytest

from tests.conftest import BW_DIR, DATA, LOG_DIR, PLANBENCH, need_data
from widthbench.cli import main

RESPONSES = DATA / "planbench-responses"
T1 = RESPONSES / "llm_planning_analysis/results/blocksworld/gpt-4_chat/task_1_plan_generation_zero_shot.json"
T1_LOG = RESPONSES / "llm_planning_analysis/results/logistics/gpt-4_chat/task_1_zero_shot_plan_generation_pddl.json"
T3 = RESPONSES / "plan-bench/results/blocksworld/gpt-4_chat/task_3_plan_verification.json"
T7 = RESPONSES / "plan-bench/results/blocksworld/gpt-4_chat/task_7_plan_execution.json"


def _subset(src, dst, ids):
    data = json.loads(src.read_text())
    data["instances"] = [i for i in data["instances"] if i["instance_id"] in ids]
    dst.write_text(json.dumps(data))
    return dst


@pytest.fixture
def files(tmp_path):
    need_data()
    return {
        "t1": _subset(T1, tmp_path / "t1.json", {4, 6, 86, 202, 28}),
        "log": _subset(T1_LOG, tmp_path / "log.json", {2, 4, 48}),
        "t3": _subset(T3, tmp_path / "t3.json", {4, 5, 6, 170}),
        "t7": _subset(T7, tmp_path / "t7.json", {5, 6, 28}),
    }


def test_rescore_prints_counts_per_file_and_writes_answers_and_summary(files, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["rescore", "planbench", str(files["t1"]), str(files["t3"]), str(files["t7"]),
                 "--instances", str(BW_DIR), "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0
    assert "t1.json (plan-generation, blocksworld): 5 answers" in printed
    assert "t3.json (plan-verification, blocksworld): 4 answers" in printed
    assert "t7.json (plan-execution, blocksworld): 3 answers" in printed
    assert "overall: 12 answers in 3 file(s)" in printed
    # Instance 86 says "Place the red block on the table": PlanBench dropped the step, the engine says valid.
    assert "flexible disagrees on instance 86: [planbench-reading-differs] PlanBench: incorrect; flexible: correct" in printed
    assert "engine: every step applicable, goal reached" in printed

    records = [json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines()]
    assert len(records) == 12
    for rec in records:
        assert set(rec) >= {"file", "instance_id", "planbench_correct", "strict", "flexible"}
        for name in ("strict", "flexible"):
            assert set(rec[name]) >= {"read", "valid", "reason"}
            assert rec[name]["valid"] is None or isinstance(rec[name]["valid"], bool)
            if not rec[name]["read"]:
                assert rec[name]["valid"] is None and rec[name]["reason"].startswith("parse error")
    by = {(r["file"].rsplit("/", 1)[-1], r["instance_id"]): r for r in records}
    r86 = by[("t1.json", 86)]
    assert r86["planbench_correct"] is False and r86["strict"]["read"] is False
    assert r86["flexible"] == {**r86["flexible"], "read": True, "valid": True}
    assert r86["flexible"]["rule"] == "whole-reply"

    summary = json.loads((out / "summary.json").read_text())
    assert summary["kind"] == "rescore-planbench"
    assert summary["overall"]["answers"] == 12 and len(summary["files"]) == 3
    t1 = summary["files"][str(files["t1"])]
    assert t1["answers"] == 5 and t1["flexible"]["read"] >= t1["strict"]["read"]
    assert t1["flexible"]["disagreements"] == 5 - t1["flexible"]["agree"]


def test_rescore_finds_each_domain_in_planbench_instances_folder(files, capsys):
    code = main(["rescore", "planbench", str(files["t1"]), str(files["log"]),
                 "--instances", str(PLANBENCH / "plan-bench/instances")])
    printed = capsys.readouterr().out
    assert code == 0 and "log.json (plan-generation, logistics): 3 answers" in printed
    assert "flexible: read 3/3, valid 3, agrees with PlanBench 3/3" in printed


def test_rescore_takes_one_instances_folder_per_domain(files, capsys):
    assert main(["rescore", "planbench", str(files["log"]), "--instances", str(BW_DIR),
                 "--instances", str(LOG_DIR)]) == 0
    assert "logistics" in capsys.readouterr().out


@pytest.mark.parametrize("content, message", [
    ("not json", "not JSON"),
    ('{"task": "t1"}', "no 'instances' list"),
    ('{"task": "task_2_plan_optimality", "instances": []}', "is not plan generation"),
    ('{"task": "t1", "domain": "blocksworld", "instances": [{"instance_id": 4}]}', "lacks"),
    ('{"task": "t1", "domain": "blocksworld", "instances": [{"instance_id": 4, "llm_raw_response": "x"}]}',
     "no PlanBench verdict"),
    ('{"task": "t1", "domain": "blocksworld", "instances": [{"instance_id": 99999, "llm_raw_response": "x", '
     '"correct": false}]}', "not found"),
    ('{"task": "t1", "domain": "gripper", "instances": [{"instance_id": 1, "llm_raw_response": "x", '
     '"correct": false}]}', "no --instances folder for domain 'gripper'"),
])
def test_bad_result_files_give_a_one_line_error(content, message, tmp_path, capsys):
    need_data()
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    assert main(["rescore", "planbench", str(bad), "--instances", str(BW_DIR)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_missing_files_and_folders_give_a_one_line_error(tmp_path, capsys):
    need_data()
    assert main(["rescore", "planbench", str(tmp_path / "none.json"), "--instances", str(BW_DIR)]) == 2
    assert "argument FILE.json: not found" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["rescore", "planbench", str(T1), "--instances", str(tmp_path / "empty")]) == 2
    assert "no instance-N.pddl" in capsys.readouterr().err
    assert main(["rescore", "planbench", str(T1), "--instances", str(tmp_path / "nope")]) == 2
    assert "argument --instances: not found" in capsys.readouterr().err


def test_an_instance_folder_that_does_not_match_the_queries_is_a_one_line_error(tmp_path, capsys):
    need_data()
    data = json.loads(T1.read_text())
    data["instances"] = [dict(data["instances"][0], instance_id=data["instances"][0]["instance_id"] + 1)]
    shifted = tmp_path / "shifted.json"
    shifted.write_text(json.dumps(data))
    assert main(["rescore", "planbench", str(shifted), "--instances", str(BW_DIR)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "wrong instance folder" in err


def test_an_out_that_is_a_file_fails_before_the_work(files, tmp_path, capsys):
    out = tmp_path / "existing.txt"
    out.write_text("keep me\n")
    code = main(["rescore", "planbench", str(files["t1"]), "--instances", str(BW_DIR), "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""  # nothing judged, nothing printed
    assert captured.err.strip() == f"widthbench rescore: error: --out {out}: a file is there, not a folder"
    assert out.read_text() == "keep me\n"


def test_an_answer_read_two_ways_that_both_reach_the_goal_is_judged_and_recorded(tmp_path, capsys):
    """Rule 10 of the flexible reader: a made-up reply with two different valid plans is judged valid
    and the other reading written under "ambiguous"; with one valid and one invalid plan it stays
    unread."""
    need_data()
    from widthbench.pddl_domains.render import Renderer
    from widthbench.planners import strips
    from widthbench.planners.bfs import shortest_plan
    from widthbench.subtasks.planbench.problems import Instances

    data = json.loads(T1.read_text())
    inst = next(i for i in data["instances"] if i["instance_id"] == 4)
    task = Instances([BW_DIR]).task("blocksworld", 4)
    r = Renderer(task, "nl", "planbench")
    plan = [str(a) for a in shortest_plan(task).plan]
    a = strips.applicable_actions(task, task.init)[0]
    b = next(x for x in strips.applicable_actions(task, strips.successor(task.init, a))
             if strips.successor(strips.successor(task.init, a), x) == task.init)
    longer = [str(a), str(b)] + plan
    listed = lambda p: "\n".join(f"{k}. {r.action(x)}" for k, x in enumerate(p, 1))  # noqa: E731
    both = dict(inst, llm_raw_response=f"Plan:\n{listed(plan)}\n\nSo the plan is:\n{listed(longer)}")
    one = dict(inst, instance_id=4, llm_raw_response=f"Plan:\n{listed(plan)}\n\nSo the plan is:\n{listed(plan[:-1])}")
    for name, answer in (("both", both), ("one", one)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(dict(data, instances=[answer])))
        assert main(["rescore", "planbench", str(path), "--instances", str(BW_DIR), "--out", str(tmp_path / name)]) == 0
        (rec,) = [json.loads(x) for x in (tmp_path / name / "answers.jsonl").read_text().splitlines()]
        if name == "both":
            assert rec["flexible"]["read"] and rec["flexible"]["valid"] and rec["flexible"]["ambiguous"] == [longer]
        else:
            assert not rec["flexible"]["read"] and "two different plans" in rec["flexible"]["reason"]
            assert "ambiguous" not in rec["flexible"]
    capsys.readouterr()
