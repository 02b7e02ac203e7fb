"""Faults: injected failures, retry budget, kill -9 and resume, a dead server from the CLI."""

import importlib.util
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from widthbench.llm import Request, open_model
from widthbench.llm.cache import FILENAME


HERE = Path(__file__).parent


def worker_requests(n):
    """The requests resume_worker.py sends (loaded by path: tests/ is not a package)."""
    spec = importlib.util.spec_from_file_location("resume_worker", HERE / "resume_worker.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.requests(n)
FIELDS = ("text", "reasoning", "prompt_tokens", "completion_tokens", "thinking_tokens", "finish_reason")


def _essence(replies):
    return [tuple(getattr(r, f) if not isinstance(r, dict) else r[f] for f in FIELDS) for r in replies]


def test_thirty_percent_failures_every_request_answered_exactly_once(sim_server, cache_dir):
    n = 120
    server = sim_server(model="sim:echo", latency=0.02, fail_rate=0.3, hang=3.0,
                        faults=("500", "timeout", "truncated", "429"), seed=3)
    requests = [Request.user(f"q{i} (on a b)", thinking=i % 2 == 0, seed=i) for i in range(n)]
    model = open_model("openai:sim:echo", base_urls=server.base_url, cache_dir=cache_dir,
                       concurrency=16, timeout=1.0, max_retries=12, backoff=0.02, max_backoff=0.2)
    replies = model.run(requests, progress=False)
    s = server.stats()
    assert all(r.ok for r in replies), [r.error for r in replies if not r.ok][:3]
    assert s["answered"] == n and s["distinct_answered"] == n and s["max_answers_per_request"] == 1
    assert sum(s["faults"].values()) >= 0.2 * n and set(s["faults"]) == {"500", "timeout", "truncated", "429"}
    assert model.counters["attempts"] == n + sum(s["faults"].values())
    clean = open_model("sim:echo", use_cache=False).run(requests, progress=False)
    assert _essence(replies) == _essence(clean)
    assert sum(r.attempts for r in replies) == model.counters["attempts"]


def test_exhausted_retry_budget_gives_recorded_error_not_cached(sim_server, cache_dir, capsys):
    server = sim_server(model="sim:echo", fail_rate=1.0, faults=("500",))
    model = open_model("openai:sim:echo", base_urls=server.base_url, cache_dir=cache_dir,
                       max_retries=2, backoff=0.01)
    replies = model.run([Request.user("a"), Request.user("b")], progress=False)
    assert all(r.error and "gave up after 3 attempts" in r.error and "HTTP 500" in r.error for r in replies)
    assert model.ledger.to_dict()["total"]["errors"] == 2
    assert capsys.readouterr().err.count("request failed") == 2
    server.server.config.fail_rate = 0.0  # the server recovers: a rerun retries the failures
    again = open_model("openai:sim:echo", base_urls=server.base_url, cache_dir=cache_dir)
    assert [r.text for r in again.run([Request.user("a"), Request.user("b")], progress=False)] == ["a", "b"]
    assert again.counters["sent"] == 2


def _count_cached(cache_dir: Path) -> int:
    path = cache_dir / FILENAME
    if not path.exists():
        return 0
    db = sqlite3.connect(path, timeout=60)
    try:
        return db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]
    except sqlite3.OperationalError:  # the worker is still creating its table
        return 0
    finally:
        db.close()


def test_kill_9_mid_run_then_resume_loses_and_duplicates_nothing(sim_server, tmp_path):
    """The kill comes when the cache itself holds a third of the replies (what the test watches is
    what it asserts, not the server's count: a loaded client may lag behind the server); each reply
    takes 0.2 s, so the 53 still to come need over 2 s, however slowly the test polls."""
    n = 80
    server = sim_server(model="sim:echo", latency=0.2)
    cache_dir, out = tmp_path / "cache", tmp_path / "out.json"
    cmd = [sys.executable, str(HERE / "resume_worker.py"), server.base_url, str(cache_dir), str(n), str(out)]
    env = {**os.environ, "PYTHONPATH": str(HERE.parent.parent)}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300  # generous: a loaded machine starts Python slowly
    while _count_cached(cache_dir) < n // 3:
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read().decode()
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not out.exists()
    kept = _count_cached(cache_dir)  # committed replies outlive the kill
    assert n // 3 <= kept < n
    while server.stats()["in_flight"]:  # the killed client's requests end before the count restarts
        assert time.monotonic() < deadline
        time.sleep(0.01)
    server.reset_stats()

    resumed = subprocess.run(cmd, env=env, capture_output=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr.decode()
    s = server.stats(keys=True)
    assert s["answered"] == n - kept and s["max_answers_per_request"] == 1  # each missing one, once
    result = json.loads(out.read_text())
    assert result["counters"]["sent"] == n - kept and result["counters"]["cached"] == kept
    assert _count_cached(cache_dir) == n
    clean = open_model("sim:echo", use_cache=False).run(worker_requests(n), progress=False)
    assert _essence(result["replies"]) == _essence(clean)


def test_server_down_cli_prints_one_clear_line_and_fails():
    proc = subprocess.run([sys.executable, "-m", "widthbench", "chat", "--model", "openai:qwen",
                           "--base-url", "http://127.0.0.1:9/v1", "--no-cache", "hello"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot reach the model server" in lines[0] and "127.0.0.1:9" in lines[0]
