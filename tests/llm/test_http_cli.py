"""The small HTTP client (chunked replies, stale keep-alive connections, timeouts) and the
`chat` / `sim-server` commands."""

import asyncio
import subprocess
import sys

import pytest

from widthbench.cli import main
from widthbench.llm.http import ConnectError, HTTPClient, ProtocolError, Timeout


async def _serve(reply: bytes, close_after: bool, delay: float = 0.0):
    async def handle(reader, writer):
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                break
            length = [int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length")]
            if length and length[0]:
                await reader.readexactly(length[0])
            await asyncio.sleep(delay)
            writer.write(reply)
            await writer.drain()
            if close_after:
                break
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/x"


def test_chunked_reply_and_server_closing_idle_connections():
    chunked = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
               b"4\r\n{\"a\"\r\n3\r\n: 1\r\n1\r\n}\r\n0\r\n\r\n")

    async def go():
        server, url = await _serve(chunked, close_after=True)
        client = HTTPClient(timeout=5)
        try:
            # the server closes every connection after replying, without saying so: the pooled
            # connection is stale on the next request and must be replaced silently
            results = [(await client.request("POST", url, {"q": i})).json() for i in range(3)]
        finally:
            await client.aclose()
            server.close()
        return results

    assert asyncio.run(go()) == [{"a": 1}] * 3


def test_truncated_body_timeout_and_refused_raise_transport_errors():
    cut = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"half"

    async def go():
        server, url = await _serve(cut, close_after=True)
        slow, slow_url = await _serve(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", False, delay=2)
        client = HTTPClient(timeout=0.3)
        errors = []
        for target in (url, slow_url, "http://127.0.0.1:9/x"):
            try:
                await client.request("GET", target)
            except (ProtocolError, Timeout, ConnectError) as exc:
                errors.append(type(exc))
        await client.aclose()
        server.close()
        slow.close()
        return errors

    assert asyncio.run(go()) == [ProtocolError, Timeout, ConnectError]


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
                              capture_output=True, text=True, timeout=60)
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
