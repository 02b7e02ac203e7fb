"""Every method end to end on Blocksworld with simulated models (the paper's four hooks)."""

from __future__ import annotations

import itertools

import pytest

from widthbench.searches.config import SearchConfig
from widthbench.searches.solve_run import read_items, solve

SEARCHES = ("tot-bfs", "tot-dfs", "mcts", "cat")


@pytest.mark.parametrize("method,mapping", [("naive", "direct")] + list(itertools.product(SEARCHES, ("direct", "esa"))))
def test_oracle_model_solves_every_instance_of_length_at_most_8(bw_problems, model_factory, tmp_path, method, mapping):
    model = model_factory()
    for novelty in (("off",) if method == "naive" else ("off", "oracle", "llm")):
        out = tmp_path / f"{method}-{mapping}-{novelty}"
        summary = solve(SearchConfig(method=method, mapping=mapping, novelty=novelty, seed=3),
                        bw_problems, model, out, progress=False)
        assert summary["solved"] == summary["n"] == len(bw_problems), (method, mapping, novelty)
        for item in read_items(out):
            assert item["plan_valid"] and item["simulated"]
            assert item["plan_length"] <= 8


def test_oracle_novelty_generates_fewer_states_than_no_pruning(bw_problems, model_factory, tmp_path):
    model = model_factory()
    states = {}
    for novelty in ("off", "oracle"):
        # Engine actions best-first with b = 2: the second proposal is often off the shortest paths,
        # so the unpruned tree grows and novelty has something to prune.
        cfg = SearchConfig(method="tot-bfs", mapping="esa", actions="engine", successors="engine",
                           branch_factor=2, novelty=novelty, seed=3)
        s = solve(cfg, bw_problems, model, tmp_path / novelty, progress=False)
        assert s["solved"] == s["n"]
        states[novelty] = s["states_per_instance"]
    assert sum(states["oracle"]) < sum(states["off"])
    assert all(o <= f for o, f in zip(states["oracle"], states["off"]))
    # The same holds with the simulated LLM proposing and mapping.
    llm_states = {}
    for novelty in ("off", "oracle"):
        s = solve(SearchConfig(method="tot-bfs", mapping="direct", novelty=novelty, seed=3),
                  bw_problems, model, tmp_path / f"llm-{novelty}", progress=False)
        llm_states[novelty] = s["mean_states"]
    assert llm_states["oracle"] < llm_states["off"]


@pytest.mark.parametrize("actions,successors", [("llm", "engine"), ("engine", "llm")])
def test_any_mix_of_engine_and_llm_hooks(bw_problems, model_factory, tmp_path, actions, successors):
    cfg = SearchConfig(method="tot-dfs", mapping="esa", actions=actions, successors=successors,
                       verify="llm", seed=1)
    s = solve(cfg, bw_problems, model_factory(), tmp_path / "run", progress=False)
    assert s["solved"] == s["n"]
    purposes = set(s["tokens_by_purpose"])
    assert "goal-check" in purposes
    assert ("next-action" in purposes) == (actions == "llm")
    assert ("successor" in purposes) == (successors == "llm")


def test_noisy_model_lowers_success_without_crashing_and_counts_dead_nodes(bw_problems, model_factory, tmp_path):
    model = model_factory("sim:noisy:0.3")
    solved, dead = 0, 0
    for method in SEARCHES:
        for mapping, novelty in (("direct", "llm"), ("esa", "off")):
            s = solve(SearchConfig(method=method, mapping=mapping, novelty=novelty, verify="llm", seed=5),
                      bw_problems, model, tmp_path / f"{method}-{mapping}", progress=False)
            solved += s["solved"]
            dead += s["mean_dead"] * s["n"]
            for item in read_items(tmp_path / f"{method}-{mapping}"):
                if item["solved"]:
                    assert item["plan_valid"]
                for node in item["tree"]:
                    if node["status"] == "dead":
                        assert node["state"] is None and node.get("note")
    assert solved < 8 * len(bw_problems)
    assert dead > 0


def test_llm_verifier_false_goals_are_not_counted_as_solved(bw_problems, model_factory, tmp_path):
    s = solve(SearchConfig(method="tot-dfs", mapping="direct", verify="llm", seed=2), bw_problems,
              model_factory("sim:const:Answer: yes"), tmp_path / "run", progress=False)
    # The constant model says "yes" to the goal check of the initial state: a claimed goal, an
    # empty plan, rejected by the engine.
    assert s["solved"] == 0 and s["false_goals"] == s["n"] == s["goal_claimed"]
    items = read_items(tmp_path / "run")
    assert all(not it["solved"] and it["plan"] == [] and not it["plan_valid"] for it in items)
    # Without the LLM verifier the same model writes no readable state: every child is a dead node.
    s = solve(SearchConfig(method="tot-dfs", mapping="direct", seed=2), bw_problems,
              model_factory("sim:const:Answer: yes"), tmp_path / "run2", progress=False)
    assert s["solved"] == 0 and s["mean_dead"] >= 1 and s["mean_states"] == 0


def test_every_instance_records_progress_and_the_summary_its_mean(bw_problems, model_factory, tmp_path):
    """Partial credit (planners.progress) on every record of a plan-producing method: sim:oracle's
    naive plans are valid (1); sim:noisy's are mostly not, and a failed plan keeps the credit of
    its applicable prefix."""
    s = solve(SearchConfig(method="naive", seed=3), bw_problems, model_factory(), tmp_path / "oracle", progress=False)
    assert [it["progress"] for it in read_items(tmp_path / "oracle")] == [1.0] * len(bw_problems)
    assert s["mean_progress"] == 1.0 and s["progress_n"] == len(bw_problems)
    s = solve(SearchConfig(method="naive", seed=3), bw_problems, model_factory("sim:noisy:1.0"), tmp_path / "noisy",
              progress=False)
    items = read_items(tmp_path / "noisy")
    assert all((it["progress"] == 1.0) == it["solved"] for it in items)
    assert s["mean_progress"] == round(sum(it["progress"] for it in items) / len(items), 4)
    assert s["progress_ci_low"] <= s["mean_progress"] <= s["progress_ci_high"] and s["mean_progress"] < 1
