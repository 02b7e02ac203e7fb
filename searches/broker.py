"""Many searches, one model: the calls of concurrently running searches go out in shared waves.

Each search is an asyncio task that awaits `LLM.ask(...)`. A search is sequential (each step
depends on the answers before it), so one instance alone would keep one request in flight; the
broker lets all instances of a run progress together. Whenever every search is waiting, the broker
sends all pending requests as one `Model.arun` (which bounds the requests in flight by the model's
concurrency, consults the cache, retries, and adds every reply to `model.ledger`). One `arun` at a
time: online backends open one connection pool per run, and a vllm-batch backend gets one batch
file per wave instead of one per call.

`LLM` is one instance's view: it derives request seeds from the run seed (so a rerun asks exactly
the same requests and the cache answers them), adds each reply to the instance's own ledger, and
keeps per-purpose counts for items.jsonl.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

from widthbench.llm import Ledger, Reply, Request
from widthbench.llm.ledger import call_entry
from widthbench.llm.types import max_tokens_for_answer
from widthbench.subtasks.api import reasoning_of


class Broker:
    def __init__(self, model, progress=None, tag: str | None = None):
        self.model = model
        self.tag = tag  # the run asking (`Model.arun(..., tag=)`)
        self.queue: list[tuple[Request, asyncio.Future]] = []
        self._wake: asyncio.Event | None = None
        self._runner: asyncio.Task | None = None
        self.waves = 0
        self.progress = progress  # called with the number of replies of each wave

    async def ask(self, request: Request) -> Reply:
        loop = asyncio.get_running_loop()
        if self._wake is None:
            self._wake = asyncio.Event()
        if self._runner is None or self._runner.done():
            self._runner = loop.create_task(self._serve())
        fut = loop.create_future()
        self.queue.append((request, fut))
        self._wake.set()
        return await fut

    async def _serve(self) -> None:
        while True:
            await self._wake.wait()
            # Let every runnable search reach its next call before sending the wave.
            size = -1
            while size != len(self.queue):
                size = len(self.queue)
                for _ in range(3):
                    await asyncio.sleep(0)
            batch, self.queue = self.queue, []
            self._wake.clear()
            if not batch:
                continue
            self.waves += 1
            try:
                replies = await self.model.arun([r for r, _ in batch], progress=False, tag=self.tag)
            except BaseException as exc:  # a bug or a UserError (server down): fail every caller
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise
                continue
            for (_, fut), reply in zip(batch, replies):
                if not fut.done():
                    fut.set_result(reply)
            if self.progress is not None:
                self.progress(len(batch))

    async def close(self) -> None:
        if self._runner is not None:
            self._runner.cancel()
            try:
                await self._runner
            except (asyncio.CancelledError, Exception):
                pass
            self._runner = None


@dataclass(slots=True)
class CallLog:
    """Per-purpose calls and tokens of one instance (what items.jsonl reports)."""

    ledger: Ledger = field(default_factory=Ledger)
    calls: list = field(default_factory=list)  # `ledger.call_entry` per call: the run's tokens.json
    errors: int = 0
    unreadable: dict = field(default_factory=dict)  # purpose -> answers that could not be parsed
    params: dict = field(default_factory=dict)  # canonical JSON -> sampling parameters sent
    # replies that reason (`subtasks.api.reasoning_of`): (call number, purpose, the state the
    # question is about, the text, "thinking" or "answer", a simulated model's errors put into its
    # thinking on purpose or None)
    thinking: list = field(default_factory=list)

    def note_params(self, reply: Reply) -> None:
        if reply.params is not None:
            self.params.setdefault(json.dumps(dict(reply.params), sort_keys=True), dict(reply.params))

    def params_sent(self) -> list[dict]:
        """The distinct sampling parameters this instance's requests were sent with (max_tokens
        differs by prompt: a long expected answer grows the default)."""
        return [self.params[k] for k in sorted(self.params)]

    def tokens(self) -> dict:
        d = self.ledger.to_dict()
        per = {}
        for purpose, t in d["by_purpose"].items():
            per[purpose] = {"calls": t["calls"], "prompt": t["prompt"], "completion": t["completion"],
                            "thinking": t["thinking"], "tokens": t["prompt"] + t["completion"]}
        tot = d["total"]
        return {"calls": tot["calls"], "prompt": tot["prompt"], "completion": tot["completion"],
                "thinking": tot["thinking"], "tokens": tot["prompt"] + tot["completion"],
                "cached": tot["cached"], "errors": tot["errors"], "truncated": tot["truncated"],
                "by_purpose": per}


class LLM:
    """One instance's access to the model: seeds, thinking switch, ledger."""

    def __init__(self, broker: Broker, *, seed: int, thinking: bool, max_tokens: int | None = None):
        self.broker = broker
        self.seed = seed
        self.thinking = thinking
        self.max_tokens = max_tokens
        self.log = CallLog()
        self.simulated = bool(getattr(broker.model, "simulated", False))

    def request_seed(self, sample: int) -> int:
        # Distinct samples of one prompt need distinct seeds (identical requests are one call).
        return (self.seed * 1009 + sample) % (2**31 - 1)

    async def ask(self, messages, purpose: str, sample: int = 0, answer_tokens: int | None = None,
                  state=None, tools=()) -> Reply:
        """Ask once. ``answer_tokens`` (the estimated tokens of a correct answer) grows the default
        max_tokens when that answer would not fit in it; an explicit --max-tokens is kept. ``state``:
        the one state the question is about (None for a question about several), from which the
        reply's thinking is checked (`searches.solve_run`). ``tools``: OpenAI tools offered
        (`Request.tools`; the calls come back in ``Reply.tool_calls``)."""
        max_tokens = self.max_tokens
        if max_tokens is None and answer_tokens:
            max_tokens = max_tokens_for_answer(answer_tokens, self.thinking)
        request = Request(messages=messages, thinking=self.thinking, purpose=purpose,
                          seed=self.request_seed(sample), max_tokens=max_tokens, tools=tuple(tools))
        reply = await self.broker.ask(request)
        self.log.ledger.add(reply, purpose, request.mode)
        self.log.calls.append(call_entry(request, reply))
        self.log.note_params(reply)
        thought = reasoning_of(reply.reasoning, reply.text, self.thinking) if reply.error is None else None
        if thought is not None:
            injected = getattr(reply, "injected", None) if thought[1] == "thinking" else None
            self.log.thinking.append((len(self.log.calls) - 1, purpose, state, *thought, injected))
        if reply.error is not None:
            self.log.errors += 1
        return reply

    def unreadable(self, purpose: str) -> None:
        self.log.unreadable[purpose] = self.log.unreadable.get(purpose, 0) + 1
