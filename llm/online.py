"""The `openai:NAME` backend: any OpenAI-compatible chat server, one or several base URLs.

HTTP goes through the official `openai` package (design contract: "Our side speaks HTTP with the
`openai` client"): one `AsyncOpenAI` per base URL per run (a run's connections belong to its event
loop), built with `max_retries=0` so the Model's retry loop, not the client's, decides what is
retried and when. Every chat request is `chat.completions.with_raw_response.create(...)`; the raw
JSON body is handed to `parse_completion`, which knows every shape servers send.

Qwen3 on vLLM, as docs/llm.md has it: thinking is switched per request with
`extra_body={"chat_template_kwargs": {"enable_thinking": ...}}`; the full sampling preset is sent
every time, the parameters the client knows (temperature, top_p, max_tokens, presence_penalty,
seed, ...) as its documented arguments and the others (`top_k`, `min_p`, ...) in `extra_body`,
which the client merges into the top level of the JSON body (vLLM reads them there). The body that
reaches the server equals `request_body(...)`, the one the batch files carry. Reasoning is read from
`reasoning`, `reasoning_content` or inline `<think>`; thinking tokens come from usage when the server
reports them, else from the server's /tokenize endpoint applied to the reasoning text.

Several base URLs are load-balanced by fewest requests in flight. Before the first request a model
sends, each URL's /v1/models is checked once (`models.list`): a URL that cannot be reached is dropped
with a warning, and if none is left (or the model is not served) the run stops with one UserError line.

Server-aware limits: the same check reads each server's context (`max_model_len`, which vLLM
reports per model; else the `max_model_len` option, CLI `--max-model-len`; with both, the smaller).
Before each attempt, prompt + max_tokens must fit that context: a prompt that clearly fits is sent
as it is; otherwise its tokens are counted with the server's `/tokenize` (the chat form, which equals
the request's `usage.prompt_tokens` on vLLM; else the text form plus template overhead; else a
bound from the prompt's bytes), max_tokens is lowered to the room left, and a prompt that leaves no
room is not sent: its Reply has `skipped` set. The value sent is `Reply.max_tokens`.

Constraints (`Request.constraint`) travel as `structured_outputs` in the body (vLLM >= 0.12; the
former `guided_*` fields are gone), in the batch files too.

Failures map onto the Model's retry policy: `APIConnectionError` (refused, reset, a body cut off),
`APITimeoutError`, HTTP 408/409/425/429/5xx and a 200 whose body is not a chat completion are
retryable; every other status (400, 404, ...) is final at once.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from typing import Any

from widthbench.core.errors import UserError, listed
from widthbench.llm.backend import FatalError, Pending, RetryableError
from widthbench.llm.completions import BadResponse, parse_completion
from widthbench.llm.types import Reply, fit_max_tokens, prompt_token_bound
from widthbench.llm.sync import run_sync

RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
NO_KEY = "EMPTY"  # what local servers get when no key is set (vLLM ignores it without --api-key)
PREFLIGHT_TIMEOUT = 10.0
TOKENIZE_TIMEOUT = 60.0

# Body fields sent as documented arguments of `chat.completions.create`; everything else in the body
# (top_k, min_p, chat_template_kwargs, structured_outputs, ...) travels in `extra_body`.
DOCUMENTED_PARAMS = frozenset({
    "temperature", "top_p", "max_tokens", "max_completion_tokens", "presence_penalty",
    "frequency_penalty", "seed", "n", "stop", "logprobs", "top_logprobs", "logit_bias", "tools", "tool_choice",
})


def request_body(model: str, item: Pending) -> dict[str, Any]:
    """The JSON body of a chat completion request (shared with the batch file writer)."""
    body: dict[str, Any] = {"model": model, "messages": item.request.message_dicts()}
    body.update(item.params)
    if item.request.seed is not None:
        body["seed"] = item.request.seed
    body["chat_template_kwargs"] = {"enable_thinking": item.request.thinking}
    if item.request.constraint is not None:
        body["structured_outputs"] = dict(item.request.constraint)
    if item.request.tools:
        body["tools"] = item.request.tool_dicts()
        body["tool_choice"] = "auto"
    return body


def create_arguments(body: dict[str, Any]) -> dict[str, Any]:
    """`chat.completions.create` keyword arguments that send exactly `body`."""
    args: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in body.items():
        if key in ("model", "messages") or key in DOCUMENTED_PARAMS:
            args[key] = value
        else:
            extra[key] = value
    args["extra_body"] = extra
    return args


def _root(base_url: str) -> str:
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def _http_lib():
    """The HTTP library the installed openai package is built on (httpx2 for openai 3.x, httpx
    before): its Timeout, Limits and AsyncClient configure the client's connection pool."""
    import importlib

    import openai

    base = next(c for c in openai.DefaultAsyncHttpxClient.__mro__[1:] if c.__name__ == "AsyncClient")
    return importlib.import_module(base.__module__.partition(".")[0])


