"""The `openai:NAME` backend: any OpenAI-compatible chat server, one or several base URLs.

Qwen3 on vLLM, as NOTES §4 has it: thinking is switched per request with
`chat_template_kwargs={"enable_thinking": ...}`; the full sampling preset is sent every time, with
`top_k`/`min_p` as top-level body fields (what the openai client's `extra_body` produces; vLLM reads
them there); `seed` when the request has one. Reasoning is read from `reasoning`,
`reasoning_content` or inline `<think>`; thinking tokens come from usage when the server reports
them, else from the server's /tokenize endpoint applied to the reasoning text.

Several base URLs are load-balanced by fewest requests in flight. Before the first request a model
sends, each URL's /v1/models is checked once: a URL that cannot be reached is dropped with a warning, and if
none is left (or the model is not served) the run stops with one clear UserError line.
HTTP goes through `llm/http.py` (see there why not the openai package).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from widthbench.errors import UserError
from widthbench.llm.backend import FatalError, Pending, RetryableError
from widthbench.llm.http import HTTPClient, HTTPError, Response, Timeout
from widthbench.llm.parse import BadResponse, parse_completion
from widthbench.llm.types import Reply

RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"


def request_body(model: str, item: Pending) -> dict[str, Any]:
    """The JSON body of a chat completion request (shared with the batch file writer)."""
    body: dict[str, Any] = {"model": model, "messages": item.request.message_dicts()}
    body.update(item.params)
    if item.request.seed is not None:
        body["seed"] = item.request.seed
    body["chat_template_kwargs"] = {"enable_thinking": item.request.thinking}
    return body


def _root(base_url: str) -> str:
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


class _Server:
    def __init__(self, base_url: str):
        self.base_url = base_url.rstrip("/")
        self.chat_url = self.base_url + "/chat/completions"
        self.tokenize_url = _root(self.base_url) + "/tokenize"
        self.in_flight = 0


class OpenAIBackend:
    """Configuration of an openai: model. Each run opens its own `_Session` (HTTP connections
    belong to one event loop), so concurrent runs of one Model do not share state."""

    def __init__(self, name: str, base_urls: list[str], *, timeout: float = 1800.0,
                 api_key: str | None = None, preflight: bool = True, concurrency: int = 8):
        self.name = name
        self.simulated = name.startswith("sim:")
        self.urls = list(dict.fromkeys(u.rstrip("/") for u in base_urls)) or [DEFAULT_BASE_URL]
        self.timeout = timeout
        self.api_key = api_key
        self.preflight = preflight
        self.concurrency = concurrency
        self._checked: list[str] | None = None  # URLs that passed the /v1/models check

    async def open(self, pending: int) -> "_Session":
        # Local servers need no key; one is sent only if given or set in OPENAI_API_KEY.
        key = self.api_key or os.environ.get("OPENAI_API_KEY")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        session = _Session(self, HTTPClient(timeout=self.timeout, headers=headers))
        try:
            if self.preflight and self._checked is None:
                # Once per model, not per run: searches call complete() thousands of times.
                self._checked = [s.base_url for s in await session.check()]
        except BaseException:
            await session.close()
            raise
        if self._checked is not None:
            session.servers = [s for s in session.servers if s.base_url in self._checked]
        return session


class _Session:
    def __init__(self, backend: OpenAIBackend, http: HTTPClient):
        self.backend = backend
        self.name = backend.name
        self.http = http
        self.servers = [_Server(u) for u in backend.urls]
        self._turn = 0

    async def check(self) -> list[_Server]:
        """The servers that answer /v1/models; a UserError if none does or the model is absent."""
        alive, problems = [], []
        for s in self.servers:
            try:
                r = await self.http.request("GET", s.base_url + "/models", timeout=10.0)
            except HTTPError as exc:
                problems.append(f"{s.base_url}: {exc}")
                continue
            if r.status != 200:
                problems.append(f"{s.base_url}/models: HTTP {r.status}")
                continue
            try:
                served = [m.get("id") for m in r.json().get("data", [])]
            except (ValueError, AttributeError):
                served = []
            if served and self.name not in served:
                raise UserError(f"model {self.name!r} is not served at {s.base_url} "
                                f"(served: {', '.join(map(str, served))})")
            alive.append(s)
        if not alive:
            raise UserError("cannot reach the model server: " + "; ".join(problems)
                            + " (is it running? check --base-url)")
        for p in problems:
            print(f"widthbench: warning: skipping unreachable server {p}", file=sys.stderr)
        return alive

    async def close(self) -> None:
        await self.http.aclose()

    def _pick(self, avoid: str | None = None) -> _Server:
        n = len(self.servers)
        self._turn = (self._turn + 1) % n
        order = self.servers[self._turn:] + self.servers[: self._turn]
        if avoid is not None and n > 1:
            order = [s for s in order if s.base_url != avoid] + [s for s in order if s.base_url == avoid]
        return min(order, key=lambda s: s.in_flight)

    async def attempt(self, item: Pending, avoid: str | None = None) -> Reply:
        """One try at the least busy server (preferring one other than `avoid`, where the last
        try failed)."""
        server = self._pick(avoid)
        where, timeout = server.base_url, self.backend.timeout
        server.in_flight += 1
        start = time.perf_counter()
        try:
            r = await self.http.request("POST", server.chat_url, request_body(self.name, item))
        except Timeout:
            raise RetryableError(f"timeout after {timeout:g} s at {where}", where=where) from None
        except HTTPError as exc:
            raise RetryableError(f"{exc} at {where}", where=where) from None
        finally:
            server.in_flight -= 1
        latency = time.perf_counter() - start
        if r.status != 200:
            message = f"HTTP {r.status} from {where}: {_detail(r)}"
            if r.status in RETRY_STATUS or r.status >= 500:
                raise RetryableError(message, _retry_after(r), where)
            raise FatalError(message)
        try:
            parsed = parse_completion(r.json())
        except (ValueError, BadResponse) as exc:  # broken JSON body
            raise RetryableError(f"bad response from {where}: {exc}"[:400], where=where) from None
        thinking, source = parsed.thinking_tokens, "usage"
        if thinking is None:
            thinking = await self.count_tokens(server, parsed.reasoning or "")
            source = "tokenize" if thinking is not None else None
        elif not parsed.reasoning and thinking == 0:
            source = None
        return Reply(
            text=parsed.text, reasoning=parsed.reasoning, prompt_tokens=parsed.prompt_tokens,
            completion_tokens=parsed.completion_tokens, thinking_tokens=thinking,
            finish_reason=parsed.finish_reason, latency=latency, model=self.name,
            simulated=self.backend.simulated or parsed.simulated, thinking_tokens_from=source,
        )

    async def count_tokens(self, server: _Server, text: str) -> int | None:
        """Tokens of `text` by the server's /tokenize (vLLM: prompt -> count; llama.cpp:
        content -> tokens). None if the server cannot tell."""
        if not text:
            return 0
        for payload in ({"model": self.name, "prompt": text, "add_special_tokens": False},
                        {"content": text, "add_special": False}):
            for _ in range(3):
                try:
                    r = await self.http.request("POST", server.tokenize_url, payload, timeout=60.0)
                except HTTPError:
                    continue
                if r.status >= 500:
                    continue
                if r.status != 200:
                    break
                try:
                    data = r.json()
                    return int(data["count"]) if "count" in data else len(data["tokens"])
                except (ValueError, KeyError, TypeError):
                    break
        return None


def _detail(r: Response) -> str:
    try:
        body = r.json()
    except ValueError:
        return r.body[:300].decode(errors="replace")
    if isinstance(body, dict):
        inner = body.get("error")
        msg = body.get("message") or (inner.get("message") if isinstance(inner, dict) else inner)
        if msg:
            return str(msg)[:300]
    return str(body)[:300]


def _retry_after(r: Response) -> float | None:
    try:
        value = r.headers.get("retry-after")
        return float(value) if value is not None else None
    except (AttributeError, ValueError):
        return None
