"""widthbench's own commands end to end against a real vLLM server (CPU build, tiny scripted Qwen3).

The "yes" model answers `yes` to everything (with a short thinking block when thinking is on), the
"garbage" model answers `blorp zzq`. So plan verification must score exactly half (half the items
carry a valid plan), every other answer is a parse error, and token counts must equal the server's
own usage.
"""

from __future__ import annotations

import json
import re

import pytest

from widthbench.cli import main

pytestmark = pytest.mark.vllm

MAX_TOKENS = "256"  # the test server runs with --max-model-len 4096


def _chat(capsys, server, thinking: str, extra=()):
    code = main(["chat", "--model", f"openai:{server.model.name}", "--base-url", server.base_url,
                 "--thinking", thinking, "--no-cache", "--max-tokens", MAX_TOKENS, *extra,
                 "Is this plan valid?"])
    out = capsys.readouterr().out
    assert code == 0, out
    return out


def _usage(out: str) -> dict:
    line = next(l for l in out.splitlines() if l.startswith("[usage]"))
    return {k: v for k, v in re.findall(r"(\w+)=(\S+)", line)}


def test_chat_thinking_on_and_off_fields_and_token_counts_match_the_server(vllm_yes, capsys):
    client = vllm_yes.client()
    for thinking in ("on", "off"):
        out = _chat(capsys, vllm_yes, thinking)
        usage = _usage(out)
        direct = client.chat.completions.create(
            model=vllm_yes.model.name, messages=[{"role": "user", "content": "Is this plan valid?"}],
            max_tokens=int(MAX_TOKENS),
            extra_body={"chat_template_kwargs": {"enable_thinking": thinking == "on"}})
        assert int(usage["prompt"]) == direct.usage.prompt_tokens
        assert int(usage["completion"]) == direct.usage.completion_tokens
        reasoning_tokens = direct.usage.completion_tokens_details.reasoning_tokens
        assert int(usage["thinking"]) == reasoning_tokens
        if thinking == "on":
            assert "[reasoning]" in out and vllm_yes.model.thinking_text.strip() in out
            assert reasoning_tokens > 0
            answer = out.split("[answer]", 1)[1].split("[usage]", 1)[0]
        else:
            assert "[reasoning]" not in out and reasoning_tokens == 0
            answer = out.split("[usage]", 1)[0]
        assert answer.strip() == "yes"
        assert "simulated" not in usage  # a real server is never labelled simulated


def _score(tmp_path, server, subtask: str, name: str, extra=()):
    run = tmp_path / name
    code = main(["score", "--subtask", subtask, "--style", "both", "--thinking", "both", "--count", "4",
                 "--seed", "3", "--model", f"openai:{server.model.name}", "--base-url", server.base_url,
                 "--no-cache", "--quiet", "--concurrency", "4", "--max-tokens", MAX_TOKENS,
                 "--out", str(run), *extra])
    assert code == 0
    summary = json.loads((run / "summary.json").read_text())
    items = [json.loads(l) for l in (run / "items.jsonl").read_text().splitlines() if l.strip()]
    return summary, items


def test_score_plan_verification_with_the_yes_model_is_exactly_half_in_every_mode(vllm_yes, tmp_path):
    summary, items = _score(tmp_path, vllm_yes, "plan-verification", "yes")
    assert summary["simulated"] is False
    rows = [r for r in summary["rows"] if r["subtask"] == "plan-verification"]
    assert {(r["style"], r["thinking"]) for r in rows} == {(s, t) for s in ("pddl", "nl") for t in ("on", "off")}
    for r in rows:
        assert (r["n"], r["correct"], r["parse_errors"]) == (4, 2, 0), r
    thinking_items = [i for i in items if i["thinking"]]
    assert thinking_items and all(i["reasoning"] and i["tokens"]["thinking"] > 0 for i in thinking_items)
    assert all(i["tokens"]["thinking"] == 0 for i in items if not i["thinking"])


