"""widthbench inside lm-evaluation-harness, end to end (issue 20).

`widthbench export lm-eval` writes a task folder; the real `lm_eval` CLI (local-chat-completions,
--apply_chat_template, --log_samples) runs it against a server; then

- against `sim:oracle` every exported task scores 100% with no parse error;
- against `sim:noisy:0.2` and SmolLM2 on the real vLLM CPU server, the replies lm-eval logged are
  replayed to `widthbench score --items DIR` (a replay server answers each request with the reply
  lm-eval got for the same messages and thinking mode): per sample, lm-eval's verdicts equal the
  score record's readings of the same reply text, and per task, lm-eval's aggregates equal the
  score summary's rows (headline and strict reader, parse errors);
- thinking on and off are both sent (the server saw ``enable_thinking`` true and false) and
  recorded (lm-eval's logged request arguments carry them).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.replay import exported_cells, replay_key, replayed_score, report_rows, table_cells
from widthbench.cli import main

pytest.importorskip("lm_eval", reason="lm-eval is not installed (pip install -e '.[lmeval]')")
pytest.importorskip("datasets", reason="lm-eval's datasets is not installed")

LM_EVAL_TIMEOUT = 600


def _export(folder: Path, *args: str) -> dict:
    assert main(["export", "lm-eval", "--out", str(folder), *args]) == 0
    return json.loads((folder / "widthbench_export.json").read_text())


def _lm_eval(folder: Path, tasks: str, base_url: str, model: str, out: Path, extra=()) -> tuple[dict, dict]:
    """Run the lm_eval CLI; (results["results"], task -> logged samples)."""
    cmd = [sys.executable, "-m", "lm_eval", "run", "--model", "local-chat-completions",
           "--include_path", str(folder), "--tasks", tasks, "--apply_chat_template", "--log_samples",
           "--output_path", str(out),
           "--model_args", f"model={model},base_url={base_url}/chat/completions,num_concurrent=4,"
                           "tokenized_requests=False,max_retries=2", *extra]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=LM_EVAL_TIMEOUT)
    assert done.returncode == 0, done.stderr[-3000:]
    results_file = next(out.rglob("results_*.json"))
    samples = {}
    for path in out.rglob("samples_*.jsonl"):
        task = path.name.removeprefix("samples_").rsplit("_", 1)[0]
        samples[task] = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return json.loads(results_file.read_text())["results"], samples


def _request(sample: dict) -> tuple[list[dict], dict]:
    """(messages, generation kwargs) lm-eval sent for a logged sample."""
    args = sample["arguments"]["gen_args_0"]
    prompt = args["arg_0"][0] if isinstance(args["arg_0"], list) else args["arg_0"]
    return json.loads(prompt), args["arg_1"]


def _subtask_of(task: str) -> str:
    """successor-mapping of widthbench_blocksworld_successor_mapping_nl_nothink."""
    return task.removeprefix("widthbench_blocksworld_").rsplit("_", 2)[0].replace("_", "-")


def _thinking_of(task: str) -> bool:
    return task.endswith("_think")


def _logged_replies(samples: dict) -> dict[str, str]:
    """replay_key -> the reply lm-eval logged for it."""
    out = {}
    for task, rows in samples.items():
        for s in rows:
            out[replay_key(_request(s)[0], _thinking_of(task))] = s["filtered_resps"][0] or ""
    return out


def _replayed_score(folder: Path, samples: dict, run: Path, meta: dict, monkeypatch) -> tuple[dict, list[dict]]:
    return replayed_score(folder, _logged_replies(samples), run, meta, monkeypatch)


def _check_agreement(folder: Path, meta: dict, results: dict, samples: dict, summary: dict, records: list[dict]):
    """Per sample and per task, lm-eval's verdicts equal widthbench score's on the same replies."""
    from widthbench.subtasks.harness.lmeval import task_name

    compared = 0
    for sub, metrics, style, thinking, recs, rows in exported_cells(meta, summary, records):
        task = task_name(meta["domain"], sub, style, thinking)
        logged = samples[task]
        by_item: dict[str, list[dict]] = {}
        for s in sorted(logged, key=lambda s: (s["doc"]["item_id"], s["doc"]["part"])):
            by_item.setdefault(s["doc"]["item_id"], []).append(s)
            assert _request(s)[1]["chat_template_kwargs"] == {"enable_thinking": thinking}
        assert len(by_item) == meta["items"][sub]
        for item_id, parts in by_item.items():
            rec = recs[(sub, item_id, style, thinking)]
            texts = rec["raw_answer"] if isinstance(rec["raw_answer"], list) else [rec["raw_answer"]]
            # widthbench's client drops the blank lines vLLM puts before a thinking reply's answer
            assert [t.strip() for t in texts] == [(p["filtered_resps"][0] or "").strip() for p in parts]
            for reader, suffix in (("flexible", ""), ("strict", "_strict")):
                reading = rec["readings"][reader]
                got_error = [p["parse_error" + suffix] for p in parts]
                if parts[0]["doc"]["per_item"]:
                    assert any(v for _, v in got_error) == bool(reading["parse_error"])
                else:
                    assert got_error == [int(bool(reading["parse_error"]))]
                for m in metrics:
                    want = reading["metrics"].get(m, 0)
                    got = [p[m + suffix] for p in parts]
                    if isinstance(want, list):
                        assert [sum(g[0] for g in got), sum(g[1] for g in got)] == want, (task, item_id, m)
                    elif parts[0]["doc"]["per_item"]:
                        assert all(v for _, v in got) == bool(want), (task, item_id, m)
                    else:
                        assert got == [int(want)], (task, item_id, m)
                compared += 1
        # the aggregates: lm-eval's per task = the score summary's rows
        res = results[task]
        for reader, suffix in (("flexible", ""), ("strict", "_strict")):
            for m in metrics:
                row = rows[(sub, m, style, "on" if thinking else "off", reader)]
                assert res[f"{m}{suffix},none"] == pytest.approx(row["correct"] / row["n"], abs=1e-9)
            row = rows[(sub, metrics[0], style, "on" if thinking else "off", reader)]
            assert res[f"parse_error{suffix},none"] == pytest.approx(row["parse_errors"] / row["items"], abs=1e-9)
    return compared


def test_oracle_scores_100_percent_on_every_exported_task_with_thinking_on_and_off(sim, tmp_path):
    from widthbench.subtasks.registry import Registry

    folder = tmp_path / "tasks"
    meta = _export(folder, "--subtask", "all", "--count", "2")
    reg = Registry.default()
    assert meta["subtasks"] == list(reg.names)
    server = sim("sim:oracle")
    import yaml

    paper = yaml.safe_load((folder / "widthbench_paper.yaml").read_text())["task"]
    assert sorted(paper) == sorted(t for t in meta["tasks"] if _subtask_of(t) in reg.paper)
    rest = [t for t in meta["tasks"] if t not in paper]
    # the paper group by its name, the other sub-tasks' tasks by theirs
    results, samples = _lm_eval(folder, ",".join(["widthbench_paper", *rest]), server.base_url, "sim:oracle",
                                tmp_path / "out")
    assert set(meta["tasks"]) <= set(results) and len(meta["tasks"]) == 2 * 2 * len(reg.names)
    for sub in meta["subtasks"]:
        tasks = [t for t in meta["tasks"] if _subtask_of(t) == sub]
        assert len(tasks) == 4
        for task in tasks:
            for m in (x.name for x in reg.get(sub).metrics):
                assert results[task][f"{m},none"] == 1.0, (task, m)
                assert results[task][f"{m}_strict,none"] == 1.0, (task, m)
            assert results[task]["parse_error,none"] == 0.0
    # thinking sent both ways: the server's request bodies, and lm-eval's logged arguments
    bodies = server.stats(bodies=True)["recent_bodies"]
    assert {(b.get("chat_template_kwargs") or {}).get("enable_thinking") for b in bodies} == {True, False}
    for task, rows in samples.items():
        assert {_request(s)[1]["chat_template_kwargs"]["enable_thinking"] for s in rows} == {_thinking_of(task)}


def test_noisy_model_per_sample_verdicts_and_aggregates_equal_widthbench_score(sim, tmp_path, monkeypatch):
    folder = tmp_path / "tasks"
    meta = _export(folder, "--subtask", "paper", "--count", "3")
    server = sim("sim:noisy:0.2")
    results, samples = _lm_eval(folder, "widthbench_blocksworld", server.base_url, "sim:noisy:0.2", tmp_path / "out")
    headline = [results[t][k] for t in meta["tasks"] for k in results[t] if k in ("exact,none", "accuracy,none", "valid,none")]
    assert min(headline) < 1.0  # the noise shows (else agreement would prove little)
    summary, records = _replayed_score(folder, samples, tmp_path / "run", meta, monkeypatch)
    assert _check_agreement(folder, meta, results, samples, summary, records) == 2 * 2 * 2 * 3 * len(meta["subtasks"])
    # widthbench report of lm-eval's samples folder = the report of the native run on the same replies
    # (lm-eval logs no reasoning, so the native cells' "thinking requested, none produced" notes are left out)
    assert main(["report", str(tmp_path / "out")]) == 0
    assert main(["report", str(tmp_path / "run")]) == 0
    imported = tmp_path / "out.widthbench"
    assert report_rows(imported) == report_rows(tmp_path / "run")
    assert table_cells(imported, notes=False) == table_cells(tmp_path / "run", notes=False)
    assert (imported / "report.html").is_file()


@pytest.mark.vllm
def test_smollm2_on_real_vllm_per_sample_verdicts_and_aggregates_equal_widthbench_score(smollm2, tmp_path, monkeypatch):
    folder = tmp_path / "tasks"
    meta = _export(folder, "--subtask", "plan-verification,successor-separate", "--count", "2", "--style", "nl",
                   "--max-tokens", "40")
    results, samples = _lm_eval(folder, "widthbench_blocksworld", smollm2.base_url, smollm2.name, tmp_path / "out")
    summary, records = _replayed_score(folder, samples, tmp_path / "run", meta, monkeypatch)
    # sub-tasks x style x thinking modes x items x readers
    assert _check_agreement(folder, meta, results, samples, summary, records) == 2 * 1 * 2 * 2 * 2