@functools.cache
def _ssl_context():
    """One verifying SSL context per process (loading the CA store costs ~50 ms; httpx would do it
    for every client, i.e. every run). Made on first use, never at import."""
    return _http_lib().create_ssl_context()


class _Server:
    def __init__(self, base_url: str):
        self.base_url = base_url.rstrip("/")
        self.tokenize_url = _root(self.base_url) + "/tokenize"
        self.in_flight = 0
        self.context: int | None = None  # tokens: the server's max_model_len (or the option)
        self.client: Any = None  # AsyncOpenAI for this URL, made by the session
        self.create: Any = None  # its chat.completions.with_raw_response.create, bound once


class OpenAIBackend:
    """Configuration of an openai: model. Each run opens its own `_Session` (HTTP connections
    belong to one event loop), so concurrent runs of one Model do not share state."""

    def __init__(self, name: str, base_urls: list[str], *, timeout: float = 1800.0,
                 api_key: str | None = None, preflight: bool = True, concurrency: int = 8,
                 max_model_len: int | None = None):
        self.name = name
        self.max_model_len = max_model_len
        self.contexts: dict[str, int | None] = {}  # URL -> context, from the /v1/models check
        self.simulated = name.startswith("sim:")
        self.urls = list(dict.fromkeys(u.rstrip("/") for u in base_urls)) or [DEFAULT_BASE_URL]
        self.timeout = timeout
        self.api_key = api_key
        self.preflight = preflight
        self.concurrency = concurrency
        self._checked: list[str] | None = None  # URLs that passed the /v1/models check

    async def open(self, pending: int) -> "_Session":
        # Local servers need no key: the option, else OPENAI_API_KEY when the run starts, else a
        # dummy (the openai client insists on one).
        key = self.api_key or os.environ.get("OPENAI_API_KEY") or NO_KEY
        for url in self.urls:
            _check_url(url)
        session = _Session(self, key)
        try:
            if self.preflight and self._checked is None:
                # Once per model, not per run: searches call complete() thousands of times.
                self._checked = [s.base_url for s in await session.check()]
        except BaseException:
            await session.close()
            raise
        if self._checked is not None:
            session.servers = [s for s in session.servers if s.base_url in self._checked]
        for s in session.servers:
            s.context = _smaller(self.contexts.get(s.base_url), self.max_model_len)
        return session

    def context_length(self) -> int | None:
        """The smallest context of the servers (their /v1/models max_model_len, checked once),
        else the max_model_len option; None if neither is known. An unreachable server is no
        error here (the run's own check reports it): the option, or None, is returned."""
        if self._checked is None and self.preflight:
            async def probe() -> None:
                await (await self.open(0)).close()

            try:
                _run_sync(probe())
            except UserError:
                return self.max_model_len
        known = [c for u, c in self.contexts.items() if c and (self._checked is None or u in self._checked)]
        return _smaller(min(known) if known else None, self.max_model_len)


