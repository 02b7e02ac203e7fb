"""Tool calls: offered in the request (part of the cache key only when offered), read from OpenAI
bodies and from Hermes-style blocks as vLLM's hermes parser reads them."""

from __future__ import annotations

import json

from widthbench.llm.completions import hermes_tool_calls, parse_completion
from widthbench.llm.types import Request, cache_key

TOOL = {"type": "function", "function": {"name": "apply_action", "parameters": {"type": "object"}}}


def test_hermes_blocks_become_calls_and_a_broken_block_stays_text():
    text = ('I pick it up.\n<tool_call>\n{"name": "apply_action", "arguments": {"action": "(pick-up a)"}}\n</tool_call>'
            '\n<tool_call>{"name": oops}</tool_call>')
    rest, calls = hermes_tool_calls(text)
    assert [c["name"] for c in calls] == ["apply_action"]
    assert json.loads(calls[0]["arguments"]) == {"action": "(pick-up a)"}
    assert rest.startswith("I pick it up.") and '{"name": oops}' in rest
    assert hermes_tool_calls("no calls here") == ("no calls here", ())


def test_openai_body_tool_calls_are_read():
    body = {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "valid_actions", "arguments": "{}"}}]},
        "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 3, "completion_tokens": 2}}
    parsed = parse_completion(body)
    assert parsed.tool_calls == ({"id": "c1", "name": "valid_actions", "arguments": "{}"},)
    assert parsed.text == "" and parsed.finish_reason == "tool_calls"


def test_tools_enter_the_cache_key_only_when_offered():
    plain = Request.user("hi")
    key, _ = cache_key("m", "m", plain, {})
    assert cache_key("m", "m", Request.user("hi", tools=()), {})[0] == key
    with_tools = Request.user("hi", tools=[TOOL])
    assert cache_key("m", "m", with_tools, {})[0] != key
    assert with_tools.tool_dicts() == [json.loads(json.dumps(TOOL, sort_keys=True))]
    assert hash(with_tools) != hash(plain)
