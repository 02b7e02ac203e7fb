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
