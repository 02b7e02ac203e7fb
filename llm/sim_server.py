"""An OpenAI-compatible HTTP server for simulated models, with injected faults.

Serves POST /v1/chat/completions, GET /v1/models, POST /tokenize, GET /health, and for tests
GET /stats (answered and faulted requests, per-request answer counts, requests in flight) and POST
/stats/reset.
It binds 127.0.0.1 only. Written on asyncio streams, not a web framework, so faults can be real:
a truncated reply announces its full Content-Length, sends half the body and closes the socket.

Response shapes (`shape`), as seen in the wild:
  vllm      message.reasoning, usage.completion_tokens_details.reasoning_tokens
  vllm-old  message.reasoning_content, no reasoning-token detail
  raw-think no reasoning parser: <think>…</think> inside content, no detail (count via /tokenize)
  llamacpp  reasoning_content with '' for none, no detail, any model name accepted
Thinking follows chat_template_kwargs.enable_thinking, default on (as Qwen3's template).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import random
import threading
import time
import zlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from widthbench.llm import sim_backend, tokens
from widthbench.llm.completions import hermes_tool_calls

SHAPES = ("vllm", "vllm-old", "raw-think", "llamacpp")
FAULTS = ("500", "timeout", "truncated", "429")
HOST = "127.0.0.1"
# Body keys that are not sampling parameters (everything else is, as the client sent it).
_NOT_SAMPLING = {"model", "messages", "chat_template_kwargs", "seed", "stream", "stream_options",
                 "max_completion_tokens"}
_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
            429: "Too Many Requests", 500: "Internal Server Error"}


@dataclass
class SimServerConfig:
    model: str = "sim:echo"
    port: int = 0
    latency: float = 0.0
    fail_rate: float = 0.0
    faults: tuple[str, ...] = ("500", "timeout", "truncated")
    hang: float = 30.0  # how long an injected timeout keeps the client waiting before closing
    shape: str = "vllm"
    seed: int = 0
    max_model_len: int = 32768
    # Task-aware models (sim:oracle, sim:noisy:P, sim:random) answer through this simulator
    # (`widthbench.sim_backend.Simulator`), handed in by the caller: the model layer cannot build one.
    simulator: Any = field(default=None, compare=False, repr=False)


@dataclass
class Stats:
    chat_requests: int = 0
    answered: int = 0
    faults: Counter = field(default_factory=Counter)
    answers_per_request: Counter = field(default_factory=Counter)
    tokenize_requests: int = 0
    other_requests: int = 0
    recent_bodies: list = field(default_factory=list)

    def to_dict(self, keys: bool = False, bodies: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "chat_requests": self.chat_requests,
            "answered": self.answered,
            "faults": dict(self.faults),
            "distinct_answered": len(self.answers_per_request),
            "max_answers_per_request": max(self.answers_per_request.values(), default=0),
            "tokenize_requests": self.tokenize_requests,
            "other_requests": self.other_requests,
        }
        if keys:
            out["answers_per_request"] = dict(self.answers_per_request)
        if bodies:
            out["recent_bodies"] = list(self.recent_bodies)
        return out


def request_id(body: dict[str, Any]) -> str:
    """A stable id of a chat request body (what the client would cache it under)."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _token_ids(text: str) -> list[int]:
    return [zlib.crc32(p.encode()) % 150_000 for p in tokens.tokenize(text)]


