"""Width rows, summaries, the `widthbench widths` command, and the reachable-state counts."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import IPC, cached_task, need_data
from widthbench.cli import main
from widthbench.generators.game24 import Game24Model, load_puzzles
from widthbench.planners.bfs import reachable_states
from widthbench.planners.state_model import StripsModel
from widthbench.planners.widths import SpaceFacts, analyze, game24_rows, strips_rows, summarize


def _bw(name: str):
    need_data()
    folder = IPC / "blocksworld"
    return cached_task(str(folder / "domain.pddl"), str(folder / f"probBLOCKS-{name}.pddl"))


def test_game24_row_fields_and_denominators():
    p = load_puzzles("901")[0]
    row = game24_rows([p], max_k=4)[0]
    assert row["instance"] == "g24-0901" and row["puzzle"] == "4 5 6 10"
    assert row["width"] == 2 and row["width_label"] == "2" and not row["trivial"]
    assert [r["k"] for r in row["runs"]] == [0, 1, 2]
    m = Game24Model(p.numbers)
    assert row["tree_states"] == m.tree_size() and row["tree_depth"] == 3
    assert row["reachable_states"] == m.reachable_count()
    assert row["kept"] + row["pruned_novelty"] + row["pruned_duplicate"] == row["generated"]
    assert row["prunable_of_generated"] == pytest.approx(row["pruned_novelty"] / (row["kept"] + row["pruned_novelty"]))
    assert row["prunable_of_tree"] == pytest.approx(1 - row["kept"] / row["tree_states"])
    assert row["prunable_of_reachable"] == pytest.approx(1 - row["kept"] / row["reachable_states"])
    assert row["complete_kept"] is None  # only with complete=True
    full = game24_rows([p], max_k=4, complete=True)[0]
    assert full["complete_kept"] >= full["kept"] and full["width"] == row["width"]
    assert full["generated"] == row["generated"]  # counters at the goal do not depend on going on


def test_single_goal_rows_for_game24_and_strips():
    rows = game24_rows(load_puzzles("1"), max_k=4, single_goals=True)
    assert sorted(r["goal"] for r in rows) == ["24", "count=1"]
    task = _bw("4-0")
    rows = strips_rows("b4", task, max_k=3, single_goals=True)
    assert [r["goal"] for r in rows] == [task.atoms[i] for i in StripsModel(task).goal_atoms()]
    assert all(r["width"] in (0, 1, 2) for r in rows)
    one = strips_rows("b4", task, max_k=3)
    assert len(one) == 1 and one[0]["goal"].count("(on") == len(rows)


def test_trivial_and_unsolvable_rows_are_reported_apart():
    from widthbench.planners.strips import ground, load_domain

    dom = load_domain("blocksworld")
    t = ground(dom, ["a", "b"], ["(on a b)", "(ontable b)", "(clear a)", "(handempty)"], ["(on a b)"])
    row = analyze(StripsModel(t), instance="t", goal="(on a b)", max_k=2).as_dict()
    assert row["width"] == 0 and row["trivial"] and row["prunable_of_tree"] is None
    row = analyze(Game24Model((1, 1, 1, 1)), instance="u", goal="24", max_k=3).as_dict()
    assert row["width"] is None and row["width_label"] == ">3" and row["unsolvable"]
    s = summarize([row], 3)
    assert s["histogram"] == {"0": 0, "1": 0, "2": 0, "3": 0, ">3": 1}
    assert s["mean_width"] is None and s["n_unsolvable"] == 1


def test_summary_means_and_histogram():
    rows = game24_rows(load_puzzles("1-30"), max_k=4)
    s = summarize(rows, 4)
    assert s["n"] == 30 and sum(s["histogram"].values()) == 30
    widths = [r["width"] for r in rows]
    assert s["mean_width"] == pytest.approx(sum(widths) / 30) and s["max_width"] == max(widths)
    for key, entry in s["prunable"].items():
        assert entry["denominator"]  # every mean names its denominator
    assert s["prunable"]["prunable_of_tree"]["n"] == 30
    assert s["mean_tree_states"] == pytest.approx(sum(r["tree_states"] for r in rows) / 30)


def test_tree_count_matches_path_enumeration():
    task = _bw("4-0")
    model = StripsModel(task)
    facts = SpaceFacts(model, tree_limit=10**6)

    def paths(s, d):
        return 1 + (sum(paths(t, d - 1) for _, t in model.successors(s)) if d else 0)

    for depth in (0, 1, 2, 5):
        assert facts.tree(depth) == paths(task.init, depth)
    assert SpaceFacts(model, tree_limit=10).tree(6) is None  # gives up past its limit


def test_reachable_states_of_6_blocks():
    task = _bw("6-0")
    assert len(reachable_states(task)) == 7057  # 4051 arm-empty configurations + 6 * 501 holding
    assert SpaceFacts(StripsModel(task)).reachable() == 7057
    assert SpaceFacts(StripsModel(task), reachable_limit=1000).reachable() is None


@pytest.mark.slow
def test_reachable_states_of_8_blocks():
    task = _bw("8-0")
    assert len(reachable_states(task)) == 695_417  # 394,353 + 8 * 37,633


def test_widths_command_on_game24(tmp_path, capsys):
    out = tmp_path / "g24"
    assert main(["widths", "game24", "--rows", "1-25", "--max-k", "4", "--out", str(out), "--quiet"]) == 0
    rows = [json.loads(x) for x in (out / "widths.jsonl").read_text().splitlines()]
    assert [r["rank"] for r in rows] == list(range(1, 26))
    summary = json.loads((out / "summary.json").read_text())
    for key in ("n", "mean_width", "max_width", "histogram", "prunable", "mean_tree_states"):
        assert key in summary
    assert summary["n"] == 25 and set(summary["histogram"]) == {"0", "1", "2", "3", "4", ">4"}
    assert (out / "widths.png").stat().st_size > 10_000
    assert "mean width" in capsys.readouterr().out
    # two processes give the same rows
    out2 = tmp_path / "g24j"
    assert main(["widths", "game24", "--rows", "1-25", "--max-k", "4", "--jobs", "2", "--out", str(out2),
                 "--quiet"]) == 0
    assert (out2 / "widths.jsonl").read_text() == (out / "widths.jsonl").read_text()


def test_widths_command_on_a_folder_with_single_goals(tmp_path):
    need_data()
    src = IPC / "blocksworld"
    folder = tmp_path / "bw"
    folder.mkdir()
    for name in ("domain.pddl", "domain-pddl-generators-4ops.pddl", "probBLOCKS-4-0.pddl", "probBLOCKS-5-1.pddl"):
        shutil.copy(src / name, folder / name)
    out = tmp_path / "out"
    assert main(["widths", str(folder), "--max-k", "3", "--single-goals", "--out", str(out), "--quiet"]) == 0
    rows = [json.loads(x) for x in (out / "widths.jsonl").read_text().splitlines()]
    assert {r["instance"] for r in rows} == {"probBLOCKS-4-0", "probBLOCKS-5-1"}
    assert all(r["goal"].startswith("(on ") and r["width"] <= 2 for r in rows)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["single_goals"] and summary["max_width"] <= 2


def test_widths_command_generates_instances(tmp_path):
    out = tmp_path / "gen"
    assert main(["widths", "blocksworld", "--count", "3", "--seed", "2", "--blocks", "5", "--max-k", "2",
                 "--single-goals", "--out", str(out), "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_instances"] == 3 and summary["max_width"] <= 2


@pytest.mark.parametrize("argv,message", [
    (["widths", "nonsense", "--max-k", "2", "--out", "X"], "unknown target"),
    (["widths", "game24", "--max-k", "-1", "--out", "X"], "--max-k"),
    (["widths", "game24", "--max-k", "2", "--rows", "7-3", "--out", "X"], "--rows"),
    (["widths", "game24", "--max-k", "2", "--blocks", "4", "--out", "X"], "does not apply"),
    (["widths", "blocksworld", "--max-k", "2", "--out", "X"], "--count"),
    (["widths", "game24", "--max-k", "2", "--jobs", "0", "--out", "X"], "--jobs"),
])
def test_bad_input_is_one_line_exit_2(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
