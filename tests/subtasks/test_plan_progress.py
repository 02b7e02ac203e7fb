"""Plan generation records `progress` (docs/subtasks.md) and its rows carry its mean and interval."""

from __future__ import annotations

import pytest

from widthbench.generators import generate, write_instance_set
from widthbench.planners import strips
from widthbench.simulated import open_model
from widthbench.subtasks.items import ItemOptions, Pool, build_items
from widthbench.subtasks.score_run import ScoreConfig, read_records, run_score
from widthbench.subtasks.scoring import Mode, score_item


def test_record_progress_is_1_valid_0_when_nothing_applies_and_between_for_a_good_prefix():
    (item,) = build_items("plan-generation", Pool("blocksworld", 5, initial=4), 1, ItemOptions())
    task, mode = item.task, Mode("pddl", False)
    plan = list(item.truth["optimal_plan"])
    assert len(plan) >= 2
    states = strips.execute_plan(task, plan).states
    bad_last = [str(a) for a in task.actions if not strips.is_applicable(states[-2], a)][0]

    def metrics(steps):
        return score_item(item, mode, ["Plan:\n" + "\n".join(steps)])["metrics"]

    assert metrics(plan)["progress"] == 1.0
    bad_first = [str(a) for a in task.actions if not strips.is_applicable(task.init, a)][0]
    assert metrics([bad_first] + plan)["progress"] == 0.0
    got = metrics(plan[:-1] + [bad_last])  # the prefix is one step from the goal
    assert got["valid"] == 0 and got["progress"] == pytest.approx(1 - 1 / len(plan))


def test_rows_carry_mean_progress_with_its_interval(tmp_path):
    folder = tmp_path / "set"
    write_instance_set(folder, "blocksworld", generate("blocksworld", 6, 11, blocks="3-4"))
    for spec, name in (("sim:oracle", "oracle"), ("sim:noisy:1.0", "noisy")):
        model = open_model(spec, cache_dir=tmp_path / "cache")
        try:
            summary = run_score(ScoreConfig(subtasks=("plan-generation",), instances=str(folder), count=6,
                                            styles=("pddl",), thinking=(False,)), model, tmp_path / name, quiet=True)
        finally:
            model.close()
        recs = read_records(tmp_path / name)
        values = [r["metrics"]["progress"] for r in recs]
        row = [r for r in summary["rows"] if r["metric"] == "valid"][0]
        assert row["progress_n"] == len([v for v in values if v is not None]) == 6
        assert row["mean_progress"] == pytest.approx(sum(values) / 6, abs=1e-4)
        assert row["progress_ci_low"] <= row["mean_progress"] <= row["progress_ci_high"]
        if name == "oracle":
            assert row["mean_progress"] == 1.0
        else:  # one step of an optimal plan replaced by an inapplicable action: the prefix counts
            assert all(v < 1 for v in values) and 0 < row["mean_progress"] < 1


def test_difficulty_bins_and_the_paper_table_carry_progress(tmp_path):
    from widthbench.reports.paper import write_paper
    from widthbench.subtasks.results.difficulty import breakdown

    folder = tmp_path / "set"
    write_instance_set(folder, "blocksworld", generate("blocksworld", 6, 11, blocks="3-4"))
    model = open_model("sim:noisy:1.0", cache_dir=tmp_path / "cache")
    try:
        run_score(ScoreConfig(subtasks=("plan-generation",), instances=str(folder), count=6,
                              styles=("pddl",), thinking=(False,)), model, tmp_path / "run", quiet=True)
    finally:
        model.close()
    recs = read_records(tmp_path / "run")
    got = breakdown(recs, "plan-length")
    assert got["rows"]
    for row in got["rows"]:
        values = [r["metrics"]["progress"] for r in recs if row["bin_lo"] <= r["features"]["plan-length"] <= row["bin_hi"]]
        assert row["progress_n"] == len(values) == row["n"]
        if values:
            assert row["mean_progress"] == pytest.approx(sum(values) / len(values), abs=1e-4)
    paths = write_paper([tmp_path / "run"], tmp_path / "paper", formats=("md", "csv"))
    text = {p.suffix: p.read_text() for p in paths}
    assert "progress 0." in text[".md"] and "mean_progress" in text[".csv"]