class SimServer:
    def __init__(self, config: SimServerConfig):
        if config.shape not in SHAPES:
            raise ValueError(f"unknown shape {config.shape!r} (known: {', '.join(SHAPES)})")
        bad = [f for f in config.faults if f not in FAULTS]
        if bad:
            raise ValueError(f"unknown fault kinds {bad} (known: {', '.join(FAULTS)})")
        self.config = config
        self.answer = sim_backend.answer_function(config.model, config.simulator)
        self.stats = Stats()
        self.in_flight = 0  # chat requests received and not yet answered (kept across a stats reset)
        self._fault_rng = random.Random(config.seed)
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task] = set()
        self.port = config.port

    # ---- HTTP plumbing -------------------------------------------------------------------------
    async def start(self) -> None:
        self._server = await asyncio.start_server(self._connection, HOST, self.config.port,
                                                  backlog=1024)
        self.port = self._server.sockets[0].getsockname()[1]

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        self._tasks.add(task)
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    return
                lines = head.decode("latin-1").split("\r\n")
                try:
                    method, target, _version = lines[0].split(" ", 2)
                except ValueError:
                    return
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                length = int(headers.get("content-length") or 0)
                try:
                    raw = await reader.readexactly(length) if length else b""
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                keep = await self._dispatch(method, target, raw, writer)
                if not keep or headers.get("connection", "").lower() == "close":
                    return
        except asyncio.CancelledError:
            pass
        finally:
            self._tasks.discard(task)
            with contextlib.suppress(Exception):
                writer.close()

    async def _send(self, writer, status: int, payload: Any, extra: dict | None = None,
                    truncate: bool = False) -> bool:
        body = b"" if payload is None else json.dumps(payload).encode()
        head = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}",
                "Content-Type: application/json", f"Content-Length: {len(body)}"]
        head += [f"{k}: {v}" for k, v in (extra or {}).items()]
        data = ("\r\n".join(head) + "\r\n\r\n").encode()
        if truncate:
            writer.write(data + body[: len(body) // 2])
            with contextlib.suppress(ConnectionError):
                await writer.drain()
            return False  # close the connection mid-body
        writer.write(data + body)
        try:
            await writer.drain()
        except ConnectionError:
            return False
        return True

    async def _dispatch(self, method: str, target: str, raw: bytes, writer) -> bool:
        path, _, query = target.partition("?")
        path = path.rstrip("/") or "/"
        if path == "/v1/chat/completions" and method == "POST":
            self.in_flight += 1
            try:
                return await self._chat(raw, writer)
            finally:
                self.in_flight -= 1
        if path in ("/tokenize", "/v1/tokenize") and method == "POST":
            self.stats.tokenize_requests += 1
            return await self._tokenize(raw, writer)
        if not path.startswith("/stats"):
            self.stats.other_requests += 1
        if path == "/health":
            return await self._send(writer, 200, None)
        if path == "/v1/models" and method == "GET":
            return await self._send(writer, 200, self._models())
        if path == "/stats" and method == "GET":
            return await self._send(writer, 200, {**self.stats.to_dict(
                keys="keys=1" in query, bodies="bodies=1" in query), "in_flight": self.in_flight})
        if path == "/stats/reset" and method == "POST":
            self.stats = Stats()
            return await self._send(writer, 200, {"reset": True})
        return await self._send(writer, 404, self._error(f"no route {method} {path}", 404))

    # ---- endpoints -----------------------------------------------------------------------------
    @staticmethod
    def _error(message: str, code: int) -> dict[str, Any]:
        kind = {400: "BadRequestError", 404: "NotFoundError", 429: "RateLimitError"}.get(
            code, "InternalServerError")
        return {"object": "error", "message": message, "type": kind, "param": None, "code": code}

    def _models(self) -> dict[str, Any]:
        return {"object": "list", "data": [{
            "id": self.config.model, "object": "model", "created": 0, "owned_by": "widthbench",
            "root": self.config.model, "parent": None, "max_model_len": self.config.max_model_len}]}

    async def _tokenize(self, raw: bytes, writer) -> bool:
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            return await self._send(writer, 400, self._error("invalid JSON", 400))
        if "messages" in body:
            ids = [0] * tokens.count_prompt_tokens(body["messages"])
        else:
            ids = _token_ids(str(body.get("prompt", body.get("content", ""))))
        if self.config.shape == "llamacpp":
            return await self._send(writer, 200, {"tokens": ids})
        return await self._send(writer, 200, {"count": len(ids), "max_model_len":
                                              self.config.max_model_len, "tokens": ids,
                                              "token_strs": None})

    async def _chat(self, raw: bytes, writer) -> bool:
        self.stats.chat_requests += 1
        try:
            body = json.loads(raw)
            messages = body["messages"]
            if not isinstance(messages, list):
                raise TypeError
        except (json.JSONDecodeError, KeyError, TypeError):
            return await self._send(writer, 400, self._error("invalid chat completion request", 400))
        if len(self.stats.recent_bodies) < 200:
            self.stats.recent_bodies.append(body)
        name = body.get("model")
        if name != self.config.model and self.config.shape != "llamacpp":
            return await self._send(writer, 404, self._error(
                f"The model `{name}` does not exist.", 404))
        if self.config.latency > 0:
            await asyncio.sleep(self.config.latency)
        if self.config.fail_rate > 0 and self._fault_rng.random() < self.config.fail_rate:
            fault = self._fault_rng.choice(self.config.faults)
            self.stats.faults[fault] += 1
            if fault == "500":
                return await self._send(writer, 500, self._error("injected server error", 500))
            if fault == "429":
                return await self._send(writer, 429, self._error("injected rate limit", 429),
                                        extra={"Retry-After": "0"})
            if fault == "timeout":
                await asyncio.sleep(self.config.hang)
                return False
            payload = self.completion(body)
            return await self._send(writer, 200, payload, truncate=True)
        payload = self.completion(body)
        ok = await self._send(writer, 200, payload)
        if ok:
            self.stats.answered += 1
            self.stats.answers_per_request[request_id(body)] += 1
        return ok

    def completion(self, body: dict[str, Any]) -> dict[str, Any]:
        """The chat completion body answering request `body`, in this server's shape (no faults)."""
        kwargs = body.get("chat_template_kwargs") or {}
        thinking = bool(kwargs.get("enable_thinking", True))
        max_tokens = body.get("max_tokens", body.get("max_completion_tokens"))
        params = {k: v for k, v in body.items() if k not in _NOT_SAMPLING}
        if "max_tokens" not in params and max_tokens is not None:
            params["max_tokens"] = max_tokens
        rng = sim_backend.request_rng(self.config.model, body["messages"], params, thinking,
                                    body.get("seed"))
        c = sim_backend.simulate(self.answer, body["messages"], thinking, max_tokens, rng)
        return self._shape(body, c)

    def _shape(self, body: dict[str, Any], c: sim_backend.Completion) -> dict[str, Any]:
        shape = self.config.shape
        message: dict[str, Any] = {"role": "assistant"}
        calls: tuple = ()
        if body.get("tools") and c.finish_reason != "length":  # tool calls parsed as vLLM's hermes parser does
            text, calls = hermes_tool_calls(c.text)
            c = dataclasses.replace(c, text=text, finish_reason="tool_calls" if calls else c.finish_reason)
        cut_in_thinking = c.reasoning is not None and c.finish_reason == "length" and not c.text
        details = None
        if shape == "raw-think":
            if c.reasoning is None:
                message["content"] = c.text
            elif cut_in_thinking:
                message["content"] = f"<think>\n{c.reasoning}"
            else:
                message["content"] = f"<think>\n{c.reasoning}\n</think>\n\n{c.text}"
        elif shape == "llamacpp":
            message["content"] = c.text
            message["reasoning_content"] = c.reasoning or ""
        else:
            field_name = "reasoning" if shape == "vllm" else "reasoning_content"
            if c.reasoning is None:
                message["content"] = c.text
            else:
                message["content"] = None if cut_in_thinking else "\n\n" + c.text
            message[field_name] = c.reasoning
            message["tool_calls"] = []
            if shape == "vllm":
                details = {"reasoning_tokens": c.thinking_tokens}
        if calls:
            message["tool_calls"] = [{"id": x["id"], "type": "function",
                                      "function": {"name": x["name"], "arguments": x["arguments"]}} for x in calls]
            message["content"] = message.get("content") or None
        usage: dict[str, Any] = {"prompt_tokens": c.prompt_tokens,
                                 "completion_tokens": c.completion_tokens,
                                 "total_tokens": c.prompt_tokens + c.completion_tokens}
        if shape != "llamacpp":
            usage["prompt_tokens_details"] = None
        if details is not None:
            usage["completion_tokens_details"] = details
        return {
            "id": "chatcmpl-" + request_id(body),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": c.finish_reason, "stop_reason": None}],
            "usage": usage,
            "simulated": True,
            **({"injected": c.injected} if c.injected is not None else {}),
        }


# ---- running it --------------------------------------------------------------------------------
def _root_url(base_url: str) -> str:
    return base_url.rsplit("/v1", 1)[0]


def fetch_stats(base_url: str, keys: bool = False, bodies: bool = False) -> dict[str, Any]:
    """GET /stats of a running sim-server (keys: answers per request id; bodies: recent bodies)."""
    import urllib.request

    query = "&".join(q for q, on in (("keys=1", keys), ("bodies=1", bodies)) if on)
    url = _root_url(base_url) + "/stats" + ("?" + query if query else "")
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def reset_stats(base_url: str) -> None:
    import urllib.request

    req = urllib.request.Request(_root_url(base_url) + "/stats/reset", data=b"{}", method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        r.read()


async def serve(config: SimServerConfig, ready: threading.Event | None = None,
                stop: asyncio.Event | None = None, on_start=None) -> None:
    server = SimServer(config)
    await server.start()
    if on_start is not None:
        on_start(server)
    if ready is not None:
        ready.set()
    try:
        if stop is None:
            await asyncio.Event().wait()
        else:
            await stop.wait()
    finally:
        await server.close()


class ServerThread:
    """A sim-server on a background thread (tests, benchmarks): `with ServerThread(cfg) as s:`."""

    def __init__(self, config: SimServerConfig):
        self.config = config
        self.server: SimServer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def start(self) -> "ServerThread":
        ready = threading.Event()

        def main() -> None:
            self._loop = asyncio.new_event_loop()
            self._stop = asyncio.Event()

            def started(server: SimServer) -> None:
                self.server = server

            try:
                self._loop.run_until_complete(serve(self.config, ready, self._stop, started))
            except BaseException as exc:  # reported to the starting thread
                self._error = exc
                ready.set()
            finally:
                self._loop.close()

        self._thread = threading.Thread(target=main, name="sim-server", daemon=True)
        self._thread.start()
        ready.wait(30)
        if self._error is not None:
            raise self._error
        return self

    @property
    def base_url(self) -> str:
        assert self.server is not None
        return self.server.base_url

    def stats(self, keys: bool = False, bodies: bool = False) -> dict[str, Any]:
        return fetch_stats(self.base_url, keys, bodies)

    def reset_stats(self) -> None:
        reset_stats(self.base_url)

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(10)

    def __enter__(self) -> "ServerThread":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
