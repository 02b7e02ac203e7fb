"""The inspect_ai tasks (`subtasks.inspect_tasks`) and harness logs read back (`subtasks.harness_logs`),
in process with inspect's mock model (the runs through the `inspect eval` CLI against servers are
tests/e2e/test_inspect_e2e.py):

- a task's samples are the items `score` builds, asking the messages `score` sends with the
  max_tokens `score` sends and the mode's sampling preset, thinking switched in extra_body;
- on replies of every kind (right, wrong, unreadable), every sample's score is what
  `score.score_item` gives for the same text, and the task's metrics are `run.summarise`'s rows;
- the log imported back (`import_log`) gives the records and rows `score` would have written;
- the metric adds per-action counts (right actions over all actions), never averages fractions.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

inspect_ai = pytest.importorskip("inspect_ai", reason="inspect-ai is not installed (pip install -e '.[inspect]')")
import inspect_ai.log  # noqa: E402

from inspect_ai.model import ModelOutput, ModelUsage  # noqa: E402
from inspect_ai.scorer import SampleScore, Score  # noqa: E402

from widthbench.cli import main  # noqa: E402
from widthbench.llm.types import PRESETS  # noqa: E402
from widthbench.subtasks.harness import inspect_tasks, logs as harness_logs  # noqa: E402
from widthbench.subtasks.registry import Registry  # noqa: E402
from widthbench.subtasks.score_run import ScoreConfig, build_all_items, summarise  # noqa: E402
from widthbench.subtasks.scoring import Mode, requests_for, score_item  # noqa: E402

UNREADABLE = "I am not sure what the answer is."


def _replier():
    """A mock model answering widthbench prompts: the engine's answer, a corrupted one, or text
    that reads as nothing, chosen by a hash of the prompt (so reruns repeat it)."""
    from widthbench.simulated import Simulator

    sim = Simulator()

    def reply(messages, tools, tool_choice, config):
        plain = [{"role": m.role, "content": m.text} for m in messages]
        h = int(hashlib.sha256(json.dumps(plain).encode()).hexdigest(), 16)
        thinking = config.extra_body["chat_template_kwargs"]["enable_thinking"]
        if h % 4 == 0:
            text = UNREADABLE
        else:
            text, _ = sim.answer("noisy:0.5", plain, thinking, random.Random(h))
        out = ModelOutput.from_content(model="mockllm", content=text)
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download
        return out

    return reply


@pytest.fixture(scope="module")
def mock_logs(tmp_path_factory):
    """Every sub-task in one mode (nl, thinking on, 3 items) run through inspect's mock model."""
    log_dir = tmp_path_factory.mktemp("inspect") / "logs"
    reg = Registry.default()
    tasks = [inspect_tasks.widthbench_task(s, style="nl", thinking="on", count=3, seed=1) for s in reg.names]
    logs = inspect_ai.eval(tasks, model="mockllm/model", model_args={"custom_outputs": _replier()},
                           log_dir=str(log_dir), display="none", max_tasks=4)
    assert all(log.status == "success" for log in logs)
    logs = [inspect_ai.log.read_eval_log(log.location, resolve_attachments=True) for log in logs]
    return log_dir, {log.eval.metadata["widthbench"]["subtask"]: log for log in logs}


def test_samples_are_the_items_and_requests_score_builds(mock_logs):
    _, logs = mock_logs
    reg = Registry.default()
    mode = Mode("nl", True)
    for sub, log in logs.items():
        items = build_all_items(ScoreConfig(subtasks=(sub,), count=3, seed=1))[sub]
        samples = {s.id: s for s in log.samples}  # the log lists its samples by id
        assert sorted(samples) == sorted(i.id for i in items) and len(samples) == len(items)
        for item in items:
            sample = samples[item.id]
            requests = requests_for(item, mode, None, registry=reg)
            events = [e for e in sample.events if e.event == "model"]
            assert [[{"role": m["role"], "content": m["content"]} for m in e.call.request["messages"]]
                    for e in events] == [r.message_dicts() for r in requests]
            # max_tokens as score sends it (its per-item default, 16,384 thinking unless the answer needs more)
            assert [e.config.max_tokens for e in events] == [r.max_tokens or 16384 for r in requests]
            assert all(e.config.extra_body["chat_template_kwargs"] == {"enable_thinking": True} for e in events)
        config = log.plan.config
        preset = PRESETS["qwen3"]["thinking"]
        assert (config.temperature, config.top_p) == (preset["temperature"], preset["top_p"])
        assert config.extra_body == {"top_k": preset["top_k"], "min_p": preset["min_p"],
                                     "chat_template_kwargs": {"enable_thinking": True}}


