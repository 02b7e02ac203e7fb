"""`solve --method agent`: sim:oracle reaches every goal in optimal steps without an invalid action;
sim:noisy takes actions the engine refuses, is told why, and recovers."""

from __future__ import annotations

import json

from widthbench.cli import main
from widthbench.searches.config import SearchConfig
from widthbench.searches.solve_run import read_items, solve


def _config(**settings):
    return SearchConfig(method="agent", seed=3).with_settings({"max_steps": 40, "tool_format": "text", **settings})


def test_oracle_acts_optimally_without_an_invalid_action(bw_problems, model_factory, tmp_path):
    s = solve(_config(), bw_problems, model_factory(), tmp_path / "run", progress=False)
    assert s["solved"] == s["n"] == len(bw_problems)
    assert s["invalid_action_rate"] == 0 and s["recoveries"] == 0 and s["steps_over_optimal"] == 0
    optimal = {p.id: p.optimal_length for p in bw_problems}
    for it in read_items(tmp_path / "run"):
        assert it["steps"] == optimal[it["id"]] == it["turns"] and it["progress"] == 1.0
        assert all(t["taken"] and t["state"] for t in it["episode"])


def test_noisy_makes_invalid_actions_is_told_why_and_recovers(bw_problems, model_factory, tmp_path):
    s = solve(_config(), bw_problems, model_factory("sim:noisy:0.4"), tmp_path / "run", progress=False)
    items = read_items(tmp_path / "run")
    assert s["invalid_action_rate"] > 0 and s["recoveries"] > 0
    refused = [t for it in items for t in it["episode"] if not t["taken"]]
    assert refused and all("cannot be taken" in t["answer"] or "no action" in t["answer"].lower()
                           or "not an action" in t["answer"] for t in refused)
    assert s["invalid_actions"] == len(refused)
    assert s["recoveries"] == sum(1 for it in items if it["solved"] and any(not t["taken"] for t in it["episode"]))


def test_max_steps_bounds_an_episode_and_the_cli_writes_the_fields(tmp_path):
    out = tmp_path / "run"
    argv = ["solve", "--method", "agent", "--max-steps", "2", "--domain", "blocksworld", "--count", "3",
            "--seed", "4", "--min-plan-length", "4", "--model", "sim:oracle", "--cache-dir", str(tmp_path / "c"),
            "--out", str(out), "--quiet"]
    assert main(argv) == 0
    s = json.loads((out / "summary.json").read_text())
    assert s["solved"] == 0 and s["mean_turns"] == 2 and 0 < s["mean_progress"] < 1
    assert {"invalid_action_rate", "recoveries", "steps_over_optimal", "solved", "n"} <= set(s)


def test_perturbation_the_oracle_is_told_the_new_state_and_still_acts_optimally(bw_problems, model_factory, tmp_path):
    from widthbench.planners import strips

    s = solve(_config(perturb=2), bw_problems, model_factory(), tmp_path / "run", progress=False)
    assert s["solved"] == s["n"] and s["steps_over_optimal"] == 0
    by_id = {p.id: p for p in bw_problems}
    changed = 0
    for it in read_items(tmp_path / "run"):
        if it["perturbation"] is None:  # the goal was reached before the change
            assert it["steps"] <= 2
            continue
        changed += 1
        ex = [t for t in it["episode"] if t.get("exogenous")]
        assert len(ex) == 1 and "changed by itself" in ex[0]["answer"]
        assert it["plan"][2] == it["perturbation"]["action"] not in it["plan"][:2]
        assert strips.execute_plan(by_id[it["id"]].task, it["plan"]).valid  # scored after the change
    assert changed >= len(bw_problems) // 2


def test_cli_perturb_flag_applies_to_the_closed_loop_methods_only(tmp_path, capsys):
    common = ["--domain", "blocksworld", "--count", "2", "--seed", "4", "--model", "sim:oracle",
              "--cache-dir", str(tmp_path / "c"), "--quiet"]
    assert main(["solve", "--method", "agent", "--perturb", "1", "--out", str(tmp_path / "a"), *common]) == 0
    s = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert s["config"]["settings"]["perturb"] == 1 and s["solved"] == 2
    capsys.readouterr()
    assert main(["solve", "--method", "tot-dfs", "--perturb", "1", "--out", str(tmp_path / "b"), *common]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--perturb applies to --method feedback or agent" in err


def _tools(**settings):
    return _config(**{"tool_format": "openai", "hints": "on", **settings})


def test_openai_tools_oracle_acts_optimally_through_tool_calls(bw_problems, model_factory, tmp_path):
    s = solve(_tools(), bw_problems, model_factory(), tmp_path / "run", progress=False)
    assert s["solved"] == s["n"] == len(bw_problems)
    assert s["invalid_action_rate"] == 0 and s["steps_over_optimal"] == 0 and s["valid_actions_calls"] == 0
    for it in read_items(tmp_path / "run"):
        assert all(t["tool"] == "apply_action" and t["taken"] for t in it["episode"])


def test_openai_tools_noisy_looks_up_valid_actions_after_an_error_unless_hints_are_off(bw_problems, model_factory,
                                                                                         tmp_path):
    on = solve(_tools(), bw_problems, model_factory("sim:noisy:0.4"), tmp_path / "on", progress=False)
    assert on["invalid_action_rate"] > 0 and on["recoveries"] > 0 and on["valid_actions_calls"] > 0
    items = read_items(tmp_path / "on")
    lookups = [t for it in items for t in it["episode"] if t["tool"] == "valid_actions"]
    assert len(lookups) == on["valid_actions_calls"] and all("can be taken now" in t["answer"] for t in lookups)
    off = solve(_tools(hints="off"), bw_problems, model_factory("sim:noisy:0.4"), tmp_path / "off", progress=False)
    assert off["valid_actions_calls"] == 0 and off["invalid_action_rate"] > 0


def test_openai_tools_declare_unsolvable_right_on_unsolvable_instances(tmp_path, model_factory):
    from widthbench.generators import generate, write_instance_set
    from widthbench.searches.solve_run import load_problems

    folder = tmp_path / "set"
    write_instance_set(folder, "blocksworld", generate("blocksworld", 2, 3, blocks=3)
                       + generate("blocksworld", 2, 3, unsolvable=True, blocks=3))
    problems = load_problems(None, instances=str(folder))
    s = solve(_tools(), problems, model_factory(), tmp_path / "run", progress=False)
    assert s["declared_unsolvable_right"] == 2 and s["declared_unsolvable_wrong"] == 0
    assert s["correct"] == 4 and s["solved"] == 2


def test_openai_tools_through_the_sim_server(tmp_path, bw_problems):
    """The same episodes through the HTTP sim-server: tool calls in the chat completion body."""
    from widthbench.llm.model import open_model
    from widthbench.llm.sim_server import ServerThread, SimServerConfig
    from widthbench.simulated import simulator_for

    server = ServerThread(SimServerConfig(model="sim:noisy:0.4", simulator=simulator_for("sim:noisy:0.4"))).start()
    try:
        model = open_model("openai:sim:noisy:0.4", base_urls=[server.base_url], cache_dir=tmp_path / "cache")
        try:
            s = solve(_tools(), bw_problems[:4], model, tmp_path / "run", progress=False)
        finally:
            model.close()
    finally:
        server.stop()
    assert s["n"] == 4 and s["invalid_action_rate"] > 0 and s["valid_actions_calls"] > 0 and s["solved"] >= 1
