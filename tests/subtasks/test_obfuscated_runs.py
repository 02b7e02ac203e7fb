"""score --obfuscate: sim:oracle scores 100% on every paper sub-task with mystery and random names,
both styles, on Blocksworld, Logistics and an ACPBench domain, and the obfuscated runs ask the very
items of the plain run with the very truth (item by item); the run records the renaming."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ACP, missing_part
from widthbench.simulated import open_model
from widthbench.subtasks.registry import Registry
from widthbench.subtasks.score_run import ScoreConfig, read_records, run_score

SOURCES = {"blocksworld": {"domain": "blocksworld"}, "logistics": {"domain": "logistics"},
           "ferry": {"instances": str(ACP / "ferry")}}


def _run(tmp_path, name, obfuscate=(), **source):
    paper = Registry.default().paper
    model = open_model("sim:oracle", cache_dir=tmp_path / "cache")
    try:
        config = ScoreConfig(subtasks=paper, skippable=paper, count=2, seed=4, styles=("pddl", "nl"),
                             thinking=(False, True), obfuscate=obfuscate, **source)
        summary = run_score(config, model, tmp_path / name, quiet=True)
    finally:
        model.close()
    recs = {(r["subtask"], r["item_id"], r["style"], r["thinking"]): r for r in read_records(tmp_path / name)}
    return summary, recs


@pytest.mark.parametrize("source", list(SOURCES))
def test_oracle_full_marks_and_plain_truth(tmp_path, source):
    if source == "ferry" and not (ACP / "ferry").is_dir():
        missing_part(f"ACPBench data not found at {ACP}")
    _, plain = _run(tmp_path, "plain", **SOURCES[source])
    assert plain and all(r["correct"] for r in plain.values())
    for mode in ("mystery", "random"):
        summary, recs = _run(tmp_path, mode, (mode, 11), **SOURCES[source])
        assert recs.keys() == plain.keys()
        for k, r in recs.items():
            assert r["correct"], (mode, k, r["parse_error"])
            assert r["truth"] == plain[k]["truth"] and r["item"] == plain[k]["item"]
            assert r["prompt"] != plain[k]["prompt"]
        config = summary["config"]
        assert config["obfuscate"] == {"mode": mode, "seed": 11}
        mapping = config["obfuscation_mapping"]
        shown = json.dumps([r["prompt"] for r in recs.values()])
        for original, new in mapping["actions"].items():
            assert new != original and new in shown
        assert json.loads((tmp_path / mode / "config.json").read_text())["identity"]["obfuscate"]["mode"] == mode