def test_score_with_the_garbage_model_is_all_parse_errors_and_completes(vllm_garbage, tmp_path):
    summary, items = _score(tmp_path, vllm_garbage, "plan-verification,action-generation", "garbage")
    assert items and all(i["parse_error"] and not i["correct"] for i in items)
    for r in summary["rows"]:
        assert r["correct"] == 0 and r["parse_errors"] == r["items"] > 0, r


def test_max_tokens_inside_the_thinking_is_a_length_cut_and_a_parse_error(vllm_yes, tmp_path):
    run = tmp_path / "cut"
    code = main(["score", "--subtask", "plan-verification", "--style", "pddl", "--thinking", "on",
                 "--count", "2", "--seed", "3", "--model", f"openai:{vllm_yes.model.name}",
                 "--base-url", vllm_yes.base_url, "--no-cache", "--quiet", "--max-tokens", "3",
                 "--out", str(run)])
    assert code == 0
    items = [json.loads(l) for l in (run / "items.jsonl").read_text().splitlines() if l.strip()]
    assert len(items) == 2
    for i in items:
        assert i["finish_reason"] == "length" and i["truncated"]
        assert i["parse_error"] and not i["correct"]


def test_vllm_batch_path_gives_the_same_results_as_the_server(vllm_yes, tmp_path, monkeypatch):
    server_summary, server_items = _score(tmp_path, vllm_yes, "plan-verification", "server",
                                          extra=["--style", "pddl", "--thinking", "off"])
    monkeypatch.setenv("WIDTHBENCH_VLLM_MODEL_DIR", str(vllm_yes.model.path))
    # batch files go under the cache folder even with --no-cache, and a chunk whose out.jsonl is
    # there already (the same requests, from an earlier test run) is read back, not run again: a
    # folder of this test's own makes every run start vLLM's batch runner
    monkeypatch.setenv("WIDTHBENCH_CACHE_DIR", str(tmp_path / "cache"))
    run = tmp_path / "batch"
    code = main(["score", "--subtask", "plan-verification", "--style", "pddl", "--thinking", "off",
                 "--count", "4", "--seed", "3", "--model", f"vllm-batch:{vllm_yes.model.name}",
                 "--no-cache", "--quiet", "--max-tokens", MAX_TOKENS, "--out", str(run)])
    assert code == 0
    chunks = list((tmp_path / "cache" / "batches").iterdir())
    assert chunks and all((c / "runner.log").is_file() and (c / "out.jsonl").is_file() for c in chunks)
    batch_items = [json.loads(l) for l in (run / "items.jsonl").read_text().splitlines() if l.strip()]
    key = lambda i: (i["item_id"], i["mode"])  # noqa: E731
    assert sorted((key(i), i["raw_answer"].strip(), i["correct"]) for i in batch_items) == \
           sorted((key(i), i["raw_answer"].strip(), i["correct"]) for i in server_items)


def test_solve_naive_runs_through_the_real_server_with_ledger_and_validation(vllm_yes, tmp_path):
    run = tmp_path / "naive"
    code = main(["solve", "--method", "naive", "--domain", "blocksworld", "--count", "2", "--seed", "1",
                 "--max-plan-length", "6", "--model", f"openai:{vllm_yes.model.name}",
                 "--base-url", vllm_yes.base_url, "--no-cache", "--quiet", "--thinking", "on",
                 "--max-tokens", MAX_TOKENS, "--out", str(run)])
    assert code == 0
    summary = json.loads((run / "summary.json").read_text())
    items = [json.loads(l) for l in (run / "items.jsonl").read_text().splitlines() if l.strip()]
    assert summary["n"] == 2 and summary["solved"] == 0 and len(items) == 2  # "yes" is no plan
    assert summary["simulated"] is False
    for i in items:
        assert not i["solved"]
        assert i.get("plan_valid") in (False, None)
    assert summary["mean_tokens"] > 0
