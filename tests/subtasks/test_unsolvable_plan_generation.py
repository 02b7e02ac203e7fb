"""Plan generation on certified unsolvable instances: sim:oracle declares no plan and scores 100% in
every mode; a model that always offers a plan scores 0%, each counted as "claimed a plan for an
unsolvable task"; on a set mixing solvable and unsolvable instances every item is asked with the
prompt that allows "no plan exists", records carry the solvable feature, and a declaration on a
solvable task is wrong (declared_impossible)."""

from __future__ import annotations

import pytest

from widthbench.generators import generate, write_instance_set
from widthbench.simulated import open_model
from widthbench.subtasks.score_run import ScoreConfig, read_records, run_score


def _score(tmp_path, spec, folder, count, name="run"):
    model = open_model(spec, cache_dir=tmp_path / "cache")
    try:
        run_score(ScoreConfig(subtasks=("plan-generation",), instances=str(folder), count=count,
                              styles=("pddl", "nl"), thinking=(False, True)), model, tmp_path / name, quiet=True)
    finally:
        model.close()
    return read_records(tmp_path / name)


@pytest.mark.parametrize("domain,opts", [("blocksworld", {"blocks": "3-4"}), ("logistics", {})])
def test_oracle_right_and_always_plan_wrong(tmp_path, domain, opts):
    folder = tmp_path / "set"
    write_instance_set(folder, domain, generate(domain, 3, 7, unsolvable=True, **opts))
    recs = _score(tmp_path, "sim:oracle", folder, 3)
    assert len(recs) == 12 and all(r["correct"] for r in recs)
    assert all(r["parsed"] == "no plan exists" and r["truth"]["solvable"] is False for r in recs)
    assert all(r["features"]["solvable"] == 0 for r in recs)
    action = "(pick-up a)" if domain == "blocksworld" else "(load-truck p0 t0 l0-0)"
    recs = _score(tmp_path, f"sim:const:Answer:\n{action}", folder, 3, "const")
    assert not any(r["correct"] for r in recs)
    read = [r for r in recs if r["parse_error"] is None]
    assert read and all(r["metrics"]["claimed_plan"] == 1 for r in read)


def test_mixed_set(tmp_path):
    folder = tmp_path / "set"
    insts = generate("blocksworld", 2, 3, blocks=3) + generate("blocksworld", 2, 3, unsolvable=True, blocks=3)
    write_instance_set(folder, "blocksworld", insts)
    recs = _score(tmp_path, "sim:oracle", folder, 4)
    assert all(r["correct"] for r in recs)
    assert sorted({r["features"]["solvable"] for r in recs}) == [0, 1]
    recs = _score(tmp_path, "sim:const:Answer: no plan exists", folder, 4, "declare")
    by = {r["features"]["solvable"]: r for r in recs}
    assert by[0]["correct"] and not by[1]["correct"] and by[1]["metrics"]["declared_impossible"] == 1


def test_other_subtasks_skip_unsolvable_instances_and_rows_count_claims(tmp_path):
    from widthbench.subtasks.items import Pool, build_items
    from widthbench.generators import read_instance_set

    folder = tmp_path / "set"
    insts = generate("blocksworld", 2, 3, unsolvable=True, blocks=3) + generate("blocksworld", 2, 3, blocks=3)
    write_instance_set(folder, "blocksworld", insts)
    pool = Pool(None, 0, instances=read_instance_set(folder))
    items = build_items("action-generation", pool, 2)
    assert {i.instance_id for i in items} == {x.id for x in insts if x.solvable is not False}
    model = open_model("sim:const:Answer:\n(pick-up a)", cache_dir=tmp_path / "cache")
    try:
        summary = run_score(ScoreConfig(subtasks=("plan-generation",), instances=str(folder), count=4,
                                        styles=("pddl",), thinking=(False,)), model, tmp_path / "run", quiet=True)
    finally:
        model.close()
    row = next(r for r in summary["rows"] if r["metric"] == "valid" and r.get("reader", "flexible") == "flexible")
    assert row["unsolvable"] == 2 and row["claimed_plan_unsolvable"] == 2
