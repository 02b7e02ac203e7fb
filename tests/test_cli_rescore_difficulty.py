"""`rescore planbench --out`: the answers' accuracy by optimal plan length and block count, computed
on the engine, equals a count over answers.jsonl and breadth-first optimal lengths (issue 21)."""

from __future__ import annotations

import csv
import json

from tests.conftest import BW_DIR, need_data
from tests.test_cli_rescore import T1, T7, _subset
from widthbench.cli import main
from widthbench.planners.bfs import shortest_plan
from widthbench.planners.strips import load_task


def test_rescored_answers_by_plan_length_and_blocks(tmp_path):
    need_data()
    ids = set(range(2, 42))
    t1 = _subset(T1, tmp_path / "t1.json", ids)
    t7 = _subset(T7, tmp_path / "t7.json", ids)
    out = tmp_path / "out"
    assert main(["rescore", "planbench", str(t1), str(t7), "--instances", str(BW_DIR), "--out", str(out),
                 "--disagreements", "none"]) == 0
    answers = [json.loads(x) for x in (out / "answers.jsonl").read_text().splitlines()]
    with open(out / "difficulty.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    truth = {}
    for a in answers:
        task = load_task(BW_DIR.parent / "generated_domain.pddl", BW_DIR / f"instance-{a['instance_id']}.pddl")
        truth[a["instance_id"]] = {"plan-length": len(shortest_plan(task).plan), "objects": len(task.objects)}
    assert {r["feature"] for r in rows} == {"plan-length", "objects"}
    assert {r["subtask"] for r in rows} == {"plan-generation", "plan-execution"}
    for r in rows:
        mine = [a for a in answers if a["task"] == r["subtask"]
                and int(r["bin_lo"]) <= truth[a["instance_id"]][r["feature"]] <= int(r["bin_hi"])]
        assert int(r["n"]) == len(mine)
        assert int(r["correct"]) == sum(1 for a in mine if a["flexible"]["read"] and a["flexible"]["valid"])
    for feature in ("plan-length", "objects"):
        assert sum(int(r["n"]) for r in rows if r["feature"] == feature) == len(answers) == 80
    assert {r["bin"] for r in rows if r["feature"] == "objects"} <= {"4", "5"}
    assert (out / "difficulty-plan-length.png").stat().st_size > 5000
    md = (out / "difficulty.md").read_text()
    assert "### plan-generation (correct) by plan-length" in md
    # one line per result file, named by its folder and file name
    assert {r["mode"] for r in rows} == {f"{tmp_path.name}/t1", f"{tmp_path.name}/t7"}


def test_plan_lengths_come_from_shipped_plans_that_hold_on_the_engine(tmp_path, monkeypatch):
    """Optimal lengths are those of the plans PlanBench ships (`ground_truth_plan`) when they are
    plans of the problem on the engine; a shipped plan that is not (a step left out, an unknown
    object) is ignored and the length computed, once per distinct problem."""
    from widthbench.subtasks.results import difficulty
    from widthbench.subtasks.planbench.run import rescore

    need_data()
    ids = set(range(2, 14))
    data = json.loads(T1.read_text())
    data["instances"] = [i for i in data["instances"] if i["instance_id"] in ids]
    broken = {2: lambda p: p[:-1], 3: lambda p: p[1:], 4: lambda p: ["(unstack z q)"] + p}
    for inst in data["instances"]:
        if inst["instance_id"] in broken:
            inst["ground_truth_plan"] = broken[inst["instance_id"]](list(inst["ground_truth_plan"]))
    t1 = tmp_path / "t1.json"
    t1.write_text(json.dumps(data))
    second = tmp_path / "again" / "t1.json"  # the same answers again: their problems are computed once
    second.parent.mkdir()
    second.write_text(json.dumps(data))
    computed = []
    real = difficulty.GroundTruth

    def counted(task, **kw):
        computed.append((task.init, task.goal))
        return real(task, **kw)

    monkeypatch.setattr(difficulty, "GroundTruth", counted)
    judged, _ = rescore([t1, second], [BW_DIR])
    records = difficulty.answer_records(judged, [BW_DIR])
    assert len(records) == 2 * len(ids)
    for r in records:
        task = load_task(BW_DIR.parent / "generated_domain.pddl", BW_DIR / f"instance-{r['item_id']}.pddl")
        assert r["features"]["plan-length"] == len(shortest_plan(task).plan), r["item_id"]
    wanted = [load_task(BW_DIR.parent / "generated_domain.pddl", BW_DIR / f"instance-{i}.pddl") for i in broken]
    assert sorted(computed) == sorted((t.init, t.goal) for t in wanted)
