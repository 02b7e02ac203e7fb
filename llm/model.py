"""`open_model(spec)` and `Model`: every model call of widthbench goes through here.

A run (`Model.run(requests)`) looks every request up in the on-disk cache, sends each missing one
exactly once (identical requests in a run are sent once), with at most `concurrency` in flight,
retrying transient failures with exponential backoff and full jitter, and commits each reply to the
cache the moment it arrives. Results come back in request order; a request that still fails after the
retry budget comes back as a Reply with `error` set (not cached, so a rerun retries it). Every reply,
cached or not, is added to the model's token ledger.

Specs: openai:NAME (any OpenAI-compatible server, `base_urls`), vllm-batch:NAME (vLLM's offline
batch runner), sim:oracle | sim:noisy:P | sim:random | sim:const:TEXT | sim:gibberish | sim:echo;
the spec's prefix picks its backend in the backend registry (`widthbench.llm.backends`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import sys
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from widthbench.core.errors import UserError
from widthbench.llm.backend import FatalError, Pending, RetryableError
from widthbench.llm.backends import BackendOptions, BackendRegistry, split_urls
from widthbench.llm.cache import ReplyCache, default_cache_dir
from widthbench.llm.ledger import Ledger
from widthbench.llm.types import PRESETS, Reply, Request, cache_key, mode_params, resolve_params
from widthbench.llm.sync import run_sync

MAX_ERRORS_SHOWN = 5


def open_model(
    spec: str,
    *,
    base_urls: str | Sequence[str] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    use_cache: bool = True,
    concurrency: int = 8,
    base_model: str | None = None,
    preset: str = "qwen3",
    params: Mapping[str, Any] | None = None,
    timeout: float = 1800.0,
    max_retries: int = 8,
    backoff: float = 0.5,
    max_backoff: float = 30.0,
    api_key: str | None = None,
    preflight: bool = True,
    batch_cmd: str | None = None,
    batch_size: int = 2000,
    work_dir: str | os.PathLike[str] | None = None,
    model_dir: str | os.PathLike[str] | None = None,
    max_model_len: int | None = None,
    simulator: Any = None,
    sampling: Mapping[str, Mapping[str, Any]] | None = None,
) -> "Model":
    """Open a model by spec. Nothing is contacted until a request must be sent.

    base_urls: one URL, a comma-separated list or a list (default $WIDTHBENCH_BASE_URL, else
      http://127.0.0.1:8000/v1); requests are balanced over them.
    cache_dir: default $WIDTHBENCH_CACHE_DIR, else ~/.cache/widthbench/llm; use_cache=False disables.
    base_model: the weights behind a served name (part of the cache key; default: NAME).
    preset: sampling preset per mode ("qwen3", or "none"); params: overrides for every request;
      sampling: the user's per-mode settings (mode name -> {parameter: value}), which win over the
      preset, ``params`` and a request's own max_tokens (`types.resolve_params`).
    batch_cmd: vllm-batch command template with {input} {output} {model} {model_dir} (default
      $WIDTHBENCH_VLLM_BATCH_CMD, else `bash scripts/vllm_cpu_server.sh batch -i {input} -o {output}
      --model {model_dir} --served-model-name {model}`); batch files go under work_dir (default:
      the cache folder)/batches. model_dir: the weights vLLM loads for vllm-batch:NAME (default
      $WIDTHBENCH_VLLM_MODEL_DIR, else NAME); NAME is the served name every request carries.
    timeout: seconds per attempt; max_retries, backoff, max_backoff: the retry policy.
    preflight: check each URL's /v1/models before the model's first request.
    simulator: what answers the task-aware simulated models (sim:oracle, sim:noisy:P, sim:random):
      an object with answer(kind, messages, thinking, rng) -> (text, reasoning), such as
      `widthbench.simulated.Simulator()` (the commands hand one in; the model layer never builds it).
    max_model_len: the context in tokens when a server does not report one (vLLM does, in
      /v1/models; with both, the smaller counts); see `Model.context_length`.
    """
    record, name = BackendRegistry.default().for_spec(spec)
    if preset not in PRESETS:
        raise UserError(f"unknown sampling preset {preset!r} (known: {', '.join(PRESETS)})")
    if concurrency < 1:
        raise UserError(f"concurrency must be at least 1, got {concurrency}")
    if max_model_len is not None and max_model_len < 1:
        raise UserError(f"max_model_len must be at least 1, got {max_model_len}")
    backend = record.open(name, BackendOptions(
        spec=spec, base_urls=split_urls(base_urls), timeout=timeout, api_key=api_key, preflight=preflight,
        concurrency=concurrency, max_model_len=max_model_len, batch_cmd=batch_cmd, batch_size=batch_size,
        work_dir=work_dir or cache_dir, model_dir=model_dir, use_cache=use_cache, simulator=simulator))
    cache = None
    if use_cache:
        cache = ReplyCache(cache_dir if cache_dir is not None else default_cache_dir())
    return Model(spec=spec, name=name, base_model=base_model or name, backend=backend,
                 cache=cache, preset=preset, params=dict(params or {}), concurrency=concurrency,
                 max_retries=max_retries, backoff=backoff, max_backoff=max_backoff,
                 max_model_len=max_model_len, sampling=sampling)


class Model:
    """A model with a cache, a retry policy and a token ledger. Use `run` or `complete`."""

    def __init__(self, *, spec: str, name: str, base_model: str, backend: Any,
                 cache: ReplyCache | None, preset: str, params: dict[str, Any], concurrency: int,
                 max_retries: int, backoff: float, max_backoff: float,
                 max_model_len: int | None = None,
                 sampling: Mapping[str, Mapping[str, Any]] | None = None):
        self.spec = spec
        self.sampling = {m: dict(p) for m, p in (sampling or {}).items()}
        self.max_model_len = max_model_len
        self.name = name
        self.base_model = base_model
        self.backend = backend
        self.cache = cache
        self.preset = preset
        self.params = params
        self.concurrency = concurrency
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.simulated = bool(backend.simulated)
        self.ledger = Ledger(models={name: self.simulated})
        # Across this model's runs: requests looked up, found in the cache, sent (distinct requests
        # that went to the backend), attempts (incl. retries), final errors, and requests skipped
        # because their prompt does not fit the context (never sent).
        self.counters = {"requests": 0, "cached": 0, "sent": 0, "attempts": 0, "errors": 0,
                         "skipped": 0}
        self._jitter = random.Random()

    def __repr__(self) -> str:
        return f"Model({self.spec!r}, simulated={self.simulated})"

    # ---- public API ----------------------------------------------------------------------------
    @property
    def context_length(self) -> int | None:
        """The context (prompt + max_tokens, in tokens) requests must fit: what the server reports
        (vLLM's /v1/models max_model_len, asked once), else `max_model_len`; None if unknown
        (simulated models: the option, else None). Asking may contact the server; an unreachable
        one gives the option's value."""
        probe = getattr(self.backend, "context_length", None)
        return probe() if callable(probe) else self.max_model_len

    def mode_params(self) -> dict[str, dict[str, Any]]:
        """The sampling parameters this model sends in each mode (`types.mode_params`): for a
        run's identity."""
        return mode_params(self.preset, self.params, self.sampling)

    def pending_item(self, request: Request) -> Pending:
        params = resolve_params(request, self.preset, self.params, self.sampling)
        key, key_json = cache_key(self.name, self.base_model, request, params)
        return Pending(request, params, key, key_json)

    def complete(self, request: Request) -> Reply:
        return self.run([request], progress=False)[0]

    def run(self, requests: Iterable[Request], progress: bool = True,
            ledger: Ledger | None = None, tag: str | None = None) -> list[Reply]:
        """Answer all requests (ordered like them). Safe to call from inside a running event loop
        (it then runs on a helper thread); async code can await `arun` instead."""
        return run_sync(self.arun(list(requests), progress, ledger, tag))

    async def arun(self, requests: Sequence[Request], progress: bool = True,
                   ledger: Ledger | None = None, tag: str | None = None) -> list[Reply]:
        """``tag``: the run asking (its id); stored with each new reply as `Reply.made_by`."""
        items = [self.pending_item(r) for r in requests]
        found = self.cache.get_many(i.key for i in items) if self.cache is not None else {}
        results: dict[str, Reply] = {k: dataclasses.replace(r, cached=True) for k, r in found.items()}
        pending = list({i.key: i for i in items if i.key not in results}.values())
        self.counters["requests"] += len(items)
        self.counters["cached"] += len(items) - len(pending)
        if pending:
            bar = _Progress(len(pending), f"{self.name}", progress)
            try:
                if hasattr(self.backend, "run_batch"):
                    await self._run_batch(pending, results, bar, tag)
                else:
                    await self._run_online(pending, results, bar, tag)
            finally:
                bar.close()
        out = []
        seen: set[str] = set()
        for item in items:
            reply = _with_params(results[item.key], item)
            if item.key in seen and not reply.cached:
                reply = dataclasses.replace(reply, cached=True)  # a repeat within the run
            seen.add(item.key)
            out.append(reply)
            self.ledger.add(reply, item.request.purpose, item.request.mode)
            if ledger is not None:
                ledger.add(reply, item.request.purpose, item.request.mode)
        return out

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()

    # ---- internals -----------------------------------------------------------------------------
    def _record(self, item: Pending, reply: Reply, results: dict[str, Reply], bar,
                tag: str | None = None) -> None:
        if reply.error is None and reply.skipped is None and reply.max_tokens is None:
            reply = dataclasses.replace(reply, max_tokens=item.params.get("max_tokens"))
        if tag is not None:
            reply = dataclasses.replace(reply, made_by=tag)
        results[item.key] = reply
        if reply.skipped is not None:
            # Never sent, not an error, not cached: a server with a longer context may answer it.
            self.counters["skipped"] += 1
            if self.counters["skipped"] <= MAX_ERRORS_SHOWN:
                bar.write(f"widthbench: {self.name}: {item.request.purpose} request not sent: "
                          f"{reply.skipped}")
            bar.update(reply)
            return
        self.counters["sent"] += 1
        if reply.error is not None:
            self.counters["errors"] += 1
            if self.counters["errors"] <= MAX_ERRORS_SHOWN:
                bar.write(f"widthbench: {self.name}: {item.request.purpose} request failed: {reply.error}")
            elif self.counters["errors"] == MAX_ERRORS_SHOWN + 1:
                bar.write(f"widthbench: {self.name}: more failed requests; see the errors in the results")
        elif self.cache is not None:
            self.cache.put(item.key, self.name, item.key_json, reply)
        bar.update(reply)

    async def _run_online(self, pending: list[Pending], results: dict[str, Reply], bar,
                          tag: str | None = None) -> None:
        session = await self.backend.open(len(pending))
        sem = asyncio.Semaphore(self.concurrency)
        try:
            async def one(item: Pending) -> None:
                self._record(item, await self._with_retries(session, item, sem), results, bar, tag)

            await asyncio.gather(*(one(i) for i in pending))
        finally:
            await session.close()

    async def _with_retries(self, session, item: Pending, sem: asyncio.Semaphore) -> Reply:
        last, avoid = "", None
        attempts = 0
        for attempt in range(self.max_retries + 1):
            async with sem:
                attempts += 1
                self.counters["attempts"] += 1
                try:
                    reply = await session.attempt(item, avoid)
                    return dataclasses.replace(reply, attempts=attempts)
                except RetryableError as exc:
                    last, avoid, retry_after = str(exc), exc.where, exc.retry_after
                except FatalError as exc:
                    return self._failed(f"{exc}", attempts)
            if attempt == self.max_retries:
                break
            # Full jitter (AWS architecture blog): spreads retries of a burst of failures.
            delay = self._jitter.uniform(0, min(self.max_backoff, self.backoff * 2**attempt))
            if retry_after is not None:
                delay = max(delay, min(retry_after, self.max_backoff))
            await asyncio.sleep(delay)
        return self._failed(f"gave up after {attempts} attempts; last error: {last}", attempts)

    def _failed(self, message: str, attempts: int) -> Reply:
        return Reply(text="", error=message, model=self.name, simulated=self.simulated,
                     attempts=attempts)

    async def _run_batch(self, pending: list[Pending], results: dict[str, Reply], bar,
                         tag: str | None = None) -> None:
        lock = threading.Lock()

        def on_reply(item: Pending, reply: Reply) -> None:
            with lock:
                self.counters["attempts"] += 1
                self._record(item, reply, results, bar, tag)

        await asyncio.to_thread(self.backend.run_batch, pending, on_reply)
        for item in pending:  # the backend must answer all; guard against a silent drop anyway
            if item.key not in results:
                self._record(item, self._failed("no result from the batch runner", 1), results, bar, tag)


def _with_params(reply: Reply, item: Pending) -> Reply:
    """The reply with the parameters sent (max_tokens as sent, when lowered to fit the context).
    A cached reply was made with the same parameters: they are part of its cache key."""
    params = dict(item.params)
    if reply.max_tokens is not None:
        params["max_tokens"] = reply.max_tokens
    return dataclasses.replace(reply, params=params)


class _Progress:
    """A tqdm bar on stderr: requests done, tokens, errors. Silent when disabled."""

    def __init__(self, total: int, desc: str, enabled: bool):
        self.bar = None
        self.tokens = 0
        self.errors = 0
        self._last = 0.0
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, unit="req", file=sys.stderr, mininterval=0.5,
                            dynamic_ncols=True, leave=True)

    def update(self, reply: Reply) -> None:
        self.tokens += reply.prompt_tokens + reply.completion_tokens
        self.errors += reply.error is not None
        if self.bar is None:
            return
        self.bar.update(1)
        now = time.monotonic()
        if now - self._last > 0.5:
            self._last = now
            self.bar.set_postfix(tokens=self.tokens, errors=self.errors, refresh=False)

    def write(self, line: str) -> None:
        if self.bar is not None:
            self.bar.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.set_postfix(tokens=self.tokens, errors=self.errors, refresh=False)
            self.bar.close()