class _Session:
    def __init__(self, backend: OpenAIBackend, api_key: str):
        import openai

        httpx = _http_lib()
        self.backend = backend
        self.name = backend.name
        self.servers = [_Server(u) for u in backend.urls]
        self._all = list(self.servers)
        self._turn = 0
        # Timeouts per attempt: connecting, and then no byte for `timeout` seconds (vLLM sends a
        # non-streamed reply in one piece, so this is the time the reply may take).
        timeout = httpx.Timeout(backend.timeout)
        # One pool per server, sized to the run's concurrency: every slot keeps its connection
        # alive between requests, and nothing waits for a connection.
        size = max(1, backend.concurrency)
        limits = httpx.Limits(max_connections=size, max_keepalive_connections=size)
        for s in self.servers:
            http = httpx.AsyncClient(timeout=timeout, limits=limits, verify=_ssl_context())
            s.client = openai.AsyncOpenAI(base_url=s.base_url, api_key=api_key, max_retries=0,
                                          timeout=timeout, http_client=http)
            s.create = s.client.chat.completions.with_raw_response.create
        self._openai = openai

    async def check(self) -> list[_Server]:
        """The servers that answer /v1/models; a UserError if none does or the model is absent."""
        import openai

        alive, problems = [], []
        for s in self.servers:
            try:
                raw = await s.client.models.with_raw_response.list(timeout=PREFLIGHT_TIMEOUT)
            except openai.APIStatusError as exc:
                problems.append(f"{s.base_url}/models: HTTP {exc.status_code}")
                continue
            except openai.APIError as exc:
                problems.append(f"{s.base_url}: {_transport_error(exc)}")
                continue
            try:
                data = [m for m in raw.http_response.json().get("data", []) if isinstance(m, dict)]
            except (ValueError, AttributeError):
                data = []
            served = [m.get("id") for m in data]
            context = next((m.get("max_model_len") for m in data if m.get("id") == self.name), None)
            self.backend.contexts[s.base_url] = context if isinstance(context, int) and context > 0 else None
            if served and self.name not in served:
                raise UserError(f"model {self.name!r} is not served at {s.base_url} "
                                f"(served: {listed(served)})")
            alive.append(s)
        if not alive:
            raise UserError(f"cannot reach the model server{'s' if len(problems) > 1 else ''}: {listed(problems)} "
                            "(is it running? check --base-url)")
        for p in problems:
            print(f"widthbench: warning: skipping unreachable server {p}", file=sys.stderr)
        return alive

    async def close(self) -> None:
        for s in self._all:
            if s.client is not None:
                await s.client.close()

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
        openai = self._openai
        server = self._pick(avoid)
        where = server.base_url
        sent = request_body(self.name, item)
        if server.context is not None and isinstance(sent.get("max_tokens"), int):
            fitted, skipped = await self.fit(server, item, sent["max_tokens"])
            if skipped is not None:
                return Reply(text="", model=self.name, simulated=self.backend.simulated,
                             skipped=skipped, finish_reason=None)
            sent["max_tokens"] = fitted
        server.in_flight += 1
        start = time.perf_counter()
        try:
            raw = await server.create(**create_arguments(sent))
            body = raw.http_response.json()
        except openai.APITimeoutError:
            raise RetryableError(f"timeout after {self.backend.timeout:g} s at {where}",
                                 where=where) from None
        except openai.APIStatusError as exc:
            status = exc.status_code
            message = f"HTTP {status} from {where}: {_detail(exc.response)}"
            if status in RETRY_STATUS or status >= 500:
                raise RetryableError(message, _retry_after(exc.response), where) from None
            raise FatalError(message) from None
        except openai.APIError as exc:  # connection refused or reset, a reply cut off
            raise RetryableError(f"{_transport_error(exc)} at {where}", where=where) from None
        except ValueError as exc:  # a 200 whose body is not JSON
            raise RetryableError(f"bad response from {where}: {exc}"[:400], where=where) from None
        finally:
            server.in_flight -= 1
        latency = time.perf_counter() - start
        try:
            parsed = parse_completion(body)
        except BadResponse as exc:  # JSON, but not a chat completion
            raise RetryableError(f"bad response from {where}: {exc}"[:400], where=where) from None
        thinking, source = parsed.thinking_tokens, "usage"
        if not parsed.reasoning and not thinking:
            thinking, source = 0, None  # no reasoning came back (a model that does not think)
        elif thinking is None:
            thinking = await self.count_tokens(server, parsed.reasoning or "")
            source = "tokenize" if thinking is not None else None
        return Reply(
            text=parsed.text, reasoning=parsed.reasoning, prompt_tokens=parsed.prompt_tokens,
            completion_tokens=parsed.completion_tokens, thinking_tokens=thinking,
            finish_reason=parsed.finish_reason, latency=latency, model=self.name,
            simulated=self.backend.simulated or parsed.simulated, thinking_tokens_from=source,
            max_tokens=sent.get("max_tokens"), injected=parsed.injected, tool_calls=parsed.tool_calls,
        )

    async def fit(self, server: _Server, item: Pending, max_tokens: int) -> tuple[int | None, str | None]:
        """(max_tokens to send, None) or (None, why the prompt cannot fit `server.context`)."""
        context = server.context
        messages = item.request.message_dicts()
        bound = prompt_token_bound(messages)
        if bound + max_tokens <= context:
            return max_tokens, None  # fits whatever the tokenizer: no /tokenize round trip
        count = await self.count_prompt(server, item)
        exact = count is not None
        if count is None:
            text = await self.count_tokens(server, "\n".join(str(m.get("content") or "") for m in messages))
            count = bound if text is None else min(bound, text + 8 * len(messages) + 64)
        return fit_max_tokens(max_tokens, count, context, exact)

    async def count_prompt(self, server: _Server, item: Pending) -> int | None:
        """The chat prompt's tokens as the server renders it (vLLM's /tokenize with messages and
        the same chat_template_kwargs; its `count` equals usage.prompt_tokens). None if the
        server has no such form (llama.cpp, older servers)."""
        openai = self._openai
        payload = {"model": self.name, "messages": item.request.message_dicts(),
                   "add_generation_prompt": True,
                   "chat_template_kwargs": {"enable_thinking": item.request.thinking}}
        try:
            data = await server.client.post(server.tokenize_url, body=payload, cast_to=object,
                                            options={"timeout": TOKENIZE_TIMEOUT})
            return int(data["count"])
        except (openai.APIError, ValueError, KeyError, TypeError):
            return None

    async def count_tokens(self, server: _Server, text: str) -> int | None:
        """Tokens of `text` by the server's /tokenize (vLLM: prompt -> count; llama.cpp:
        content -> tokens). None if the server cannot tell.

        /tokenize sits at the server root, outside /v1, and the openai package has no method for
        it: the same client's generic `post` with an absolute URL sends it (same connections, key
        and timeouts); `cast_to=object` gives the decoded JSON as it is."""
        openai = self._openai

        if not text:
            return 0
        for payload in ({"model": self.name, "prompt": text, "add_special_tokens": False},
                        {"content": text, "add_special": False}):
            for _ in range(3):
                try:
                    data = await server.client.post(server.tokenize_url, body=payload,
                                                    cast_to=object,
                                                    options={"timeout": TOKENIZE_TIMEOUT})
                except openai.APIStatusError as exc:
                    if exc.status_code >= 500:
                        continue
                    break
                except openai.APIError:
                    continue
                except ValueError:  # a body that is not JSON
                    break
                try:
                    return int(data["count"]) if "count" in data else len(data["tokens"])
                except (ValueError, KeyError, TypeError):
                    break
        return None


