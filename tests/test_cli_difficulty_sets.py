"""Item sets that span difficulty on purpose (issue 21): `generate --width K` / `--plan-length LO-HI`
keep only instances of that width / optimal length (checked by `widthbench widths` and breadth-first
search), and `score --stratify FEATURE --bins ... --per-bin N` fills each bin exactly or says which
bin fell short, with how many it found."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from widthbench.cli import main
from widthbench.generators import generate, read_instance_set
from widthbench.planners.bfs import shortest_plan


@pytest.mark.parametrize("domain, width", [("blocksworld", 1), ("blocksworld", 2), ("logistics", 2)])
def test_generate_width_k_gives_only_instances_that_widths_finds_of_width_k(tmp_path, domain, width):
    out = tmp_path / "set"
    assert main(["generate", domain, "--count", "6", "--seed", "2", "--width", str(width), "--out", str(out),
                 "--quiet"]) == 0
    assert main(["widths", str(out), "--max-k", "3", "--out", str(tmp_path / "w")]) == 0
    rows = [json.loads(x) for x in (tmp_path / "w" / "widths.jsonl").read_text().splitlines() if x.strip()]
    assert len(rows) == 6 and {r["width"] for r in rows} == {width}
    # the filter changes the set: without it some instance has another width
    plain = generate(domain, 30, 2, optimal=False)
    from widthbench.generators.common import effective_width

    assert any(effective_width(i.task(), 3) != width for i in plain)


def test_generate_plan_length_range_keeps_only_those_optimal_lengths(tmp_path):
    out = tmp_path / "set"
    assert main(["generate", "blocksworld", "--count", "8", "--seed", "1", "--plan-length", "8-12", "--width", "2",
                 "--out", str(out), "--quiet"]) == 0
    for inst in read_instance_set(out):
        assert 8 <= inst.optimal_length <= 12 and len(shortest_plan(inst.task()).plan) == inst.optimal_length


@pytest.mark.parametrize("argv, message", [
    (["--width", "0"], "--width must be a positive integer"),
    (["--plan-length", "9-4"], "is empty"),
    (["--plan-length", "4-8", "--min-plan-length", "3"], "--plan-length replaces"),
    (["--width", "9", "--blocks", "3", "--max-failed-draws", "30"], "effective width 9"),
])
def test_generate_bad_difficulty_filters_exit_2(tmp_path, capsys, argv, message):
    code = main(["generate", "blocksworld", "--count", "2", "--seed", "1", "--out", str(tmp_path / "x"),
                 "--quiet", *argv])
    err = capsys.readouterr().err.strip()
    assert code == 2 and message in err and len(err.splitlines()) == 1


def _score(tmp_path, *extra) -> int:
    return main(["score", "--subtask", "plan-verification,action-single", "--style", "pddl", "--thinking", "off",
                 "--model", "sim:oracle", "--seed", "0", "--quiet", "--out", str(tmp_path / "run"),
                 "--cache-dir", str(tmp_path / "cache"), *extra])


def test_stratify_fills_every_bin_exactly(tmp_path):
    assert _score(tmp_path, "--stratify", "plan-length", "--bins", "2-4,5-8,9-12", "--per-bin", "4") == 0
    recs = [json.loads(x) for x in (tmp_path / "run" / "items.jsonl").read_text().splitlines()]
    counts = Counter((r["subtask"], "2-4" if r["features"]["plan-length"] <= 4 else
                      "5-8" if r["features"]["plan-length"] <= 8 else "9-12") for r in recs)
    assert counts == {(s, b): 4 for s in ("plan-verification", "action-single") for b in ("2-4", "5-8", "9-12")}
    assert all(2 <= r["features"]["plan-length"] <= 12 for r in recs)
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config["identity"]["items"]["stratify"] == {"feature": "plan-length", "bins": "2-4,5-8,9-12", "per_bin": 4}


def test_stratify_says_which_bin_fell_short_and_how_many_it_found(tmp_path, capsys):
    folder = tmp_path / "set"
    assert main(["generate", "blocksworld", "--count", "6", "--seed", "3", "--out", str(folder), "--quiet"]) == 0
    lengths = Counter(i.optimal_length for i in read_instance_set(folder))
    short = sum(n for k, n in lengths.items() if k <= 6)
    assert short < 3
    code = _score(tmp_path, "--instances", str(folder), "--stratify", "plan-length", "--bins", "2-6,7-20",
                  "--per-bin", "3")
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert f"bin 2-6 fell short: found {short} of 3" in err and "all 6 instances of the folder" in err
    assert "7-20 fell short" not in err and "7-20: 3" in err


def test_stratify_on_generated_instances_gives_up_on_an_impossible_bin(tmp_path, capsys):
    code = _score(tmp_path, "--stratify", "h-star", "--bins", "1-4,40-50", "--per-bin", "2")
    err = capsys.readouterr().err.strip()
    assert code == 2 and "bin 40-50 fell short: found 0 of 2" in err and "generated instances" in err


@pytest.mark.parametrize("argv, message", [
    (["--stratify", "plan-length"], "needs --bins"),
    (["--stratify", "size", "--bins", "1-2", "--per-bin", "2"], "unknown difficulty feature"),
    (["--stratify", "width", "--bins", "1-2", "--per-bin", "0"], "--per-bin must be at least 1"),
])
def test_stratify_bad_options_exit_2(tmp_path, capsys, argv, message):
    code = _score(tmp_path, *argv)
    err = capsys.readouterr().err.strip()
    assert code == 2 and message in err and len(err.splitlines()) == 1


def test_stratify_by_a_feature_the_sub_task_lacks_says_so_at_once(tmp_path, capsys):
    code = _score(tmp_path, "--stratify", "list-length", "--bins", "1-50", "--per-bin", "2")
    err = capsys.readouterr().err.strip()
    assert code == 2 and "plan-verification items have no list-length" in err and "plan-length" in err
