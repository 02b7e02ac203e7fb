"""`solve --method agent` against real vLLM CPU servers (issue 42): an episode with OpenAI tool
calls from a tiny scripted Qwen3 whose answer is a Hermes <tool_call> block, parsed by vLLM's
hermes tool-call parser (`vllm_cpu_server.sh start ... --tools`), and a text-format episode with
SmolLM2; both recorded, scored on the engine, and resumed after a cut like every run."""

from __future__ import annotations

import json

import pytest

from widthbench.cli import main

pytestmark = pytest.mark.vllm

CALL = '<tool_call>\n{"name": "apply_action", "arguments": {"action": "(pick-up a)"}}\n</tool_call>'


def _items(run):
    return [json.loads(line) for line in (run / "items.jsonl").read_text().splitlines() if line.strip()]


def _solve(base_url, model, run, *extra):
    return main(["solve", "--method", "agent", "--domain", "blocksworld", "--count", "2", "--seed", "3",
                 "--blocks", "3", "--model", f"openai:{model}", "--base-url", base_url, "--no-cache",
                 "--quiet", "--thinking", "off", "--out", str(run), *extra])


def _resumes_after_a_cut(run, again) -> None:
    """A run whose last record was cut in mid-write is completed by the same command: the cut
    instance is solved again and the summary counts every instance once."""
    lines = (run / "items.jsonl").read_text().splitlines()
    (run / "items.jsonl").write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:30])
    assert again() == 0
    summary = json.loads((run / "summary.json").read_text())
    assert summary["n"] == 2 and len({it["id"] for it in _items(run)}) == 2


def test_agent_with_tool_calls_through_vllms_hermes_parser(vllm_servers, tmp_path):
    server = vllm_servers.start_custom("tools", CALL, tools=True)
    run = tmp_path / "tools"
    # two turns: the scripted model's server has a 4096-token context, and the conversation (domain,
    # tools, the turns so far) outgrows it by the third
    again = lambda: _solve(server.base_url, server.name, run, "--tool-format", "openai", "--max-steps", "2",  # noqa: E731
                           "--max-tokens", "64")
    assert again() == 0
    summary = json.loads((run / "summary.json").read_text())
    assert summary["n"] == 2 and summary["simulated"] is False
    for it in _items(run):
        assert it["turns"] == 2 or it["solved"]
        assert all(t["tool"] == "apply_action" and t["action"] == "(pick-up a)" for t in it["episode"])
        assert it["tokens"] > 0 and not it["tokens_detail"]["errors"]
    assert summary["invalid_action_rate"] is not None
    _resumes_after_a_cut(run, again)


def test_agent_text_format_with_smollm2(smollm2, tmp_path):
    run = tmp_path / "text"
    again = lambda: _solve(smollm2.base_url, "smollm2", run, "--tool-format", "text", "--max-steps", "2",  # noqa: E731
                           "--max-tokens", "64")
    assert again() == 0
    summary = json.loads((run / "summary.json").read_text())
    assert summary["n"] == 2 and {"invalid_action_rate", "recoveries", "steps_over_optimal"} <= set(summary)
    for it in _items(run):
        assert 1 <= it["turns"] <= 2 and it["tokens"] > 0
        if it["solved"]:
            assert it["plan_valid"]  # every success is validated by the engine
    _resumes_after_a_cut(run, again)