def _smaller(a: int | None, b: int | None) -> int | None:
    return min(a, b) if a and b else (a or b or None)


def _run_sync(coro):
    return run_sync(coro)


def _check_url(url: str) -> None:
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
        parts.port  # noqa: B018 -- raises ValueError when out of range
    except ValueError:
        ok = False
    if not ok:
        raise UserError(f"bad base URL {url!r}: use http(s)://HOST[:PORT]/v1")


def _transport_error(exc: BaseException) -> str:
    """A one-line account of a connection-level failure, naming its cause (the openai client's
    own message is just "Connection error.")."""
    causes = []
    e: BaseException | None = exc.__cause__ or exc.__context__
    while e is not None and len(causes) < 4:
        causes.append(e)
        e = e.__cause__ or e.__context__
    if any(isinstance(c, ConnectionRefusedError) for c in causes) or any(
            "refused" in str(c).lower() for c in causes):
        return "cannot connect (connection refused)"
    detail = next((f"{type(c).__name__}: {c}" for c in causes if str(c)), "")
    text = f"{exc.message if hasattr(exc, 'message') else exc}".rstrip(".")
    return f"{text} ({detail})"[:300] if detail else text


def _detail(response: Any) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.content[:300].decode(errors="replace")
    if isinstance(body, dict):
        inner = body.get("error")
        msg = body.get("message") or (inner.get("message") if isinstance(inner, dict) else inner)
        if msg:
            return str(msg)[:300]
    return str(body)[:300]


def _retry_after(response: Any) -> float | None:
    try:
        value = response.headers.get("retry-after")
        return float(value) if value is not None else None
    except (AttributeError, ValueError):
        return None