def test_every_sample_score_is_score_items_and_metrics_are_summary_rows(mock_logs):
    _, logs = mock_logs
    reg = Registry.default()
    seen_errors = seen_right = seen_wrong = 0
    for sub, log in logs.items():
        items = {i.id: i for i in build_all_items(ScoreConfig(subtasks=(sub,), count=3, seed=1))[sub]}
        records = []
        for s in log.samples:
            texts = [r["text"] for r in s.store["widthbench_replies"]]
            want = score_item(items[s.id], Mode("nl", True), texts, registry=reg)
            value, counts = inspect_tasks.sample_values(want, sub, reg)
            got = s.scores["widthbench"]
            assert got.value == value and got.metadata["counts"] == counts
            assert got.metadata["readings"]["flexible"]["parse_error"] == want["readings"]["flexible"]["parse_error"]
            assert got.explanation == (want["parse_error"] or ("correct" if want["correct"] else "wrong"))
            seen_errors += bool(want["parse_error"])
            seen_right += bool(want["correct"])
            seen_wrong += not want["correct"] and not want["parse_error"]
            records.append({"subtask": sub, "style": "nl", "thinking": True, "extension": False,
                            "domain": items[s.id].domain, "info": items[s.id].info, "tokens": {"prompt": 0, "completion": 0, "thinking": 0},
                            **want})
        rows = summarise(records, model_spec="m", simulated=False, registry=reg)
        metrics = {k: m.value for k, m in log.results.scores[0].metrics.items()}
        for reader, suffix in (("flexible", ""), ("strict", "_strict")):
            mine = rows["rows"] if reader == "flexible" else rows["reader_rows"]["strict"]
            for row in mine:
                assert metrics[row["metric"] + suffix] == pytest.approx(row["correct"] / row["n"], abs=1e-12)
                assert metrics["parse_error" + suffix] == pytest.approx(row["parse_errors"] / row["items"], abs=1e-12)
    assert seen_errors and seen_right and seen_wrong  # the replies exercise every verdict


def test_imported_log_gives_the_records_and_rows_score_writes(mock_logs, tmp_path):
    log_dir, logs = mock_logs
    assert harness_logs.harness_of(log_dir) == "inspect"
    run = harness_logs.import_log(log_dir, out=tmp_path / "run")
    from widthbench.subtasks.score_run import read_records

    records = read_records(run)
    assert len(records) == 3 * len(logs)
    for rec in records:
        log = logs[rec["subtask"]]
        sample = next(s for s in log.samples if s.id == rec["item_id"])
        texts = [r["text"] for r in sample.store["widthbench_replies"]]
        assert rec["raw_answer"] == (texts[0] if len(texts) == 1 else texts)
        assert rec["readings"] == score_item(_item(rec), Mode("nl", True), texts)["readings"]
        assert rec["thinking"] is True and rec["model"] == "inspect:mockllm/model"
    summary = json.loads((run / "summary.json").read_text())
    assert summary["kind"] == "score" and summary["imported"]["harness"] == "inspect"
    for row in summary["rows"]:
        metrics = {k: m.value for k, m in logs[row["subtask"]].results.scores[0].metrics.items()}
        assert metrics[row["metric"]] == pytest.approx(row["correct"] / row["n"], abs=1e-12)
    # `widthbench report LOGDIR` imports it beside the log and writes the report there
    assert main(["report", str(log_dir)]) == 0
    assert (log_dir.parent / "logs.widthbench" / "report.html").is_file()
    # importing again replaces an import; a folder of the user's own is never overwritten
    assert main(["report", str(log_dir)]) == 0
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    from widthbench.core.errors import UserError

    with pytest.raises(UserError, match="not a run imported"):
        harness_logs.import_log(log_dir, out=mine)
    assert (mine / "notes.txt").read_text() == "mine"


