"""The openai-client transport against scripted raw HTTP servers (chunked replies, connections the
server closes, every retry class: statuses, broken bodies, timeouts, refusals, the key header)
and the `chat` / `sim-server` commands."""

import asyncio
import json
import subprocess
import sys
import threading

import pytest

from widthbench.cli import main
from widthbench.llm import Request, open_model

COMPLETION = json.dumps({"choices": [{"message": {"role": "assistant", "content": "ok"},
                                      "finish_reason": "stop"}],
                         "usage": {"prompt_tokens": 3, "completion_tokens": 1}}).encode()


def _reply(status=200, body=COMPLETION, headers=(), length=None):
    head = [f"HTTP/1.1 {status} X", "Content-Type: application/json",
            f"Content-Length: {len(body) if length is None else length}", *headers]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def _chunked(body=COMPLETION):
    chunks = [body[i:i + 7] for i in range(0, len(body), 7)]
    data = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"
    return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + data


class Scripted:
    """A loopback HTTP/1.1 server in a thread. `script(n, head)` gives the n-th chat request's
    action: bytes to send (then keep the connection), ("close", bytes) to send and close, or
    ("hang", seconds). /v1/models answers the model list. Records request heads."""

    def __init__(self, script):
        self.script, self.heads, self.chat, self.connections = script, [], 0, 0
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()

        def run():
            asyncio.set_event_loop(self.loop)
            self.server = self.loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
            ready.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        ready.wait()
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/v1"

    async def _handle(self, reader, writer):
        self.connections += 1
        try:
            while True:
                head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
                length = [int(line.split(":")[1]) for line in head.split("\r\n")
                          if line.lower().startswith("content-length")]
                if length and length[0]:
                    await reader.readexactly(length[0])
                if head.startswith("GET /v1/models"):
                    writer.write(_reply(body=json.dumps({"data": [{"id": "m"}]}).encode()))
                    continue
                self.heads.append(head)
                action = self.script(self.chat, head)
                self.chat += 1
                if isinstance(action, tuple) and action[0] == "hang":
                    await asyncio.sleep(action[1])
                    break
                if isinstance(action, tuple):
                    writer.write(action[1])
                    await writer.drain()
                    break
                writer.write(action)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()

    def stop(self):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def scripted():
    servers = []

    def start(script):
        servers.append(Scripted(script))
        return servers[-1]

    yield start
    for s in servers:
        s.stop()


def _model(url, **kw):
    kw = {"use_cache": False, "backoff": 0.01, "max_backoff": 0.05, "max_retries": 3, **kw}
    return open_model("openai:m", base_urls=url, **kw)


def test_chunked_replies_and_connections_the_server_closes_silently(scripted):
    # every reply is chunked and the server then closes the connection without saying so: the
    # pooled connection is dead on the next request and must be replaced. Usually the client sees
    # the close first (no failed attempt); on a loaded machine it can race the server's FIN, and
    # then the retry loop must absorb it as one extra attempt, never as a failed request.
    server = scripted(lambda n, head: ("close", _chunked()))
    model = _model(server.url)
    replies = [model.complete(Request.user(f"q{i}")) for i in range(3)]
    assert [r.text for r in replies] == ["ok"] * 3 and all(r.attempts <= 2 for r in replies)
    one_slot = _model(server.url, concurrency=1)  # one session, each request after a close
    out = one_slot.run([Request.user(f"p{i}") for i in range(6)], progress=False)
    # Each retry can race a FIN again: seen as 3 attempts in 3 of 11 runs on this machine. What must
    # hold is that no request fails and none needs the whole retry budget (max_retries=3).
    assert all(r.ok and r.text == "ok" and r.attempts <= 3 for r in out), [(r.text, r.attempts, r.error) for r in out]
    assert server.connections == 9  # one fresh connection per answered request, never a reuse


@pytest.mark.parametrize("status", [408, 409, 425, 429, 500, 502, 503, 504, 507])
def test_transient_statuses_are_retried(scripted, status):
    server = scripted(lambda n, head: _reply(status, b'{"error": {"message": "busy"}}',
                                             ["Retry-After: 0"]) if n == 0 else _reply())
    reply = _model(server.url).complete(Request.user("x"))
    assert reply.ok and reply.text == "ok" and reply.attempts == 2


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_other_client_errors_are_final_at_once(scripted, status):
    server = scripted(lambda n, head: _reply(status, b'{"error": {"message": "no such thing"}}'))
    reply = _model(server.url).complete(Request.user("x"))
    assert reply.attempts == 1 and f"HTTP {status}" in reply.error and "no such thing" in reply.error


