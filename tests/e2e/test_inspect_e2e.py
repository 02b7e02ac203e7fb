"""widthbench inside inspect_ai, end to end (issue 31).

`widthbench export inspect` writes a task folder; the real `inspect eval` CLI (inspect's
OpenAI-compatible provider, `openai-api/<service>/<model>`) runs it against a server; then

- against `sim:oracle` every exported task scores 100% on every metric by both readers, with no
  parse error, and the server saw thinking switched on and off per request; the registered task
  `widthbench/plan_verification` (the entry point) does the same with `-T` parameters;
- against `sim:noisy:0.2` and SmolLM2 on the real vLLM CPU server, the replies inspect logged are
  replayed to `widthbench score --items DIR`: per sample, inspect's score equals the score record's
  readings of the same reply text, and per task, inspect's metrics equal the score summary's rows
  (headline and strict reader, parse errors, per-action counts);
- `widthbench report LOGDIR` imports the inspect logs and gives the same table rows as the native
  score run on the same replies.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.replay import exported_cells, replay_key, replayed_score, report_rows, table_cells
from widthbench.cli import main

pytest.importorskip("inspect_ai", reason="inspect-ai is not installed (pip install -e '.[inspect]')")

INSPECT_TIMEOUT = 900
INSPECT = Path(sys.executable).with_name("inspect")


def _export(folder: Path, *args: str) -> dict:
    assert main(["export", "inspect", "--out", str(folder), *args]) == 0
    return json.loads((folder / "widthbench_export.json").read_text())


def _inspect_eval(target: str, base_url: str, model: str, log_dir: Path, extra=()) -> dict:
    """Run `inspect eval` in log_dir's parent (inspect takes task folders and files as relative
    paths only); task name -> its log (inspect_ai.log.EvalLog, samples included)."""
    from inspect_ai.log import read_eval_log

    env = {**os.environ, "WBSERVER_BASE_URL": base_url, "WBSERVER_API_KEY": "EMPTY", "INSPECT_LOG_LEVEL": "warning"}
    cmd = [str(INSPECT), "eval", target, "--model", f"openai-api/wbserver/{model}", "--log-dir", str(log_dir),
           "--max-tasks", "4", "--max-connections", "8", "--display", "none", "--max-retries", "2", *extra]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=INSPECT_TIMEOUT, env=env, cwd=log_dir.parent)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    logs = {}
    for path in sorted(log_dir.glob("*.eval")):
        log = read_eval_log(str(path))
        assert log.status == "success", (path, log.error)
        logs[log.eval.task] = log
    return logs


def _metrics(log) -> dict[str, float]:
    (scores,) = log.results.scores
    return {k: m.value for k, m in scores.metrics.items()}


def _logged_replies(logs: dict) -> dict[str, tuple]:
    """replay_key -> (text, reasoning) inspect logged for that request."""
    out = {}
    for log in logs.values():
        for s in log.samples:
            for (system, user), reply in zip(s.metadata["requests"], s.store["widthbench_replies"]):
                messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
                out[replay_key(messages, bool(s.metadata["thinking"]))] = (reply["text"], reply["reasoning"])
    return out


def _check_agreement(meta: dict, logs: dict, summary: dict, records: list[dict]) -> int:
    """Per sample and per task, inspect's scores equal widthbench score's on the same replies."""
    from widthbench.subtasks.harness.item_sets import task_name

    compared = 0
    for sub, metrics, style, thinking, recs, rows in exported_cells(meta, summary, records):
        log = logs[task_name(meta["domain"], sub, style, thinking)]
        assert log.plan.config.extra_body["chat_template_kwargs"] == {"enable_thinking": thinking}
        assert len(log.samples) == meta["items"][sub]
        for s in log.samples:
            rec = recs[(sub, s.id, style, thinking)]
            texts = rec["raw_answer"] if isinstance(rec["raw_answer"], list) else [rec["raw_answer"]]
            # widthbench's client drops the blank lines vLLM puts before a thinking reply's answer
            assert [t.strip() for t in texts] == [r["text"].strip() for r in s.store["widthbench_replies"]]
            # what inspect sent: thinking switched per request, max_tokens as score sends it
            sent = [e.call.request for e in s.events if e.event == "model"]
            assert len(sent) == len(texts)
            assert all(r["extra_body"]["chat_template_kwargs"] == {"enable_thinking": thinking} for r in sent)
            want_max = rec["max_tokens"] if isinstance(rec["max_tokens"], list) else [rec["max_tokens"]]
            assert [r["max_tokens"] for r in sent] == want_max
            score = s.scores["widthbench"]
            for reader, suffix in (("flexible", ""), ("strict", "_strict")):
                reading = rec["readings"][reader]
                assert score.value["parse_error" + suffix] == int(bool(reading["parse_error"]))
                assert score.metadata["readings"][reader]["parse_error"] == reading["parse_error"]
                assert score.metadata["readings"][reader]["parsed"] == reading["parsed"]
                for m in metrics:
                    want = reading["metrics"].get(m, 0)
                    if isinstance(want, list):
                        assert score.metadata["counts"][m + suffix] == want, (sub, s.id, m)
                    else:
                        assert score.value[m + suffix] == int(want), (sub, s.id, m)
                compared += 1
        # the aggregates: inspect's per task = the score summary's rows
        got = _metrics(log)
        for reader, suffix in (("flexible", ""), ("strict", "_strict")):
            for m in metrics:
                row = rows[(sub, m, style, "on" if thinking else "off", reader)]
                assert got[m + suffix] == pytest.approx(row["correct"] / row["n"], abs=1e-9)
            row = rows[(sub, metrics[0], style, "on" if thinking else "off", reader)]
            assert got["parse_error" + suffix] == pytest.approx(row["parse_errors"] / row["items"], abs=1e-9)
    return compared


def test_oracle_scores_100_percent_on_every_exported_task_with_thinking_on_and_off(sim, tmp_path):
    from widthbench.subtasks.registry import Registry

    folder = tmp_path / "tasks"
    meta = _export(folder, "--subtask", "all", "--count", "2")
    reg = Registry.default()
    assert meta["subtasks"] == list(reg.names) and len(meta["tasks"]) == 2 * 2 * len(reg.names)
    # inspect lists the tasks of a folder (relative paths only)
    listed = subprocess.run([str(INSPECT), "list", "tasks", "tasks"], capture_output=True, text=True, timeout=600,
                            cwd=tmp_path)
    assert sorted(line.rsplit("@", 1)[1] for line in listed.stdout.split()) == sorted(meta["tasks"])
    server = sim("sim:oracle")
    logs = _inspect_eval("tasks", server.base_url, "sim:oracle", tmp_path / "logs")
    assert sorted(logs) == sorted(meta["tasks"])
    for task, log in logs.items():
        sub = next(s for s in reg.names if task.startswith(f"widthbench_blocksworld_{s.replace('-', '_')}_")
                   and task.removeprefix(f"widthbench_blocksworld_{s.replace('-', '_')}_").count("_") == 1)
        got = _metrics(log)
        for m in (x.name for x in reg.get(sub).metrics):
            assert got[m] == 1.0 and got[f"{m}_strict"] == 1.0, (task, m)
        assert got["parse_error"] == 0.0 and got["parse_error_strict"] == 0.0, task
        assert len(log.samples) == 2
    bodies = server.stats(bodies=True)["recent_bodies"]
    assert {(b.get("chat_template_kwargs") or {}).get("enable_thinking") for b in bodies} == {True, False}
    # the preset of each mode travels as score sends it: top_k beside the thinking switch
    assert all(b.get("top_k") == 20 and "temperature" in b for b in bodies)


def test_registered_task_through_the_entry_point_with_task_parameters(sim, tmp_path):
    server = sim("sim:oracle")
    logs = _inspect_eval("widthbench/plan_verification", server.base_url, "sim:oracle", tmp_path / "logs",
                         ["-T", "style=pddl", "-T", "thinking=on", "-T", "count=3", "-T", "seed=2",
                          "-T", "domain=blocksworld"])
    (log,) = logs.values()
    assert log.eval.task == "widthbench/plan_verification" and len(log.samples) == 3
    assert _metrics(log)["accuracy"] == 1.0 and _metrics(log)["accuracy_strict"] == 1.0
    # the same items score builds with the same options
    from widthbench.subtasks.score_run import ScoreConfig, build_all_items

    built = build_all_items(ScoreConfig(subtasks=("plan-verification",), count=3, seed=2))["plan-verification"]
    # the same items (the log lists its samples in id order, score in the items' order)
    assert sorted(s.id for s in log.samples) == sorted(i.id for i in built)
    bodies = server.stats(bodies=True)["recent_bodies"]
    assert {b["chat_template_kwargs"]["enable_thinking"] for b in bodies} == {True}


def test_noisy_model_per_sample_verdicts_aggregates_and_report_equal_widthbench_score(sim, tmp_path, monkeypatch):
    folder = tmp_path / "tasks"
    meta = _export(folder, "--subtask", "paper", "--count", "3")
    server = sim("sim:noisy:0.2")
    logs = _inspect_eval("tasks", server.base_url, "sim:noisy:0.2", tmp_path / "logs")
    headline = [_metrics(log)[k] for log in logs.values() for k in ("exact", "accuracy", "valid") if k in _metrics(log)]
    assert min(headline) < 1.0  # the noise shows (else agreement would prove little)
    native = tmp_path / "run"
    summary, records = replayed_score(folder, _logged_replies(logs), native, meta, monkeypatch)
    assert _check_agreement(meta, logs, summary, records) == 2 * 2 * 2 * 3 * len(meta["subtasks"])
    # widthbench report of the inspect logs = the report of the native run on the same replies
    assert main(["report", str(tmp_path / "logs")]) == 0
    imported = tmp_path / "logs.widthbench"
    assert main(["report", str(native)]) == 0
    assert report_rows(imported) == report_rows(native)
    assert table_cells(imported) == table_cells(native)
    # side by side with the native run: both models' rows, one report.html
    assert main(["report", str(tmp_path / "logs"), str(native), "--out", str(tmp_path / "both")]) == 0
    with open(tmp_path / "both" / "rows.csv", newline="") as f:
        assert {r["model"] for r in csv.DictReader(f)} == {"inspect:openai-api/wbserver/sim:noisy:0.2", "openai:replay"}
    assert (tmp_path / "both" / "report.html").is_file()
    # the imported run's records carry inspect's reasoning and token counts
    from widthbench.subtasks.score_run import read_records

    think = [r for r in read_records(imported) if r["thinking"]]
    assert think and all(r["reasoning"] for r in think) and all(r["tokens"]["completion"] > 0 for r in think)


@pytest.mark.vllm
def test_smollm2_on_real_vllm_per_sample_verdicts_and_aggregates_equal_widthbench_score(smollm2, tmp_path, monkeypatch):
    folder = tmp_path / "tasks"
    meta = _export(folder, "--subtask", "plan-verification,successor-separate", "--count", "2", "--style", "nl",
                   "--max-tokens", "40")
    logs = _inspect_eval("tasks", smollm2.base_url, smollm2.name, tmp_path / "logs")
    native = tmp_path / "run"
    summary, records = replayed_score(folder, _logged_replies(logs), native, meta, monkeypatch)
    # sub-tasks x style x thinking modes x items x readers
    assert _check_agreement(meta, logs, summary, records) == 2 * 1 * 2 * 2 * 2
    assert main(["report", str(tmp_path / "logs")]) == 0
    assert main(["report", str(native)]) == 0
    assert report_rows(tmp_path / "logs.widthbench") == report_rows(native)


def test_the_agent_task_through_inspect_eval_agrees_per_sample_with_solve(sim, tmp_path):
    """`inspect eval widthbench/agent` against the sim-server (the tools offered through the OpenAI
    API, sim:oracle answering with tool calls) and `solve --method agent --tool-format openai` on the
    same instances: every sample's score is that instance's record."""
    server = sim("sim:oracle")
    logs = _inspect_eval("widthbench/agent", server.base_url, "sim:oracle", tmp_path / "logs",
                         ["-T", "count=3", "-T", "seed=4", "-T", "style=nl", "-T", "max_steps=30"])
    (log,) = logs.values()
    assert log.eval.task == "widthbench/agent" and len(log.samples) == 3
    run = tmp_path / "run"
    assert main(["solve", "--method", "agent", "--tool-format", "openai", "--domain", "blocksworld", "--count", "3",
                 "--seed", "4", "--style", "nl", "--max-steps", "30", "--model", "sim:oracle", "--no-cache",
                 "--quiet", "--thinking", "off", "--out", str(run)]) == 0
    items = {json.loads(line)["id"]: json.loads(line) for line in (run / "items.jsonl").read_text().splitlines()}
    for s in log.samples:
        got, want = s.scores["widthbench_agent"].value, items[s.id]
        assert bool(got["solved"]) and want["solved"]
        for key in ("steps", "turns", "invalid_actions"):
            assert got[key] == want[key], (s.id, key)
    assert _metrics(log)["invalid_action_rate"] == 0
