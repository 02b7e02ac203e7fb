"""Reading a chat completion body in each shape servers send.

- vLLM (current): `message.reasoning` holds the thinking, `content` the answer; usage carries
  `completion_tokens_details.reasoning_tokens`.
- vLLM (older): `message.reasoning_content` instead of `reasoning`, often no reasoning token detail.
- no reasoning parser: the thinking sits inside `content` as `<think>…</think>answer`; a reply cut
  inside the thinking has `<think>` and no `</think>`. Qwen3 templates that open `<think>` in the
  prompt leave only the closing tag in the output: everything before `</think>` is thinking.
- llama.cpp: `reasoning_content`, with '' instead of None when there is none.

Tool calls (a request that offered tools): ``message.tool_calls`` as OpenAI sends them, read into
[{"id", "name", "arguments"}] (arguments: the JSON text). `hermes_tool_calls` is vLLM's ``hermes``
tool-call parser's rule (Qwen3 writes ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``
blocks in its text), which the simulated models' replies go through as vLLM's would.

`parse_completion` returns the fields a Reply needs; `thinking_tokens` is None when the body does not
carry the count, and the caller counts the reasoning text itself (the server's /tokenize).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping

OPEN, CLOSE = "<think>", "</think>"


class BadResponse(ValueError):
    """The body is not a chat completion (retryable: a broken or truncated reply)."""


@dataclass(frozen=True, slots=True)
class Parsed:
    text: str
    reasoning: str | None
    prompt_tokens: int
    completion_tokens: int
    thinking_tokens: int | None
    finish_reason: str | None
    simulated: bool
    injected: list | None = None  # the sim-server's errors put into the thinking on purpose
    tool_calls: tuple = ()


def split_think(content: str) -> tuple[str | None, str]:
    """(reasoning, answer) of a content string that may carry <think>…</think> inline."""
    if CLOSE in content:
        before, _, after = content.partition(CLOSE)
        start = before.find(OPEN)
        reasoning = before[start + len(OPEN):] if start >= 0 else before
        return reasoning.strip(), after.strip()
    start = content.find(OPEN)
    if start >= 0 and not content[:start].strip():
        # Cut inside the thinking (max_tokens): all of it is reasoning, there is no answer.
        return content[start + len(OPEN):].strip(), ""
    return None, content.strip()


def parse_completion(body: Mapping[str, Any]) -> Parsed:
    try:
        choice = body["choices"][0]
        message = choice.get("message") or {}
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise BadResponse(f"not a chat completion: {str(body)[:200]}") from exc
    content = message.get("content") or ""
    reasoning = message.get("reasoning")
    if not reasoning:
        reasoning = message.get("reasoning_content")
    reasoning = reasoning or None  # llama.cpp sends '' for "none"
    if reasoning is None:
        reasoning, text = split_think(content)
    else:
        text = content.strip()
        reasoning = reasoning.strip()
    usage = body.get("usage") or {}
    details = usage.get("completion_tokens_details") or {}
    thinking = details.get("reasoning_tokens")
    if thinking is None and not reasoning:
        thinking = 0  # nothing to count
    return Parsed(
        text=text,
        reasoning=reasoning,
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
        thinking_tokens=None if thinking is None else int(thinking),
        finish_reason=choice.get("finish_reason"),
        simulated=bool(body.get("simulated")) or str(body.get("model", "")).startswith("sim:"),
        injected=body.get("injected") if isinstance(body.get("injected"), list) else None,
        tool_calls=_tool_calls(message.get("tool_calls")),
    )


def _tool_calls(calls) -> tuple:
    out = []
    for n, c in enumerate(calls or ()):
        f = (c or {}).get("function") or {}
        args = f.get("arguments")
        out.append({"id": c.get("id") or f"call_{n}", "name": f.get("name") or "",
                    "arguments": args if isinstance(args, str) else json.dumps(args or {})})
    return tuple(out)


_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.S)


def hermes_tool_calls(text: str) -> tuple[str, tuple]:
    """(the text outside the blocks, the calls) of a reply written with Hermes-style
    ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` blocks; a block that is not such
    JSON stays in the text (as vLLM leaves it)."""
    calls, kept = [], []
    last = 0
    for m in _TOOL_CALL.finditer(text):
        try:
            data = json.loads(m.group(1))
            name = data["name"]
        except (ValueError, KeyError, TypeError):
            continue
        kept.append(text[last:m.start()])
        last = m.end()
        calls.append({"id": f"call_{len(calls)}", "name": str(name),
                      "arguments": json.dumps(data.get("arguments") or {}, sort_keys=True)})
    kept.append(text[last:])
    return "".join(kept).strip(), tuple(calls)
