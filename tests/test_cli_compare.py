"""`widthbench compare RUN_A RUN_B --out DIR` on simulated runs (docs/compare.md)."""

from __future__ import annotations

import csv
import json

import pytest

from widthbench.cli import main
from widthbench.subtasks.results.comparison import CSV_COLUMNS

GRID = ("--subtask", "plan-verification,action-single", "--style", "pddl", "--thinking", "off", "--no-cache",
        "--quiet")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """200 items per sub-task, asked of sim:noisy:0.1 (A) and sim:noisy:0.4 (B), and 3 items of
    another seed (C: none of A's items)."""
    d = tmp_path_factory.mktemp("compare")
    for name, model, count, seed in (("a", "sim:noisy:0.1", "200", "0"), ("b", "sim:noisy:0.4", "200", "0"),
                                     ("c", "sim:noisy:0.1", "3", "99")):
        assert main(["score", "--model", model, "--count", count, "--seed", seed, *GRID, "--out", str(d / name)]) == 0
    return d


def _csv(folder):
    with open(folder / "compare.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_a_less_noisy_model_is_found_better_in_every_cell(runs, tmp_path, capsys):
    out = tmp_path / "cmp"
    assert main(["compare", str(runs / "a"), str(runs / "b"), "--out", str(out), "--target", "0.1"]) == 0
    printed = capsys.readouterr().out
    rows = _csv(out)
    assert list(rows[0]) == list(CSV_COLUMNS)
    rates = [r for r in rows if r["metric"] != "completion_tokens"]
    assert {(r["subtask"], r["metric"]) for r in rates} == {("plan-verification", "accuracy"),
                                                           ("action-single", "optimal"), ("action-single", "valid")}
    for r in rates:
        assert r["n"] == "200" and r["test"] == "mcnemar-exact"
        assert float(r["diff"]) < 0 and float(r["ci_high"]) < 0  # B (noisier) is worse: diff = B - A
        assert float(r["p_adjusted"]) < 0.01 and float(r["p_adjusted"]) >= float(r["p"])
        assert float(r["diff"]) == pytest.approx((int(r["b"]) - int(r["a"])) / 200)
    assert {r["test"] for r in rows if r["metric"] == "completion_tokens"} <= {"sign-flip-exact", "sign-flip-mc"}
    md = (out / "compare.md").read_text()
    assert "400 items in common" in md and "Holm's correction over the 5 tests" in md
    assert (out / "compare.tex").read_text().startswith("\\begin{table*}")
    assert "detectable at 80% power: ±" in printed and "for ±10.0 points: score --count " in printed
    assert "3 of 5 tests significant after Holm's correction" in printed


def test_a_run_against_itself_differs_by_nothing(runs, tmp_path):
    out = tmp_path / "self"
    assert main(["compare", str(runs / "a"), str(runs / "a"), "--out", str(out)]) == 0
    for r in _csv(out):
        assert float(r["diff"]) == 0 and float(r["ci_low"]) == float(r["ci_high"]) == 0
        assert float(r["p"]) == 1 and float(r["p_adjusted"]) == 1 and r["a"] == r["b"]


def test_runs_without_a_common_item_are_refused_in_one_line(runs, tmp_path, capsys):
    assert main(["compare", str(runs / "a"), str(runs / "c"), "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no item in common" in err and "Traceback" not in err
    assert main(["compare", str(runs / "a"), str(runs / "b"), "--out", str(tmp_path / "y"), "--target", "5"]) == 2
    assert "--target 5 is not a difference in (0, 1]" in capsys.readouterr().err


def _positional(src, dest):
    """A copy of run ``src`` as a run made before stable item ids would have recorded it."""
    dest.mkdir()
    for name in ("config.json", "summary.json"):
        (dest / name).write_text((src / name).read_text())
    lines = [json.loads(x) for x in (src / "items.jsonl").read_text().splitlines() if x.strip()]
    (dest / "items.jsonl").write_text("".join(
        json.dumps(dict(r, item_id=f"{r['subtask']}-{r['index']:04d}")) + "\n" for r in lines))


def test_a_run_made_before_stable_ids_is_aligned_by_place_only_when_its_items_are_the_same(runs, tmp_path, capsys):
    _positional(runs / "a", tmp_path / "old")
    out = tmp_path / "cmp"
    assert main(["compare", str(tmp_path / "old"), str(runs / "b"), "--out", str(out)]) == 0
    assert "aligned by their place" in (out / "compare.md").read_text()
    assert all(r["n"] == "200" and float(r["p"]) < 0.01 for r in _csv(out) if r["metric"] == "accuracy")
    assert main(["compare", str(tmp_path / "old"), str(runs / "c"), "--out", str(tmp_path / "z")]) == 2
    assert "made before item ids were stable and its items differ" in capsys.readouterr().err


def test_two_solve_runs_compare_their_success_on_the_same_instances(tmp_path, capsys):
    for name, model in (("a", "sim:noisy:0.1"), ("b", "sim:noisy:0.6")):
        assert main(["solve", "--method", "naive", "--domain", "blocksworld", "--count", "20", "--seed", "1",
                     "--model", model, "--no-cache", "--out", str(tmp_path / name), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "c")]) == 0
    assert "solve --count " in capsys.readouterr().out
    (row,) = [r for r in _csv(tmp_path / "c") if r["metric"] == "success"]
    a = json.loads((tmp_path / "a" / "summary.json").read_text())
    b = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert row["n"] == "20" and (int(row["a"]), int(row["b"])) == (a["correct"], b["correct"])
    assert row["test"] == "mcnemar-exact" and float(row["diff"]) < 0
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "c"), "--out", str(tmp_path / "d")]) == 2


