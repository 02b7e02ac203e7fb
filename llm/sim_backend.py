"""Simulated models: labelled `simulated` everywhere, deterministic per request, no weights.

Task-independent models are implemented here:
  sim:echo          repeats the last user message
  sim:const:TEXT    always answers TEXT (e.g. sim:const:yes)
  sim:gibberish     seeded nonsense words
Task-aware models read widthbench's own prompts back and ask the engine. The model layer does not
know how: a simulator (`widthbench.simulated.Simulator`, or any object with
``answer(kind, messages, thinking, rng) -> (text, reasoning)``; one that also has ``reply(...) ->
(text, reasoning, injected)`` says which errors it put into the thinking) is handed to it
(`open_model(..., simulator=...)`, `SimBackend(name, simulator)`, `SimServerConfig(simulator=...)`):
  sim:oracle        correct answers
  sim:noisy:P       oracle answers corrupted with probability P
  sim:random        random well-formed answers

Every answer's random generator is seeded from the request's cache key (model, messages, sampling
parameters, thinking, seed), never from call order, so a retried or resumed request gets the same
answer, in-process or over the sim-server. max_tokens is honoured like a real server: the thinking
counts against it, and a cut reply ends with finish_reason "length".
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from widthbench.core.errors import UserError
from widthbench.llm.completions import hermes_tool_calls
from widthbench.llm import tokens
from widthbench.llm.types import Reply

TASK_AWARE = ("oracle", "noisy", "random")

_WORDS = (
    "block stack table hand clear truck plane city package airport move pick put unstack "
    "goal state action plan left right above below first then maybe perhaps because"
).split()


@dataclass(frozen=True, slots=True)
class Completion:
    """A simulated reply before it is put into any wire shape."""

    text: str
    reasoning: str | None
    prompt_tokens: int
    completion_tokens: int
    thinking_tokens: int
    finish_reason: str
    injected: list | None = None  # errors put into the thinking on purpose (those the cut kept)


#: (messages, thinking, rng) -> (text, reasoning) or (text, reasoning, injected)
AnswerFn = Callable[[Sequence[Mapping[str, Any]], bool, random.Random], tuple]


def _last_user(messages: Sequence[Mapping[str, Any]]) -> str:
    for m in reversed(messages):
        if m.get("role") == "user":
            return str(m.get("content") or "")
    return ""


def _musing(rng: random.Random, question: str) -> str:
    n = tokens.count_tokens(question)
    words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(8, 24)))
    return f"The question has {n} tokens. Let me think step by step: {words}. I am ready to answer."


def _gibberish(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(3, 20))).capitalize() + "."


def parse_sim_spec(name: str) -> tuple[str, str]:
    """("echo"|"const"|"gibberish"|"oracle"|"noisy"|"random", argument) of a `sim:...` name."""
    if not name.startswith("sim:"):
        raise UserError(f"not a simulated model: {name!r}")
    rest = name[4:]
    kind, _, arg = rest.partition(":")
    if kind in ("echo", "gibberish", "oracle", "random") and not arg:
        return kind, ""
    if kind == "const" and _ == ":":
        return kind, arg
    if kind == "noisy":
        try:
            p = float(arg)
        except ValueError:
            p = -1.0
        if not 0.0 <= p <= 1.0:
            raise UserError(f"sim:noisy:P needs a probability P in [0, 1], got {name!r}")
        return kind, arg
    raise UserError(
        f"unknown simulated model {name!r} (known: sim:oracle, sim:noisy:P, sim:random, "
        "sim:const:TEXT, sim:gibberish, sim:echo)"
    )


def answer_function(name: str, simulator: Any = None) -> AnswerFn:
    """The (messages, thinking, rng) -> (text, reasoning) function of simulated model `name`;
    task-aware models answer through ``simulator.answer(kind, messages, thinking, rng)``.

    Raises UserError at once for an unknown name or a task-aware model without a simulator, so a
    run fails before it starts rather than item by item.
    """
    kind, arg = parse_sim_spec(name)
    if kind in TASK_AWARE:
        if simulator is None:
            raise UserError(
                f"{name} answers widthbench's own prompts through the engine and needs a simulator: "
                "run it through the widthbench commands, or pass simulator=widthbench.simulated.Simulator() "
                "(or use widthbench.simulated.open_model)")
        label = f"noisy:{arg}" if kind == "noisy" else kind

        def task(messages, thinking, rng):
            ask = getattr(simulator, "reply", None) or simulator.answer
            return ask(label, list(messages), thinking, rng)

        return task

    def simple(messages, thinking, rng):
        question = _last_user(messages)
        if kind == "echo":
            text = question
        elif kind == "const":
            text = arg
        else:
            text = _gibberish(rng)
        return text, (_musing(rng, question) if thinking else None)

    return simple


def request_rng(
    model: str,
    messages: Sequence[Mapping[str, Any]],
    params: Mapping[str, Any],
    thinking: bool,
    seed: int | None,
) -> random.Random:
    """A generator seeded by what determines a reply (model, messages, sampling parameters incl.
    max_tokens, thinking, seed) — stable across processes, unlike hash(), and the same whether the
    request is answered in-process or by the sim-server from the HTTP body."""
    canonical = json.dumps(
        [model, [dict(m) for m in messages], dict(params), bool(thinking), seed],
        sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str,
    )
    return random.Random(int.from_bytes(hashlib.sha256(canonical.encode()).digest()[:8], "big"))


def simulate(
    answer: AnswerFn,
    messages: Sequence[Mapping[str, Any]],
    thinking: bool,
    max_tokens: int | None,
    rng: random.Random,
) -> Completion:
    """Answer, then count and cut tokens as a server would (thinking first, then the answer)."""
    got = answer(messages, thinking, rng)
    text, reasoning = got[0], got[1]
    injected = list(got[2]) if len(got) > 2 and got[2] is not None else None
    if not thinking:
        reasoning, injected = None, None
    text = text or ""
    limit = max_tokens if max_tokens is not None else 10**9
    n_think = tokens.count_tokens(reasoning)
    n_text = tokens.count_tokens(text)
    finish = "stop"
    if reasoning is not None and n_think >= limit:
        reasoning, text, n_think, n_text, finish = (
            tokens.truncate_tokens(reasoning, limit), "", limit, 0, "length")
    elif n_think + n_text > limit:
        n_text = limit - n_think
        text, finish = tokens.truncate_tokens(text, n_text), "length"
    if injected is not None:
        injected = [x for x in injected if x["span"][1] <= len(reasoning or "")]  # those the cut kept
    return Completion(
        text=text,
        reasoning=reasoning,
        prompt_tokens=tokens.count_prompt_tokens(messages),
        completion_tokens=n_think + n_text,
        thinking_tokens=n_think,
        finish_reason=finish,
        injected=injected,
    )


class SimBackend:
    """Answers `sim:...` models in-process (no HTTP); same answers as the sim-server gives."""

    simulated = True

    def __init__(self, name: str, simulator: Any = None):
        self.name = name
        self.answer = answer_function(name, simulator)

    async def open(self, pending: int) -> "SimBackend":
        return self  # stateless: the backend is its own session

    async def attempt(self, item, avoid: str | None = None):
        import time


        start = time.perf_counter()
        request = item.request
        rng = request_rng(self.name, request.messages, item.params, request.thinking, request.seed)
        c = simulate(self.answer, request.messages, request.thinking,
                     item.params.get("max_tokens"), rng)
        text, calls, finish = c.text, (), c.finish_reason
        if request.tools and finish != "length":  # as vLLM's hermes tool-call parser reads the text
            text, calls = hermes_tool_calls(c.text)
            finish = "tool_calls" if calls else finish
        return Reply(
            text=text, reasoning=c.reasoning, prompt_tokens=c.prompt_tokens,
            completion_tokens=c.completion_tokens, thinking_tokens=c.thinking_tokens,
            finish_reason=finish, latency=time.perf_counter() - start, model=self.name,
            simulated=True, thinking_tokens_from="simulated", injected=c.injected, tool_calls=calls,
        )

    async def close(self) -> None:
        return None