def _item(rec):
    return _items_by_id(rec["subtask"])[rec["item_id"]]


@functools.lru_cache(maxsize=None)
def _items_by_id(sub: str) -> dict:
    """A sub-task's items built once per sub-task (Items are frozen), not once per record."""
    return {i.id: i for i in build_all_items(ScoreConfig(subtasks=(sub,), count=3, seed=1))[sub]}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(1, 9)), min_size=1, max_size=12))
def test_per_action_metric_adds_counts_and_item_metrics_are_means(pairs):
    pairs = [(min(r, n), n) for r, n in pairs]
    scores = [SampleScore(score=Score(value={"exact": int(r == n), "per-action": r / n, "parse_error": 0},
                                      metadata={"counts": {"per-action": [r, n]}}), sample_id=str(k))
              for k, (r, n) in enumerate(pairs)]
    got = inspect_tasks.widthbench_metrics()(scores)
    assert got["per-action"] == pytest.approx(sum(r for r, _ in pairs) / sum(n for _, n in pairs))
    assert got["exact"] == pytest.approx(sum(r == n for r, n in pairs) / len(pairs))
    assert got["parse_error"] == 0.0


def test_bad_task_parameters_and_logs_are_one_line_errors(tmp_path, capsys):
    from widthbench.core.errors import UserError

    with pytest.raises(UserError, match="style must be nl or pddl"):
        inspect_tasks.widthbench_task("plan-verification", style="latex")
    with pytest.raises(UserError, match="thinking must be on or off"):
        inspect_tasks.widthbench_task("plan-verification", thinking="maybe")
    # an lm-eval log whose export folder is gone: one line, exit 2, nothing written
    out = tmp_path / "lmeval" / "model"
    out.mkdir(parents=True)
    task = "widthbench_blocksworld_plan_verification_nl_nothink"
    (out / "results_2026.json").write_text(json.dumps({"config": {"model_args": {"model": "m"}}, "configs": {
        task: {"custom_dataset": "functools.partial(<function load_dataset>, PosixPath('/nonexistent/tasks'))"}}}))
    (out / f"samples_{task}_2026.jsonl").write_text(json.dumps({"doc": {"item_id": "x", "part": 0}}) + "\n")
    assert harness_logs.harness_of(tmp_path / "lmeval") == "lm-eval"
    capsys.readouterr()
    assert main(["report", str(tmp_path / "lmeval")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "export folder that is not here" in err[0] and "Traceback" not in err[0]
    assert not (tmp_path / "lmeval.widthbench").exists()
    # a native run folder is not a log
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "summary.json").write_text("{}")
    assert harness_logs.harness_of(tmp_path / "run") is None


def test_the_entry_point_registers_one_task_per_sub_task_with_its_parameters():
    """inspect loads the installed entry point (group inspect_ai, name widthbench) in a fresh
    interpreter and finds one task per sub-task, named with _ for -, taking the -T parameters
    docs/inspect.md lists (plan-verification also its invalid_kind), and the agent task."""
    import subprocess
    import sys

    code = """
import inspect
from importlib.metadata import entry_points
from inspect_ai._util.registry import registry_find, registry_info
(point,) = [e for e in entry_points(group="inspect_ai") if e.name == "widthbench"]
assert point.value == "widthbench.inspect_entry", point.value
point.load()
for f in registry_find(lambda i: i.type == "task"):
    print(registry_info(f).name, *inspect.signature(f).parameters)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    found = {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines()}
    assert set(found) - {"agent"} == {name.replace("-", "_") for name in Registry.default().names} \
        == set(inspect_tasks.TASKS)
    assert "agent" in found  # the step-by-step agent with tools (widthbench.searches.inspect_agent)
    params = ["style", "thinking", "count", "seed", "domain", "instances", "items", "max_tokens"]
    assert found["plan_verification"] == params + ["invalid_kind"]
    assert all(found[name] == params for name in found if name not in ("plan_verification", "agent"))
