"""The formalization sub-tasks go through the harness exports like every sub-task (issue 44): an
lm-eval export answered by the simulated models, as lm-eval would log it, is scored back by
widthbench (utils.py's hooks and the log import) with the verdicts `score` gives; and through
inspect's mock model the same."""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

import pytest

from widthbench.cli import main
from widthbench.simulated import Simulator
from widthbench.subtasks.harness import logs as harness_logs
from widthbench.subtasks.score_run import read_records

SUBTASKS = ("formalize-problem", "formalize-goal", "formalize-domain")
EXPORT = ["--subtask", ",".join(SUBTASKS), "--style", "nl", "--thinking", "off", "--count", "2", "--seed", "0"]


def _rows(export: Path, sub: str) -> list[dict]:
    return [json.loads(x) for x in (export / "data" / sub / "nl.jsonl").read_text().splitlines()]


def _answer(sim: Simulator, label: str, row: dict, seed: int) -> str:
    messages = [{"role": "system", "content": row["system"]}, {"role": "user", "content": row["user"]}]
    return sim.answer(label, messages, False, random.Random(seed))[0]


def _lm_eval_log(export: Path, logs: Path, replies: dict) -> Path:
    """An lm-eval --log_samples folder as lm-eval writes it, one sample per exported row, answered
    with ``replies[(sub, row id)]``."""
    model = logs / "m"
    model.mkdir(parents=True)
    stamp = "2026-01-01T00-00-00.000000"
    tasks = {f"widthbench_blocksworld_{sub.replace('-', '_')}_nl_nothink": sub for sub in SUBTASKS}
    (model / f"results_{stamp}.json").write_text(json.dumps({
        "config": {"model_args": "model=m,base_url=http://x"},
        "configs": {t: {"custom_dataset": f"functools.partial(<function load_dataset>, PosixPath('{export}'))"}
                    for t in tasks}}))
    for task, sub in tasks.items():
        samples = []
        for row in _rows(export, sub):
            text = replies[(sub, row["id"])]
            samples.append({"doc": row, "resps": [[text]], "filtered_resps": [text],
                            "arguments": {"gen_args_0": {"arg_0": json.dumps(
                                [{"role": "system", "content": row["system"]}, {"role": "user", "content": row["user"]}]),
                                "arg_1": {"max_gen_toks": 4096}}}})
        (model / f"samples_{task}_{stamp}.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    return model


@pytest.mark.parametrize("label,right", [("oracle", True), ("noisy:1.0", False)])
def test_an_lm_eval_export_answered_by_a_simulated_model_is_scored_back(tmp_path, label, right):
    pytest.importorskip("yaml")
    export = tmp_path / "tasks"
    assert main(["export", "lm-eval", *EXPORT, "--out", str(export)]) == 0
    sim = Simulator()
    replies = {(sub, row["id"]): _answer(sim, label, row, n) for sub in SUBTASKS
               for n, row in enumerate(_rows(export, sub))}
    spec = importlib.util.spec_from_file_location("formalize_utils", export / "utils.py")
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    for (sub, row_id), text in replies.items():
        doc = next(r for r in _rows(export, sub) if r["id"] == row_id)
        got = utils.process_results_nothink(doc, [text])
        assert got["equivalent"] == ([1, 1] if right else [0, 1]) and got["parse_error"] == 0, (sub, got)
    run = harness_logs.import_log(_lm_eval_log(export, tmp_path / "logs", replies), out=tmp_path / "run")
    records = read_records(run)
    assert sorted({r["subtask"] for r in records}) == sorted(SUBTASKS) and len(records) == 6
    for rec in records:
        assert (rec["metrics"]["reason"] == "equivalent") is right, rec["metrics"]["message"]
    rows = json.loads((run / "summary.json").read_text())["rows"]
    assert {(r["subtask"], r["correct"], r["n"]) for r in rows if r["metric"] == "equivalent"} == {
        (sub, 2 if right else 0, 2) for sub in SUBTASKS}


def test_inspect_tasks_of_the_formalize_subtasks_score_the_oracle_in_full(tmp_path):
    inspect_ai = pytest.importorskip("inspect_ai")
    import inspect_ai.log
    from inspect_ai.model import ModelOutput, ModelUsage

    from widthbench.subtasks.harness import inspect_tasks

    sim = Simulator()

    def reply(messages, tools, tool_choice, config):
        plain = [{"role": m.role, "content": m.text} for m in messages]
        out = ModelOutput.from_content(model="mockllm", content=sim.answer("oracle", plain, False, random.Random(0))[0])
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    tasks = [inspect_tasks.widthbench_task(s, style="pddl", thinking="off", count=2, seed=2) for s in SUBTASKS]
    logs = inspect_ai.eval(tasks, model="mockllm/model", model_args={"custom_outputs": reply},
                           log_dir=str(tmp_path / "logs"), display="none", max_tasks=3)
    assert all(log.status == "success" for log in logs)
    run = harness_logs.import_log(tmp_path / "logs", out=tmp_path / "run")
    rows = json.loads((run / "summary.json").read_text())["rows"]
    assert {(r["subtask"], r["metric"]) for r in rows} >= {(s, "equivalent") for s in SUBTASKS}
    assert all(r["correct"] == r["n"] == 2 for r in rows), rows
