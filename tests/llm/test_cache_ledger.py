"""The reply cache (resume, errors not cached, concurrent writers) and the token ledger."""

import os
import json
import multiprocessing
import sqlite3

from widthbench.llm import Ledger, Reply, Request, open_model
from widthbench.llm.cache import FILENAME, ReplyCache, default_cache_dir


def test_cache_dir_from_env_and_default(monkeypatch, tmp_path):
    monkeypatch.setenv("WIDTHBENCH_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"
    monkeypatch.delenv("WIDTHBENCH_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "widthbench" / "llm"


def test_rerun_is_served_from_cache(cache_dir):
    requests = [Request.user(f"q{i}", purpose="successor") for i in range(5)]
    first = open_model("sim:gibberish")
    a = first.run(requests, progress=False)
    assert first.counters["sent"] == 5 and not any(r.cached for r in a)
    second = open_model("sim:gibberish")
    b = second.run(requests, progress=False)
    assert second.counters["sent"] == 0 and all(r.cached for r in b)
    assert [r.text for r in a] == [r.text for r in b]
    assert (cache_dir / FILENAME).exists()


def test_use_cache_false_writes_nothing(cache_dir):
    model = open_model("sim:echo", use_cache=False)
    model.run([Request.user("q")], progress=False)
    assert not cache_dir.exists()


def test_identical_requests_in_a_run_are_sent_once(cache_dir):
    model = open_model("sim:echo")
    out = model.run([Request.user("same", purpose="a"), Request.user("same", purpose="b")], progress=False)
    assert model.counters["sent"] == 1 and out[0].text == out[1].text == "same"
    assert model.ledger.to_dict()["total"]["calls"] == 2


def test_errors_are_not_cached(tmp_path):
    cache = ReplyCache(tmp_path)
    cache.put("k1", "m", "{}", Reply(text="", error="boom"))
    cache.put("k2", "m", "{}", Reply(text="ok"))
    assert cache.get("k1") is None and cache.get("k2").text == "ok" and len(cache) == 1


def _writer(path, worker, n):
    cache = ReplyCache(path)
    for i in range(n):
        cache.put(f"{worker}-{i}", "m", "{}", Reply(text=f"{worker}:{i}"))
    cache.close()


def test_concurrent_writer_processes_lose_nothing(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(tmp_path, w, 150)) for w in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    db = sqlite3.connect(tmp_path / FILENAME)
    assert db.execute("SELECT COUNT(*) FROM replies").fetchone()[0] == 450


def test_ledger_totals_per_purpose_mode_and_run(tmp_path):
    ledger = Ledger(run="r1")
    ledger.add(Reply(text="a", prompt_tokens=10, completion_tokens=30, thinking_tokens=20, model="m"),
               "verify", "thinking")
    ledger.add(Reply(text="b", prompt_tokens=5, completion_tokens=3, thinking_tokens=0, cached=True,
                     model="m"), "verify", "normal")
    ledger.add(Reply(text="c", prompt_tokens=1, completion_tokens=9, thinking_tokens=None,
                     finish_reason="length", model="m"), "novelty", "thinking")
    ledger.add(Reply(text="", error="x", model="m"), "novelty", "normal")
    d = ledger.to_dict()
    assert d["total"]["prompt"] == 16 and d["total"]["completion"] == 42 and d["total"]["thinking"] == 20
    assert d["total"]["thinking_uncounted"] == 1 and d["total"]["errors"] == 1 and d["total"]["truncated"] == 1
    assert d["total"]["cached"] == 1 and d["total"]["sent"] == 2 and d["total"]["calls"] == 4
    assert d["by_purpose"]["verify"]["prompt"] == 15 and d["by_mode"]["thinking"]["thinking"] == 20
    assert d["by_purpose_mode"]["novelty/thinking"]["completion"] == 9
    assert d["simulated"] is False and d["run"] == "r1"
    path = ledger.write(tmp_path / "out" / "tokens.json")
    assert json.loads(path.read_text()) == d
    merged = Ledger()
    merged.merge(ledger)
    merged.merge(ledger)
    assert merged.to_dict()["total"]["prompt"] == 32


def test_model_ledger_marks_simulated_and_counts_by_purpose():
    model = open_model("sim:const:yes", use_cache=False)
    model.run([Request.user("a", purpose="verify", thinking=True), Request.user("b", purpose="novelty")], progress=False)
    d = model.ledger.to_dict()
    assert d["simulated"] and d["models"] == {"sim:const:yes": True}
    assert set(d["by_purpose"]) == {"verify", "novelty"} and set(d["by_mode"]) == {"thinking", "normal"}
    assert d["by_mode"]["thinking"]["thinking"] > 0 and d["by_mode"]["normal"]["thinking"] == 0


def test_the_tests_never_use_the_users_reply_cache():
    # tests/conftest.py gives the session a reply cache of its own
    from pathlib import Path

    home_cache = Path(os.path.expanduser("~")) / ".cache" / "widthbench" / "llm"
    assert default_cache_dir() != home_cache and not default_cache_dir().is_relative_to(home_cache)
