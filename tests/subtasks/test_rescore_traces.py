"""`rescore planbench` checks the thinking of entries that hold it (``reasoning_content``): each
answer record carries its ``trace`` (docs/traces.md), summary.json the per-cell aggregates. Made-up
traces (written from engine walks, one wrong fact injected in every other one) on the real 3-block
instances of PlanBench's R1 file."""

from __future__ import annotations

import json

from tests.conftest import DATA, PLANBENCH, need_data
from tests.subtasks.traces_gen import write_trace
from widthbench.cli import main
from widthbench.pddl_domains import planbench_configs
from widthbench.planners.strips import load_task

R1 = DATA / "planbench-responses/llm_planning_analysis/results/blocksworld_3/deepseek-r1-api/task_1_plan_generation_zero_shot.json"


def test_rescore_records_the_check_of_each_thinking_trace(tmp_path, capsys):
    need_data()
    data = json.loads(R1.read_text())
    v = planbench_configs.find_variant(PLANBENCH, ["blocksworld_3"])
    keep, expect = data["instances"][:5], {}
    for n, inst in enumerate(keep):
        message = inst["response_object"]["choices"][0]["message"]
        if n == 4:  # an entry without thinking has no trace
            message.pop("reasoning_content", None)
            continue
        task = load_task(v.domain_file, v.instance_dir / f"instance-{inst['instance_id']}.pddl")
        w = write_trace(task, "nl", "planbench", seed=n, steps=3, inject="fact" if n % 2 else None, weave=False)
        message["reasoning_content"] = w.text
        expect[inst["instance_id"]] = w.kind
    data["instances"] = keep
    f = tmp_path / "results" / "blocksworld_3" / "deepseek-r1-api" / R1.name
    f.parent.mkdir(parents=True)
    f.write_text(json.dumps(data))
    out = tmp_path / "out"
    assert main(["rescore", "planbench", str(f), "--instances", str(PLANBENCH), "--out", str(out),
                 "--disagreements", "none"]) == 0
    assert "thinking checked: 4 traces, 2 with a first error" in capsys.readouterr().out
    records = {r["instance_id"]: r for r in map(json.loads, (out / "answers.jsonl").read_text().splitlines())}
    for iid, kind in expect.items():
        fe = records[iid]["trace"]["first_error"]
        assert (fe and fe["kind"]) == kind
        assert records[iid]["trace"]["final_answer_correct"] == records[iid]["flexible"]["valid"]
    assert "trace" not in records[keep[4]["instance_id"]]
    summary = json.loads((out / "summary.json").read_text())
    run = summary["traces"]["run"]
    assert run["traces"] == 4 and run["with_error"] == 2
    assert list(summary["traces"]["cells"]) == ["plan-generation | planbench"]
