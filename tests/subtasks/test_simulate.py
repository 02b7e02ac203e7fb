"""Simulated models on the sub-task grid: the oracle scores 100% in every cell, noisy lands on its
expected rate, random near chance; and the simulator reads only the prompt text."""

from __future__ import annotations

import random

import pytest

from widthbench.simulated import open_model
from widthbench.subtasks.items import SUBTASKS
from widthbench.subtasks.score_run import ScoreConfig, read_records, run_score


def _run(tmp_path, spec, **config):
    model = open_model(spec, cache_dir=tmp_path / "cache")
    try:
        return run_score(ScoreConfig(**config), model, tmp_path / "run", quiet=True)
    finally:
        model.close()


@pytest.mark.parametrize("domain", ["blocksworld", "logistics"])
def test_oracle_scores_every_cell_in_full(tmp_path, domain):
    exts = (False, True) if domain == "blocksworld" else (False,)
    summary = _run(tmp_path, "sim:oracle", subtasks=SUBTASKS, domain=domain, count=2, seed=3,
                   extensions=exts)
    rows = summary["rows"]
    cells = {(r["subtask"], r["style"], r["thinking"], r["extension"]) for r in rows}
    assert len(cells) == len(SUBTASKS) * 4 + (4 if domain == "blocksworld" else 0)
    for r in rows:
        assert r["correct"] == r["n"] > 0, r
        assert r["parse_errors"] == 0 and r["simulated"] is True
    thinking = [r for r in rows if r["thinking"] == "on"]
    assert all(r["mean_thinking_tokens"] > 0 for r in thinking)
    recs = read_records(tmp_path / "run")
    assert all(rec["simulated"] for rec in recs)
    assert all(rec["reasoning"] for rec in recs if rec["thinking"] and rec["subtask"] != "successor-separate")


def test_noisy_lands_within_its_ci_of_the_expected_rate(tmp_path):
    p = 0.2
    summary = _run(tmp_path, f"sim:noisy:{p}", subtasks=("action-generation", "action-single",
                                                          "plan-verification", "novelty-estimate"),
                   styles=("nl",), thinking=(False,), count=60, seed=5)
    for r in summary["rows"]:
        if r["metric"] == "exact-no-noop":
            continue
        assert r["ci_low"] <= 1 - p <= r["ci_high"], r
        assert r["correct"] < r["n"]


def test_random_is_near_chance(tmp_path):
    summary = _run(tmp_path, "sim:random", subtasks=("plan-verification", "novelty-balanced", "action-generation"),
                   styles=("pddl",), thinking=(False,), count=40, seed=2)
    rows = {r["subtask"]: r for r in summary["rows"] if r["metric"] in ("accuracy", "exact")}
    for sub in ("plan-verification", "novelty-balanced"):
        assert rows[sub]["ci_low"] <= 0.5 <= rows[sub]["ci_high"]
        assert rows[sub]["parse_errors"] == 0
    assert rows["action-generation"]["accuracy"] < 0.2


@pytest.mark.parametrize("style", ["nl", "pddl"])
def test_simulated_thinking_is_checkable_and_noisy_says_what_it_put_into_it(style):
    """With thinking on, the task-aware models think about the question's state the way reasoning
    models do (claims the trace verifier reads and judges): sim:oracle's thinking holds no error and
    says it injected none; sim:noisy:1.0's holds one, reported at the span it says; thinking on or
    off never changes the answer."""
    from widthbench.generators import generate
    from widthbench.simulated import Simulator
    from widthbench.subtasks import api
    from widthbench.subtasks.traces import verify_trace

    sim = Simulator()
    for n, inst in enumerate(generate("blocksworld", 4, 6, blocks=4, optimal=False)):
        task = inst.task()
        prompt = api.next_action_prompt(task, task.init, style)
        text, thinking, injected = sim.reply("oracle", prompt, True, random.Random(n))
        got = verify_trace(task, thinking, style=style)
        assert injected == [] and got["first_error"] is None and got["checked"] >= 5, (thinking, got["first_error"])
        text, thinking, injected = sim.reply("noisy:1.0", prompt, True, random.Random(n))
        assert sim.reply("noisy:1.0", prompt, False, random.Random(n))[::2] == (text, None)
        (inj,) = injected
        fe = verify_trace(task, thinking, style=style)["first_error"]
        assert fe is not None and fe["kind"] == inj["expect"], (thinking, inj, fe)
        assert inj["span"][0] <= fe["span"][0] and fe["span"][1] <= inj["span"][1], (thinking, inj, fe)


def test_unreadable_prompts_get_a_reply_no_parser_accepts():
    from widthbench.simulated import UNREADABLE, Simulator

    text, reasoning = Simulator().answer("oracle", [{"role": "user", "content": "Is 2+2 four?"}], True,
                                         random.Random(0))
    assert text == UNREADABLE and reasoning
    from widthbench.core.errors import ParseError
    from widthbench.subtasks import api

    with pytest.raises(ParseError):
        api.parse_yes_no(text)


def test_noisy_confuses_pick_up_and_unstack(tmp_path):
    from widthbench.subtasks.results.tables import error_analysis

    _run(tmp_path, "sim:noisy:0.5", subtasks=("action-single",), styles=("pddl",), thinking=(False,),
         count=30, seed=1)
    analysis = error_analysis(read_records(tmp_path / "run"))
    confusions = dict(analysis["action-single"]["pick-up/unstack and put-down/stack confusions"])
    assert sum(confusions.values()) > 0
