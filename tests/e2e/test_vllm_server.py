"""The response shapes of a real vLLM server (Qwen3 reasoning parser) that widthbench relies on.

Talks to the server with the `openai` client and plain HTTP only, no widthbench code: if one of
these fails after a vLLM upgrade, docs/vllm-compat.md and widthbench.llm's parser need a look.
The tiny models are scripted (see conftest.py), so every expected string and count is exact.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import openai
import pytest

pytestmark = pytest.mark.vllm

HI = [{"role": "user", "content": "Is the goal reached? Answer yes or no."}]
NO_THINKING = {"chat_template_kwargs": {"enable_thinking": False}}


def reasoning_of(obj) -> str | None:
    """vLLM >= 0.10 names the field `reasoning`; older ones `reasoning_content`."""
    extra = getattr(obj, "model_extra", None) or {}
    for key in ("reasoning", "reasoning_content"):
        value = getattr(obj, key, None) or extra.get(key)
        if value is not None:
            return value
    return None


def post_json(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read())


def expected_reasoning(server) -> str:
    return "\n" + server.model.thinking_text + "\n"


def thinking_piece_count(server) -> int:
    tokens = server.model.script["tokens_thinking_on"]
    return tokens.index("</think>") - tokens.index("<think>") - 1


def test_thinking_on_puts_thinking_in_reasoning_and_answer_in_content(vllm_garbage):
    r = vllm_garbage.client().chat.completions.create(
        model=vllm_garbage.name, messages=HI, temperature=0.6, top_p=0.95,
        extra_body={"top_k": 20, "min_p": 0.0})
    choice = r.choices[0]
    assert choice.finish_reason == "stop"
    assert reasoning_of(choice.message) == expected_reasoning(vllm_garbage)
    # The blank line after </think> stays at the start of content (real Qwen3 does the same).
    assert choice.message.content == "\n\nblorp zzq"
    assert "<think>" not in choice.message.content and "</think>" not in choice.message.content
    assert r.model == vllm_garbage.name


def test_enable_thinking_false_gives_no_reasoning(vllm_garbage):
    r = vllm_garbage.client().chat.completions.create(
        model=vllm_garbage.name, messages=HI, temperature=0.7, top_p=0.8,
        presence_penalty=1.5, extra_body={"top_k": 20, **NO_THINKING})
    choice = r.choices[0]
    assert choice.finish_reason == "stop"
    assert reasoning_of(choice.message) is None
    assert choice.message.content == "blorp zzq"
    assert r.usage.completion_tokens == len(vllm_garbage.model.script["tokens_thinking_off"])
    assert r.usage.completion_tokens_details.reasoning_tokens == 0


def test_usage_counts_thinking_inside_completion_tokens(vllm_garbage):
    r = vllm_garbage.client().chat.completions.create(model=vllm_garbage.name, messages=HI)
    u = r.usage
    script = vllm_garbage.model.script
    # completion_tokens = <think> + thinking + </think> + "\n\n" + answer + <|im_end|>
    assert u.completion_tokens == len(script["tokens_thinking_on"])
    # reasoning_tokens counts the tokens between <think> and </think>, not the tags themselves.
    assert u.completion_tokens_details.reasoning_tokens == thinking_piece_count(vllm_garbage)
    assert u.total_tokens == u.prompt_tokens + u.completion_tokens
    tok = post_json(vllm_garbage.root_url + "/tokenize",
                    {"model": vllm_garbage.name, "messages": HI, "add_generation_prompt": True})
    assert u.prompt_tokens == tok["count"]


def test_max_tokens_inside_thinking_ends_with_length_and_no_content(vllm_garbage):
    r = vllm_garbage.client().chat.completions.create(
        model=vllm_garbage.name, messages=HI, max_tokens=3)
    choice = r.choices[0]
    assert choice.finish_reason == "length"
    assert choice.message.content is None
    pieces = vllm_garbage.model.script["tokens_thinking_on"]
    assert reasoning_of(choice.message) == "".join(pieces[1:3])  # <think> is not text
    assert r.usage.completion_tokens == 3
    assert r.usage.completion_tokens_details.reasoning_tokens == 2


def test_max_tokens_after_thinking_cuts_the_answer(vllm_garbage):
    # <think> + pieces + </think> + "\n\n" + "blorp": the answer's last word is cut off.
    n = len(vllm_garbage.model.script["tokens_thinking_on"]) - 2
    r = vllm_garbage.client().chat.completions.create(
        model=vllm_garbage.name, messages=HI, max_tokens=n)
    assert r.choices[0].finish_reason == "length"
    assert r.choices[0].message.content == "\n\nblorp"
    assert reasoning_of(r.choices[0].message) == expected_reasoning(vllm_garbage)


def test_stream_sends_reasoning_then_content_then_usage(vllm_garbage):
    stream = vllm_garbage.client().chat.completions.create(
        model=vllm_garbage.name, messages=HI, stream=True,
        stream_options={"include_usage": True})
    kinds, reasoning, content, finishes, usage = [], [], [], [], []
    for chunk in stream:
        if chunk.usage is not None:
            usage.append(chunk.usage)
        for choice in chunk.choices:
            if choice.finish_reason is not None:
                finishes.append(choice.finish_reason)
            r = reasoning_of(choice.delta)
            if r:
                kinds.append("reasoning")
                reasoning.append(r)
            if choice.delta.content:
                kinds.append("content")
                content.append(choice.delta.content)
        if chunk.usage is not None:
            assert chunk.choices == []  # the usage chunk comes alone, after the finish reason
            assert finishes == ["stop"]
    assert kinds and kinds[0] == "reasoning"
    assert "reasoning" not in kinds[kinds.index("content"):]  # all thinking before any answer
    assert "".join(reasoning) == expected_reasoning(vllm_garbage)
    assert "".join(content) == "\n\nblorp zzq"
    assert len(reasoning) > 1  # really streamed, piece by piece
    assert finishes == ["stop"]
    assert len(usage) == 1
    assert usage[0].completion_tokens_details.reasoning_tokens == thinking_piece_count(vllm_garbage)


def test_stream_without_thinking_has_only_content(vllm_yes):
    stream = vllm_yes.client().chat.completions.create(
        model=vllm_yes.name, messages=HI, stream=True, extra_body=NO_THINKING)
    deltas = [c.choices[0].delta for c in stream if c.choices]
    assert all(reasoning_of(d) is None for d in deltas)
    assert "".join(d.content or "" for d in deltas) == "yes"


def test_tokenize_shows_the_empty_think_block_when_thinking_is_off(vllm_garbage):
    ids = vllm_garbage.model.script["token_ids"]
    tok = post_json(vllm_garbage.root_url + "/tokenize",
                    {"model": vllm_garbage.name, "messages": HI, "add_generation_prompt": True,
                     "return_token_strs": True, **NO_THINKING})
    assert set(tok) >= {"count", "tokens", "max_model_len", "token_strs"}
    assert tok["count"] == len(tok["tokens"])
    assert tok["max_model_len"] == 4096
    assert tok["tokens"][0] == ids["<|im_start|>"]
    assert tok["token_strs"][-4:] == ["<think>", "\n\n", "</think>", "\n\n"]
    on = post_json(vllm_garbage.root_url + "/tokenize",
                   {"model": vllm_garbage.name, "messages": HI, "add_generation_prompt": True})
    assert on["tokens"] == tok["tokens"][:-4]  # thinking on: the prompt stops at "assistant\n"
    plain = post_json(vllm_garbage.root_url + "/tokenize",
                      {"model": vllm_garbage.name, "prompt": "blorp zzq"})
    assert plain["tokens"] == [ids["blorp"], ids[" zzq"]]
    back = post_json(vllm_garbage.root_url + "/detokenize",
                     {"model": vllm_garbage.name, "tokens": plain["tokens"]})
    assert back == {"prompt": "blorp zzq"}


def test_template_drops_the_thinking_of_earlier_assistant_turns(vllm_garbage):
    history = [*HI, {"role": "assistant", "content": "<think>\nsecret\n</think>\n\nblorp zzq"},
               {"role": "user", "content": "again"}]
    tok = post_json(vllm_garbage.root_url + "/tokenize",
                    {"model": vllm_garbage.name, "messages": history,
                     "add_generation_prompt": True, "return_token_strs": True})
    assert "<think>" not in tok["token_strs"]
    assert "".join(tok["token_strs"]).count("secret") == 0
    r = vllm_garbage.client().chat.completions.create(model=vllm_garbage.name, messages=history)
    assert r.choices[0].message.content == "\n\nblorp zzq"


def test_sampling_parameters_do_not_change_the_scripted_reply(vllm_yes):
    client = vllm_yes.client()
    for extra in ({}, NO_THINKING):
        r = client.chat.completions.create(
            model=vllm_yes.name, messages=HI, n=3, temperature=1.5, top_p=0.5, seed=7,
            presence_penalty=1.5, frequency_penalty=1.0,
            extra_body={"top_k": 5, "min_p": 0.1, "repetition_penalty": 1.3, **extra})
        for choice in r.choices:
            assert choice.message.content.strip() == "yes"
            assert choice.finish_reason == "stop"


def test_two_servers_serve_their_own_models_in_parallel(vllm_yes, vllm_garbage):
    def ask(server):
        r = server.client().chat.completions.create(model=server.name, messages=HI,
                                                     extra_body=NO_THINKING)
        return r.choices[0].message.content

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(ask, [vllm_yes, vllm_garbage] * 4))
    assert answers == ["yes", "blorp zzq"] * 4


def test_models_health_and_version_endpoints(vllm_yes):
    models = vllm_yes.client().models.list()
    assert [m.id for m in models.data] == ["yes"]
    with urllib.request.urlopen(vllm_yes.root_url + "/health", timeout=10) as resp:
        assert resp.status == 200
    with urllib.request.urlopen(vllm_yes.root_url + "/version", timeout=10) as resp:
        assert json.loads(resp.read())["version"] == "0.32.0"


def test_unknown_model_is_404_and_bad_json_is_400(vllm_yes):
    with pytest.raises(openai.NotFoundError):
        vllm_yes.client(max_retries=0).chat.completions.create(model="no-such-model", messages=HI)
    req = urllib.request.Request(vllm_yes.base_url + "/chat/completions", data=b'{"model": ',
                                 headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=10)
    assert err.value.code == 400
    assert "error" in json.loads(err.value.read())


def test_run_batch_output_equals_server_output(vllm_garbage, vllm_run_batch):
    bodies = [
        {"messages": HI, "max_tokens": 100},
        {"messages": HI, "max_tokens": 100, **NO_THINKING},
        {"messages": HI, "max_tokens": 3},
    ]
    lines = vllm_run_batch(vllm_garbage.model, bodies)
    assert [x["custom_id"] for x in lines] == ["r0", "r1", "r2"]
    for body, line in zip(bodies, lines):
        assert line["error"] is None
        assert line["response"]["status_code"] == 200
        batch = line["response"]["body"]
        online = post_json(vllm_garbage.base_url + "/chat/completions",
                           {**body, "model": vllm_garbage.name})
        assert batch["object"] == online["object"] == "chat.completion"
        for key in ("content", "reasoning"):
            assert batch["choices"][0]["message"][key] == online["choices"][0]["message"][key]
        assert batch["choices"][0]["finish_reason"] == online["choices"][0]["finish_reason"]
        assert batch["usage"] == online["usage"]
    assert [x["response"]["body"]["choices"][0]["finish_reason"] for x in lines] == [
        "stop", "stop", "length"]
    assert lines[1]["response"]["body"]["choices"][0]["message"]["reasoning"] is None
