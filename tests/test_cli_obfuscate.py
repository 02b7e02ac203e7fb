"""--obfuscate on the command line: generate writes renamed files a planner reads (same optimal
length), render prints renamed facts, export and `score --items` keep the renaming; bad combinations
are one line on stderr and exit 2."""

from __future__ import annotations

import json

import pytest

from widthbench.cli import main


def test_generate_writes_renamed_files_a_planner_solves(tmp_path, capsys):
    out = tmp_path / "set"
    assert main(["generate", "blocksworld", "--count", "2", "--blocks", "3", "--seed", "1", "--obfuscate",
                 "mystery", "--obfuscate-seed", "3", "--out", str(out), "--quiet"]) == 0
    mapping = json.loads((out / "obfuscated" / "mapping.json").read_text())
    assert mapping["mode"] == "mystery" and set(mapping["actions"]) == {"pick-up", "put-down", "stack", "unstack"}
    text = (out / "obfuscated" / "domain.pddl").read_text()
    assert "unstack" not in text and mapping["actions"]["unstack"] in text
    rows = [json.loads(x) for x in (out / "manifest.jsonl").read_text().splitlines()]
    capsys.readouterr()
    assert main(["plan", str(out / "obfuscated" / "domain.pddl"), str(out / "obfuscated" / "instance-0001.pddl")]) == 0
    plan = [x for x in capsys.readouterr().out.splitlines() if x.startswith("(")]
    assert len(plan) == rows[0]["optimal_length"]
    assert all(p.split()[0][1:] in mapping["actions"].values() for p in plan)


def test_render_obfuscated(tmp_path, capsys):
    out = tmp_path / "set"
    assert main(["generate", "logistics", "--count", "1", "--seed", "1", "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["render", str(out / "instance-0001.pddl"), "--style", "pddl", "--obfuscate", "random"]) == 0
    res = capsys.readouterr()
    assert "(at " not in res.out and "in-city" not in res.out and "names obfuscated: random" in res.err


def test_export_and_score_items_keep_the_renaming(tmp_path, capsys):
    folder = tmp_path / "export"
    assert main(["export", "lm-eval", "--subtask", "action-generation,plan-verification", "--count", "2",
                 "--obfuscate", "deceptive", "--out", str(folder)]) == 0
    rows = [json.loads(x) for x in (folder / "data" / "action-generation" / "pddl.jsonl").read_text().splitlines()]
    assert rows and all("(unstack " not in r["user"] and "(pick-up " not in r["user"] for r in rows)
    assert main(["score", "--items", str(folder), "--model", "sim:oracle", "--out", str(tmp_path / "run"),
                 "--quiet"]) == 0
    recs = [json.loads(x) for x in (tmp_path / "run" / "items.jsonl").read_text().splitlines()]
    assert recs and all(r["correct"] for r in recs)


@pytest.mark.parametrize("argv,message", [
    (["score", "--obfuscate-seed", "3"], "--obfuscate-seed needs --obfuscate"),
    (["score", "--obfuscate", "mystery", "--instances", "DIR", "--context", "CTX"], "hand-written --context"),
    (["solve", "--method", "naive", "--domain", "game24", "--obfuscate", "random"], "does not apply to game24"),
])
def test_bad_combinations(tmp_path, capsys, argv, message):
    if "DIR" in argv:
        assert main(["generate", "blocksworld", "--count", "1", "--blocks", "3", "--seed", "1",
                     "--out", str(tmp_path / "set"), "--quiet"]) == 0
        (tmp_path / "ctx.txt").write_text("context")
        argv = [str(tmp_path / "set") if a == "DIR" else str(tmp_path / "ctx.txt") if a == "CTX" else a for a in argv]
    capsys.readouterr()
    code = main(argv + ["--model", "sim:oracle", "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
