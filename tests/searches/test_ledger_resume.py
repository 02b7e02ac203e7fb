"""Token accounting, determinism and resume (items.jsonl + the reply cache)."""

from __future__ import annotations

import json

import pytest

from widthbench.core.errors import UserError
from widthbench.searches.config import SearchConfig
from widthbench.searches.solve_run import read_items, solve

NOVELTY_CONFIG = SearchConfig(method="tot-bfs", mapping="esa", novelty="llm", verify="llm", seed=7)


def _strip(item: dict) -> dict:
    # latencies differ; each call names the run that made its reply
    return {k: v for k, v in item.items() if k not in ("wall_time", "calls")}


def test_ledger_totals_equal_the_sum_over_calls_novelty_included(bw_problems, model_factory, tmp_path):
    model = model_factory()
    solve(NOVELTY_CONFIG, bw_problems, model, tmp_path / "run", progress=False)
    items = read_items(tmp_path / "run")
    led = model.ledger.to_dict()["total"]
    assert sum(it["llm_calls"] for it in items) == led["calls"]
    assert sum(it["tokens"] for it in items) == led["prompt"] + led["completion"]
    for it in items:
        per = it["tokens_by_purpose"]
        assert "novelty" in per and per["novelty"]["calls"] > 0
        assert sum(p["tokens"] for p in per.values()) == it["tokens"]
        assert sum(p["calls"] for p in per.values()) == it["llm_calls"]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    tokens = json.loads((tmp_path / "run" / "tokens.json").read_text())
    assert summary["kind"] == "solve" and summary["simulated"] is True and "simulated" in summary["label"]
    assert summary["total_tokens"] == tokens["total"]["prompt"] + tokens["total"]["completion"]
    assert tokens["by_purpose"]["novelty"]["calls"] == summary["tokens_by_purpose"]["novelty"]["calls"]
    for key in ("n", "solved", "mean_tokens", "mean_states", "tokens_by_purpose"):
        assert key in summary


def test_same_seed_same_items_other_seed_other_samples(bw_problems, model_factory, tmp_path):
    for method in ("mcts", "cat"):
        cfg = SearchConfig(method=method, mapping="direct", seed=4)
        a = solve(cfg, bw_problems, model_factory("sim:noisy:0.3", "c1"), tmp_path / f"{method}-a", progress=False)
        b = solve(cfg, bw_problems, model_factory("sim:noisy:0.3", "c2"), tmp_path / f"{method}-b", progress=False)
        ia = [_strip(i) for i in read_items(tmp_path / f"{method}-a")]
        ib = [_strip(i) for i in read_items(tmp_path / f"{method}-b")]
        assert sorted(ia, key=lambda i: i["id"]) == sorted(ib, key=lambda i: i["id"])
        assert a["mean_tokens"] == b["mean_tokens"]


class Killed(Exception):
    pass


class _Dies:
    """A model that fails (like a killed process) once it has answered ``limit`` requests."""

    def __init__(self, model, limit: int):
        self.model, self.limit, self.answered = model, limit, 0

    def __getattr__(self, name):
        return getattr(self.model, name)

    async def arun(self, requests, progress=True, ledger=None, tag=None):
        if self.answered + len(requests) > self.limit:
            raise Killed("killed")
        self.answered += len(requests)
        return await self.model.arun(requests, progress, ledger, tag)


def test_resume_after_kill_loses_nothing(bw_problems, model_factory, tmp_path):
    cfg = SearchConfig(method="cat", mapping="esa", novelty="llm", seed=9)
    clean = solve(cfg, bw_problems, model_factory("sim:oracle", "clean"), tmp_path / "clean", progress=False)
    first = model_factory("sim:oracle", "shared")
    with pytest.raises(Killed):
        solve(cfg, bw_problems, _Dies(first, limit=clean["total_calls"] // 2), tmp_path / "run", progress=False)
    done = read_items(tmp_path / "run")
    assert 0 < len(done) < len(bw_problems)
    # A kill in the middle of a write leaves half a line: it is dropped and that instance redone.
    with (tmp_path / "run" / "items.jsonl").open("a") as f:
        f.write('{"id": "half a line')
    again = model_factory("sim:oracle", "shared")
    resumed = solve(cfg, bw_problems, again, tmp_path / "run", progress=False)
    assert again.counters["cached"] > 0  # the calls made before the kill were not paid twice
    assert resumed["solved"] == clean["solved"] and resumed["n"] == clean["n"] == len(bw_problems)
    assert resumed["total_tokens"] == clean["total_tokens"]
    # The ledger of the resumed run is the clean run's: the replies its first invocation received came
    # back from the cache as this run's own, not as cached calls.
    ledger = lambda d: {k: v for k, v in json.loads((d / "tokens.json").read_text()).items() if k != "run"}  # noqa: E731
    assert ledger(tmp_path / "run") == ledger(tmp_path / "clean")
    ids = [it["id"] for it in read_items(tmp_path / "run")]
    assert sorted(ids) == sorted(p.id for p in bw_problems)
    rerun = model_factory("sim:oracle", "shared")
    solve(cfg, bw_problems, rerun, tmp_path / "run", progress=False)
    assert rerun.counters["requests"] == 0  # a finished run asks nothing


def test_rerun_with_another_configuration_is_refused(bw_problems, model_factory, tmp_path):
    solve(SearchConfig(method="naive"), bw_problems[:1], model_factory(), tmp_path / "run", progress=False)
    with pytest.raises(UserError, match=r"search\.thinking: false -> true"):
        solve(SearchConfig(method="naive", thinking=True), bw_problems[:1], model_factory(), tmp_path / "run",
              progress=False)


def test_thinking_tokens_are_counted(bw_problems, model_factory, tmp_path):
    s = solve(SearchConfig(method="tot-dfs", thinking=True, seed=1), bw_problems[:2], model_factory(),
              tmp_path / "run", progress=False)
    items = read_items(tmp_path / "run")
    assert all(it["tokens_detail"]["thinking"] > 0 for it in items)
    assert s["tokens_by_purpose"]["direct"]["thinking"] > 0


class _Slow:
    """A model whose every batch of requests takes 20 ms (a server's latency), counting batches."""

    def __init__(self, model):
        self.model, self.batches = model, 0

    def __getattr__(self, name):
        return getattr(self.model, name)

    async def arun(self, requests, progress=True, ledger=None, tag=None):
        import asyncio

        self.batches += 1
        await asyncio.sleep(0.02)
        return await self.model.arun(requests, progress, ledger, tag)


def test_instances_share_model_calls_in_waves(bw_problems, model_factory, tmp_path):
    slow = _Slow(model_factory())
    s = solve(SearchConfig(method="tot-dfs", mapping="esa", novelty="llm", seed=1), bw_problems, slow,
              tmp_path / "run", progress=False)
    longest = max(it["llm_calls"] for it in read_items(tmp_path / "run"))
    # Waves follow the longest instance's chain of calls, not the sum over instances.
    assert slow.batches <= longest < s["total_calls"]
    assert slow.batches < s["total_calls"] / 2
