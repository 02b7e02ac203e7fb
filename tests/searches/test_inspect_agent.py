"""The agent as an inspect_ai task with tools (`searches.inspect_agent`): on the same replies, every
sample agrees with the record `solve --method agent --tool-format openai` writes (in process, with
inspect's mock model answering as the simulated model would)."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

inspect_ai = pytest.importorskip("inspect_ai", reason="inspect-ai is not installed (pip install -e '.[inspect]')")

from inspect_ai.model import ChatMessageAssistant, ModelOutput, ModelUsage  # noqa: E402
from inspect_ai.tool import ToolCall  # noqa: E402

from widthbench.llm.completions import hermes_tool_calls  # noqa: E402
from widthbench.searches import inspect_agent  # noqa: E402
from widthbench.searches.solve_run import load_problems, read_items, solve  # noqa: E402
from widthbench.simulated import Simulator  # noqa: E402

LABEL = "noisy:0.4"


def _seed(messages) -> int:
    """The reply depends on the last question only (the last user message or tool result)."""
    last = next(m["content"] for m in reversed(messages) if m["role"] in ("user", "tool"))
    return int(hashlib.sha256(last.encode()).hexdigest()[:12], 16)


class SameReplies:
    """A simulator whose replies are a function of the last question, for solve's model."""

    def __init__(self):
        self.sim = Simulator()

    def reply(self, label, messages, thinking, rng):
        return self.sim.reply(label, messages, thinking, random.Random(_seed(messages)))


def _mock_outputs():
    sim = SameReplies()

    def reply(messages, tools, tool_choice, config):
        plain = [{"role": m.role, "content": m.text} for m in messages]
        text = sim.reply(LABEL, plain, False, None)[0]
        rest, calls = hermes_tool_calls(text)
        msg = ChatMessageAssistant(content=rest, tool_calls=[
            ToolCall(id=c["id"], function=c["name"], arguments=json.loads(c["arguments"])) for c in calls] or None)
        out = ModelOutput.from_message(msg, stop_reason="tool_calls" if calls else "stop")
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return reply


def test_inspect_agent_agrees_per_sample_with_solve(tmp_path):
    from widthbench.llm import open_model

    task = inspect_agent.agent(style="nl", count=4, seed=5, blocks="4", max_steps=30)
    (log,) = inspect_ai.eval(task, model="mockllm/model", model_args={"custom_outputs": _mock_outputs()},
                             log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success"
    log = inspect_ai.log.read_eval_log(log.location)
    problems = load_problems("blocksworld", count=4, seed=5, style="nl", generator_options={"blocks": "4"})
    model = open_model(f"sim:{LABEL}", simulator=SameReplies(), cache_dir=tmp_path / "cache")
    try:
        summary = solve(inspect_agent.agent_config("nl", 5, 30, "on", 0), problems, model, tmp_path / "run",
                        progress=False)
    finally:
        model.close()
    items = {it["id"]: it for it in read_items(tmp_path / "run")}
    assert [s.id for s in log.samples] == [p.id for p in problems]
    invalid = 0
    for s in log.samples:
        got, want = s.scores["widthbench_agent"], items[s.id]
        for key in ("steps", "turns", "invalid_actions", "valid_actions_calls", "progress"):
            assert got.value[key] == want[key], (s.id, key)
        assert bool(got.value["solved"]) == want["solved"] and bool(got.value["recovered"]) == want["recovered"]
        assert got.metadata["episode"] == want["episode"]
        invalid += want["invalid_actions"]
    assert invalid > 0  # the replies exercise refused actions
    metrics = {k: m.value for k, m in log.results.scores[0].metrics.items()}
    assert metrics["invalid_action_rate"] == pytest.approx(summary["invalid_action_rate"], abs=1e-4)
    assert metrics["solved"] == pytest.approx(summary["solved"] / summary["n"])
    assert metrics["recoveries"] == summary["recoveries"]
