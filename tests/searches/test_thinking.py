"""Solve checks the thinking of its calls: every reply that holds thinking is verified from the state
its question was about (docs/traces.md), kept in items.jsonl (``reasoning``, ``trace``) and summed up
per purpose in summary.json (``traces``)."""

from __future__ import annotations

import asyncio
import dataclasses
import json

from widthbench.searches.broker import LLM, Broker
from widthbench.searches.config import SearchConfig
from widthbench.searches.hooks import LLMProposer
from widthbench.searches.solve_run import _thinking_checked, solve
from widthbench.subtasks import api


class RestatesTheInitialState:
    """The oracle's answers, with thinking that restates the problem's initial state, whatever the
    question: right at the initial state, wrong at any other (a Blocksworld state differs from
    another in some fact the first one holds)."""

    def __init__(self, inner, text: str):
        self.inner, self.text = inner, text

    def __getattr__(self, name):
        return getattr(self.inner, name)

    async def arun(self, requests, **kw):
        replies = await self.inner.arun(requests, **kw)
        return [dataclasses.replace(r, reasoning=self.text) for r in replies]


def _thinking(problem) -> str:
    return api.renderer(problem.task, "nl").state(problem.initial)


def test_each_call_is_checked_from_the_state_it_asked_about(bw_problems, model_factory):
    p = bw_problems[0]
    model = RestatesTheInitialState(model_factory(), _thinking(p))
    child = p.engine_ranked(p.initial)[0][1]

    async def go():
        llm = LLM(Broker(model), seed=0, thinking=True)
        proposer = LLMProposer(p, llm, direct=False)
        await proposer.propose(p.initial, 1)
        await proposer.propose(child, 1)
        await llm.broker.close()
        return llm

    llm = asyncio.run(go())
    assert [(c, purpose, s) for c, purpose, s, *_ in llm.log.thinking] == [(0, "next-action", p.initial),
                                                                           (1, "next-action", child)]
    out = _thinking_checked(p, llm.log.thinking)
    root, after = out["trace"]
    assert root["first_error"] is None and root["checked"] > 0
    assert after["first_error"]["kind"] == "initial-state" and after["call"] == 1 and after["purpose"] == "next-action"
    assert [r["text"] for r in out["reasoning"]] == [_thinking(p)] * 2


def test_solve_records_and_sums_up_the_thinking(bw_problems, model_factory, tmp_path):
    p = bw_problems[0]
    model = RestatesTheInitialState(model_factory(), _thinking(p))
    config = SearchConfig(method="tot-bfs", mapping="esa", actions="llm", successors="engine", seed=1, thinking=True)
    s = solve(config, [p], model, tmp_path / "run", progress=False)
    item = json.loads((tmp_path / "run" / "items.jsonl").read_text().splitlines()[-1])
    assert len(item["trace"]) == len(item["reasoning"]) == item["llm_calls"] > 1
    assert [t["call"] for t in item["trace"]] == [r["call"] for r in item["reasoning"]] == list(range(item["llm_calls"]))
    assert item["trace"][0]["first_error"] is None  # the first question is about the initial state
    with_error = sum(t["first_error"] is not None for t in item["trace"])
    assert 0 < with_error < len(item["trace"]) or p.optimal_length <= 1
    cell = s["traces"]["cells"]["next-action | thinking"]
    assert cell["traces"] == len(item["trace"]) and cell["with_error"] == with_error


def test_solve_without_thinking_has_no_trace(bw_problems, model_factory, tmp_path):
    s = solve(SearchConfig(method="tot-bfs", mapping="esa", seed=1), bw_problems[:1], model_factory(),
              tmp_path / "run", progress=False)
    item = json.loads((tmp_path / "run" / "items.jsonl").read_text().splitlines()[-1])
    assert "trace" not in item and s["traces"] is None


def test_traces_command_lists_a_solve_runs_checked_thinking(bw_problems, model_factory, tmp_path, capsys):
    from widthbench.cli import main

    p = bw_problems[0]
    config = SearchConfig(method="tot-bfs", mapping="esa", actions="llm", successors="engine", seed=1, thinking=True)
    solve(config, [p], RestatesTheInitialState(model_factory(), _thinking(p)), tmp_path / "run", progress=False)
    item = json.loads((tmp_path / "run" / "items.jsonl").read_text().splitlines()[-1])
    assert main(["traces", str(tmp_path / "run"), "--out", str(tmp_path / "o")]) == 0
    printed = capsys.readouterr().out
    assert f"next-action thinking {p.id}#call1 [simulated]" in printed
    recs = [json.loads(x) for x in (tmp_path / "o" / "traces.jsonl").read_text().splitlines()]
    assert [r["trace"] for r in recs] == item["trace"]
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["run"]["with_error"] == sum(t["first_error"] is not None for t in item["trace"])


class ReasonsBeforeAnswering(RestatesTheInitialState):
    """Thinking off: the initial state restated before the oracle's answer (a chain of thought)."""

    async def arun(self, requests, **kw):
        replies = await self.inner.arun(requests, **kw)
        return [dataclasses.replace(r, text=self.text + "\n" + r.text) for r in replies]


def test_solve_checks_a_chain_of_thought_answer(bw_problems, model_factory, tmp_path):
    p = bw_problems[0]
    config = SearchConfig(method="tot-bfs", mapping="esa", actions="llm", successors="engine", seed=1)
    s = solve(config, [p], ReasonsBeforeAnswering(model_factory(), _thinking(p)), tmp_path / "run", progress=False)
    item = json.loads((tmp_path / "run" / "items.jsonl").read_text().splitlines()[-1])
    assert item["solved"] and {r["source"] for r in item["reasoning"]} == {"answer"}
    assert item["trace"][0]["first_error"] is None and item["trace"][0]["checked"] > 0
    assert s["traces"]["cells"]["next-action | normal"]["traces"] == len(item["trace"])
    from widthbench.cli import main

    assert main(["traces", str(tmp_path / "run"), "--out", str(tmp_path / "o")]) == 0
    recs = [json.loads(x) for x in (tmp_path / "o" / "traces.jsonl").read_text().splitlines()]
    assert recs and {r["mode"] for r in recs} == {"normal"}  # thinking off: the run's mode, as in summary.json