def test_solve_runs_made_before_item_ids_align_by_instance_id_only_on_the_same_problems(tmp_path, capsys):
    for name, seed in (("a", "1"), ("b", "1"), ("c", "2")):
        assert main(["solve", "--method", "naive", "--domain", "blocksworld", "--count", "5", "--seed", seed,
                     "--model", "sim:noisy:0.3", "--no-cache", "--out", str(tmp_path / name), "--quiet"]) == 0
        items = tmp_path / name / "items.jsonl"
        old = [{k: v for k, v in json.loads(x).items() if k != "item_id"} for x in items.read_text().splitlines()]
        items.write_text("".join(json.dumps(r) + "\n" for r in old))
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "ab")]) == 0
    assert "aligned by their ids in the set" in (tmp_path / "ab" / "compare.md").read_text()
    assert {r["n"] for r in _csv(tmp_path / "ab")} == {"5"}
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "c"), "--out", str(tmp_path / "ac")]) == 2
    assert "its problems differ" in capsys.readouterr().err


def test_across_thinking_compares_the_modes_of_one_run_item_by_item(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["score", "--model", "sim:noisy:0.2", "--subtask", "plan-verification", "--count", "30", "--style",
                 "pddl", "--thinking", "both", "--no-cache", "--quiet", "--out", str(run)]) == 0
    assert main(["compare", str(run), str(run), "--across", "thinking", "--out", str(tmp_path / "c")]) == 0
    (row,) = [r for r in _csv(tmp_path / "c") if r["metric"] == "accuracy"]
    recs = [json.loads(x) for x in (run / "items.jsonl").read_text().splitlines()]
    right = {t: sum(bool(r["correct"]) for r in recs if r["thinking"] is t) for t in (False, True)}
    assert (row["thinking"], row["n"], int(row["a"]), int(row["b"])) == ("off->on", "30", right[False], right[True])
    assert "across thinking: A's cells with thinking off against B's with thinking on" in \
        (tmp_path / "c" / "compare.md").read_text()
    # without --across the run against itself differs by nothing
    assert main(["compare", str(run), str(run), "--out", str(tmp_path / "same")]) == 0
    assert {float(r["p"]) for r in _csv(tmp_path / "same")} == {1.0}