@pytest.mark.parametrize("broken", [
    _reply(body=b"<html>proxy error</html>"),                        # 200, not JSON
    _reply(body=b'{"object": "list"}'),                              # JSON, not a completion
    ("close", _reply(length=len(COMPLETION) + 50)),                  # body cut off
    ("close", b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n"),         # head cut off
    ("close", b"garbage\r\n\r\n"),                                   # not HTTP
])
def test_broken_or_truncated_replies_are_retried(scripted, broken):
    server = scripted(lambda n, head: broken if n == 0 else _reply())
    reply = _model(server.url).complete(Request.user("x"))
    assert reply.ok and reply.attempts == 2


def test_timeout_is_retried_and_reported(scripted):
    server = scripted(lambda n, head: ("hang", 3.0) if n == 0 else _reply())
    assert _model(server.url, timeout=0.3).complete(Request.user("x")).attempts == 2
    always = scripted(lambda n, head: ("hang", 3.0))
    reply = _model(always.url, timeout=0.3, max_retries=1).complete(Request.user("x"))
    assert "gave up after 2 attempts" in reply.error and "timeout after 0.3 s" in reply.error


def test_refused_connection_without_preflight_is_retried_then_reported():
    reply = _model("http://127.0.0.1:9/v1", preflight=False, max_retries=2).complete(Request.user("x"))
    assert reply.attempts == 3 and "connection refused" in reply.error and "127.0.0.1:9" in reply.error


def test_key_sent_as_bearer_dummy_for_local_servers(scripted, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server = scripted(lambda n, head: _reply())
    assert _model(server.url).complete(Request.user("a")).ok
    assert _model(server.url, api_key="secret").complete(Request.user("b")).ok
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    assert _model(server.url).complete(Request.user("c")).ok
    keys = [line.split(" ", 2)[2] for head in server.heads for line in head.split("\r\n")
            if line.lower().startswith("authorization:")]
    assert keys == ["EMPTY", "secret", "from-env"]
    assert all(head.startswith("POST /v1/chat/completions ") for head in server.heads)


def test_one_client_per_server_reused_across_a_run(scripted):
    server = scripted(lambda n, head: _reply())
    model = _model(server.url, concurrency=4)
    assert all(r.ok for r in model.run([Request.user(f"q{i}") for i in range(40)], progress=False))
    # 40 requests over keep-alive connections: at most one connection per slot was opened
    assert server.chat == 40 and server.connections <= 4


def test_chat_command_prints_reply_reasoning_and_usage(capsys, cache_dir):
    assert main(["chat", "--model", "sim:echo", "--thinking", "on", "hello blocks"]) == 0
    out = capsys.readouterr().out
    assert "[reasoning]" in out and "hello blocks" in out
    usage = [line for line in out.splitlines() if line.startswith("[usage]")][0]
    assert "thinking=" in usage and "simulated" in usage and "cached=no" in usage
    assert main(["chat", "--model", "sim:echo", "--thinking", "on", "hello blocks"]) == 0
    assert "cached=yes" in capsys.readouterr().out


def test_chat_against_sim_server_subprocess(cache_dir):
    server = subprocess.Popen([sys.executable, "-m", "widthbench", "sim-server", "--model", "sim:const:yes",
                               "--port", "0", "--shape", "llamacpp"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        chat = subprocess.run([sys.executable, "-m", "widthbench", "chat", "--model", "openai:sim:const:yes",
                               "--base-url", url, "--thinking", "off", "--no-cache", "anything?"],
                              capture_output=True, text=True, timeout=600)
        assert chat.returncode == 0, chat.stderr
        assert chat.stdout.splitlines()[0] == "yes" and "simulated" in chat.stdout
    finally:
        server.terminate()
        server.wait(10)


@pytest.mark.parametrize("argv,message", [
    (["sim-server", "--model", "sim:nope", "--port", "0"], "unknown simulated model"),
    (["sim-server", "--model", "sim:echo", "--fail-rate", "2"], "--fail-rate"),
    (["sim-server", "--model", "sim:echo", "--faults", "500,oops", "--port", "0"], "unknown fault"),
    (["chat", "--model", "gpt4", "hi"], "unknown model spec"),
])
def test_user_mistakes_are_one_line_exit_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_progress_bar_shows_requests_tokens_and_errors(capsys):
    from widthbench.llm import Request, open_model

    model = open_model("sim:echo", use_cache=False)
    model.run([Request.user(f"q{i}") for i in range(5)], progress=True)
    err = capsys.readouterr().err
    assert "5/5" in err and "tokens=" in err and "errors=0" in err
