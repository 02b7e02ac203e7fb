"""Requests, sampling presets and the cache key."""

import pytest

from widthbench.llm.types import QWEN3_NORMAL, Reply, Request, cache_key, resolve_params


def test_thinking_mode_gets_qwen3_thinking_preset_and_never_greedy():
    params = resolve_params(Request.user("q", thinking=True))
    assert params["temperature"] == 0.6 and params["top_p"] == 0.95 and params["top_k"] == 20
    assert params["min_p"] == 0.0 and "presence_penalty" not in params
    assert params["max_tokens"] > 0


def test_normal_mode_gets_qwen3_nonthinking_preset():
    params = resolve_params(Request.user("q"))
    assert {k: params[k] for k in QWEN3_NORMAL} == dict(QWEN3_NORMAL)
    assert params["presence_penalty"] == 1.5 and params["temperature"] == 0.7


def test_every_parameter_overridable_model_then_request():
    request = Request.user("q", thinking=True, params={"top_k": 5, "min_p": None}, max_tokens=99)
    params = resolve_params(request, "qwen3", {"temperature": 0.0, "top_k": 50})
    assert params["temperature"] == 0.0  # model override
    assert params["top_k"] == 5  # request beats model
    assert "min_p" not in params  # None removes a preset key
    assert params["max_tokens"] == 99


def test_preset_none_sends_only_request_params():
    params = resolve_params(Request.user("q", params={"temperature": 0.2}), "none")
    assert params == {"temperature": 0.2, "max_tokens": 2048}


def test_unknown_preset_rejected():
    with pytest.raises(ValueError):
        resolve_params(Request.user("q"), "llama")


def test_request_is_frozen_hashable_and_copies_messages():
    messages = [{"role": "user", "content": "a"}]
    request = Request(messages=messages, purpose="verify")
    messages[0]["content"] = "changed"
    assert request.messages[0]["content"] == "a"
    assert hash(request) == hash(Request(messages=[{"role": "user", "content": "a"}], purpose="verify"))
    with pytest.raises(AttributeError):
        request.thinking = True  # type: ignore[misc]
    assert request.mode == "normal" and Request.user("x", thinking=True).mode == "thinking"


def test_request_rejects_bad_messages():
    with pytest.raises(TypeError):
        Request(messages="hello")
    with pytest.raises(TypeError):
        Request(messages=[{"content": "no role"}])


def _key(model="m", base="b", request=None, params=None):
    request = request or Request.user("q")
    return cache_key(model, base, request, params or resolve_params(request))[0]


def test_cache_key_covers_model_base_messages_params_thinking_seed():
    base = _key()
    assert _key(model="m2") != base
    assert _key(base="b2") != base
    assert _key(request=Request.user("other")) != base
    assert _key(params={"temperature": 0.1}) != base
    thinking = Request.user("q", thinking=True)
    assert _key(request=thinking, params=resolve_params(Request.user("q"))) != base
    assert _key(request=Request.user("q", seed=1)) != base


def test_cache_key_ignores_purpose():
    verify, novelty = Request.user("q", purpose="verify"), Request.user("q", purpose="novelty")
    assert _key(request=verify) == _key(request=novelty)


def test_reply_roundtrips_through_dict():
    reply = Reply(text="a", reasoning="r", prompt_tokens=3, completion_tokens=5, thinking_tokens=2,
                  finish_reason="length", model="m", simulated=True)
    assert Reply.from_dict(reply.to_dict()) == reply
    assert reply.truncated and reply.ok
