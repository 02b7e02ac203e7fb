"""The hooks one by one: engine and LLM implementations, novelty judges, parsers."""

from __future__ import annotations

import asyncio

import pytest

from widthbench.core.errors import ParseError
from widthbench.planners import strips
from widthbench.searches.broker import LLM, Broker
from widthbench.searches.config import SearchConfig
from widthbench.searches.hooks import (EngineMapper, EngineProposer, LLMNovelty, LLMProposer,
                                              OracleNovelty)
from widthbench.searches.replies import parse_score, parse_scores, split_direct
from widthbench.searches.solve_run import read_items, solve


def _run(coro):
    return asyncio.run(coro)


def test_engine_proposer_ranks_optimal_actions_first(bw_problems):
    p = bw_problems[0]
    ranked = p.engine_ranked(p.initial)
    best = {str(a) for a in p.truth.optimal_next_actions(p.initial)}
    assert ranked and ranked[0][0] in best
    props = _run(EngineProposer(p, direct=True).propose(p.initial, 2))
    assert [x.action for x in props] == [a for a, _ in ranked[:2]] and props[0].state == ranked[0][1]
    # A rewind (CaT round 1) moves on to the next actions.
    again = _run(EngineProposer(p, direct=False).propose(p.initial, 1, round=1))
    assert again[0].action == ranked[1 % len(ranked)][0] and again[0].state is None


def test_engine_mapper_marks_inapplicable_actions_dead(bw_problems):
    p = bw_problems[0]
    good = p.engine_ranked(p.initial)[0][0]
    assert _run(EngineMapper(p).successor(p.initial, good)).state is not None
    bad = next(str(a) for a in p.task.actions if not strips.is_applicable(p.initial, a))
    out = _run(EngineMapper(p).successor(p.initial, bad))
    assert out.state is None and "not applicable" in out.error
    assert _run(EngineMapper(p).successor(p.initial, "(fly a b)")).state is None


def test_oracle_novelty_prunes_duplicates_and_states_above_the_width(bw_problems):
    p = bw_problems[0]
    judge = OracleNovelty(p)
    judge.start(p.initial)
    seen_verdicts = []
    frontier = [p.initial]
    for _ in range(3):  # three levels of breadth-first generation
        nxt = []
        for s in frontier:
            for _, t in p.engine_ranked(s):
                v = _run(judge.judge(t, s))
                seen_verdicts.append(v)
                if v is None:
                    nxt.append(t)
        frontier = nxt
    assert "duplicate" in seen_verdicts and None in seen_verdicts
    assert _run(judge.judge(p.initial, None)) == "duplicate"
    assert judge.width == p.width() >= 1


def _llm(model, **kw):
    return LLM(Broker(model), seed=0, thinking=False, **kw)


def test_llm_novelty_summarises_long_lists_and_counts_the_calls(bw_problems, model_factory):
    p = bw_problems[0]
    model = model_factory()

    async def go():
        llm = _llm(model)
        judge = LLMNovelty(p, llm, max_chars=1000)
        judge.start(p.initial)
        verdicts = []
        frontier = [p.initial]
        for _ in range(3):
            nxt = []
            for s in frontier:
                for _, t in p.engine_ranked(s):
                    v = await judge.judge(t, s)
                    verdicts.append(v)
                    if v is None:
                        nxt.append(t)
            frontier = nxt
        await llm.broker.close()
        return llm, judge, verdicts

    llm, judge, verdicts = _run(go())
    per = llm.log.tokens()["by_purpose"]
    assert per["novelty-summary"]["calls"] == len(judge.summaries) > 0
    assert per["novelty"]["calls"] == len(verdicts)
    assert "duplicate" in verdicts  # the oracle model recognises repeats of recent states


def test_unreadable_llm_answers_become_dead_nodes(bw_problems, model_factory, tmp_path):
    s = solve(SearchConfig(method="tot-bfs", mapping="esa", seed=1), bw_problems[:2],
              model_factory("sim:gibberish"), tmp_path / "run", progress=False)
    items = read_items(tmp_path / "run")
    assert s["solved"] == 0 and all(it["dead_nodes"] > 0 for it in items)
    assert all(it["unreadable"].get("next-action", 0) > 0 for it in items)


def test_llm_proposer_reads_direct_answers(bw_problems, model_factory):
    p = bw_problems[1]

    async def go():
        llm = _llm(model_factory())
        out = await LLMProposer(p, llm, direct=True).propose(p.initial, 2)
        await llm.broker.close()
        return out

    props = _run(go())
    best = {str(a) for a in p.truth.optimal_next_actions(p.initial)}
    for x in props:
        assert x.error is None and x.action in best
        assert x.state == p.engine_successor(p.initial, x.action)


def test_score_parsers():
    assert parse_score("Answer: 7") == 7 and parse_score("Answer:\n**7/10**") == 7
    assert parse_score("Answer: 7.5 out of 10") == 7.5
    for bad in ("Answer: 7 or 8", "Answer: eleven", "Answer: 11", "Answer:"):
        with pytest.raises(ParseError):
            parse_score(bad)
    assert parse_scores("Answer:\n1: 10\n2. 3\n- 3: 0", 3) == [10, 3, 0]
    for bad in ("Answer:\n1: 10", "Answer:\n1: 10\n1: 3", "Answer:\n1: 10\n2: 3\n3: 4\n4: 1", "Answer:\nfoo"):
        with pytest.raises(ParseError):
            parse_scores(bad, 3)
    assert split_direct("Answer:\nAction: pick up the red block\nResulting state:\nx\ny") == (
        "pick up the red block", "x\ny")
    with pytest.raises(ParseError):
        split_direct("Answer:\npick up the red block")
