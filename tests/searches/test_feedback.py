"""`solve --method feedback`: sim:oracle solves every instance in round 1; sim:noisy, which makes
seeded mistakes and keeps the steps the feedback does not fault, solves more within N rounds than in
round 1; every round is recorded; a killed run resumes."""

from __future__ import annotations

import json

import pytest

from widthbench.cli import main
from widthbench.searches.config import SearchConfig
from widthbench.searches.methods.feedback import feedback_text, step_errors
from widthbench.searches.solve_run import read_items, solve


def _config(**settings):
    return SearchConfig(method="feedback", seed=3).with_settings(
        {"rounds": 15, "feedback": "first-error", "history": "on", **settings})


def test_oracle_solves_every_instance_in_round_1(bw_problems, model_factory, tmp_path):
    s = solve(_config(), bw_problems, model_factory(), tmp_path / "run", progress=False)
    n = len(bw_problems)
    assert s["solved"] == s["n"] == n and s["solved_by_round"] == [n] * 15 and s["solved_round_1"] == n
    assert s["mean_rounds_to_success"] == 1 and s["mean_progress"] == 1.0
    for it in read_items(tmp_path / "run"):
        assert it["solved_round"] == 1 and len(it["rounds"]) == 1 and it["rounds"][0]["verdict"] == "valid"
        assert it["rounds"][0]["feedback"] is None and it["rounds"][0]["tokens"] > 0


@pytest.mark.parametrize("kind,history", [("first-error", "on"), ("all-errors", "off"), ("binary", "on")])
def test_noisy_solves_more_within_n_rounds_than_in_round_1(bw_problems, model_factory, tmp_path, kind, history):
    cfg = _config(feedback=kind, history=history, rounds=10)
    s = solve(cfg, bw_problems, model_factory("sim:noisy:0.6"), tmp_path / "run", progress=False)
    assert s["solved_by_round"][0] == s["solved_round_1"] < s["solved_by_round"][-1] == s["solved"]
    assert all(a <= b for a, b in zip(s["solved_by_round"], s["solved_by_round"][1:]))
    items = read_items(tmp_path / "run")
    for it in items:
        for r in it["rounds"][:-1]:
            assert r["verdict"] != "valid" and r["feedback"].startswith("The above plan is invalid.")
        if kind == "binary":
            assert all(r["feedback"] in (None, "The above plan is invalid.") for r in it["rounds"])
    again = [it for it in items if it["solved_round"] and it["solved_round"] > 1]
    assert again and s["mean_rounds_to_success"] > 1 and s["tokens_per_solved"] > 0


def test_feedback_names_every_failing_step_with_its_unmet_preconditions(bw_problems):
    p = bw_problems[0]
    from widthbench.planners.ground_truth import GroundTruth

    plan = [str(a) for a in GroundTruth(p.task).optimal_plan()]
    bad = [str(a) for a in p.task.actions if str(a) not in plan and str(a).startswith("(stack")][0]
    broken = [bad] + plan + [bad]
    first, _ = step_errors(p.task, broken, every=False)
    every, _ = step_errors(p.task, broken, every=True)
    assert [e[0] for e in first] == [1] and first[0][2]
    assert [e[0] for e in every][0] == 1 and len(every) >= 2
    text = feedback_text(p, broken, "first-error")
    assert "step 1" in text and "step " + str(len(broken)) not in text
    assert feedback_text(p, plan, "all-errors") is None
    assert "goal" in feedback_text(p, plan[:-1], "first-error")


def test_cli_feedback_run_writes_rounds_and_resumes(tmp_path):
    out = tmp_path / "run"
    argv = ["solve", "--method", "feedback", "--rounds", "6", "--feedback", "all-errors", "--history", "off",
            "--domain", "blocksworld", "--count", "4", "--seed", "2", "--blocks", "4", "--model", "sim:noisy:0.5",
            "--cache-dir", str(tmp_path / "cache"), "--out", str(out), "--quiet"]
    assert main(argv) == 0
    first = json.loads((out / "summary.json").read_text())
    assert first["config"]["settings"] == {"rounds": 6, "feedback": "all-errors", "history": "off", "perturb": 0}
    assert len(first["solved_by_round"]) == 6
    lines = (out / "items.jsonl").read_text().splitlines()
    (out / "items.jsonl").write_text("\n".join(lines[:2]) + "\n" + lines[2][:40])  # a kill in mid-write
    assert main(argv) == 0
    again = json.loads((out / "summary.json").read_text())
    assert {k: again[k] for k in ("solved", "n", "solved_by_round")} == {
        k: first[k] for k in ("solved", "n", "solved_by_round")}
    assert main(argv[:4] + ["5"] + argv[5:]) == 2  # another --rounds: another run, refused


def test_perturbation_feedback_says_what_changed_and_success_is_scored_after_it(bw_problems, model_factory, tmp_path):
    from widthbench.planners import strips

    s = solve(_config(perturb=2), bw_problems, model_factory(), tmp_path / "run", progress=False)
    assert s["solved"] == s["n"]
    by_id = {p.id: p for p in bw_problems}
    changed = [it for it in read_items(tmp_path / "run") if it["perturbation"]]
    assert changed
    for it in changed:
        first = it["rounds"][0]
        assert first["perturbation"] == it["perturbation"]
        assert it["plan"][2] == it["perturbation"]["action"]
        assert strips.execute_plan(by_id[it["id"]].task, it["plan"]).valid
        if first["verdict"] != "valid":  # the rest of the plan no longer works: told, then replanned
            assert "changed by itself" in first["feedback"] and it["solved_round"] == 2
