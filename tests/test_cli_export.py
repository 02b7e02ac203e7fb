"""`widthbench export lm-eval` and `widthbench score --items`: the same items as score builds,
scored again without regenerating; bad input is one line on stderr and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from widthbench.cli import main


def _export(folder: Path, *args: str) -> int:
    return main(["export", "lm-eval", "--out", str(folder), "--count", "2", *args])


def _one_line_error(capsys, code: int, *words: str) -> str:
    err = capsys.readouterr().err
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


def test_export_items_are_those_score_builds(tmp_path, monkeypatch):
    monkeypatch.setenv("WIDTHBENCH_CACHE_DIR", str(tmp_path / "cache"))
    assert _export(tmp_path / "x", "--subtask", "successor-mapping,plan-verification", "--seed", "3") == 0
    assert main(["score", "--subtask", "successor-mapping,plan-verification", "--count", "2", "--seed", "3",
                 "--style", "nl", "--thinking", "off", "--model", "sim:oracle", "--out", str(tmp_path / "built"),
                 "--quiet"]) == 0
    assert main(["score", "--items", str(tmp_path / "x"), "--subtask", "paper", "--style", "nl",
                 "--thinking", "off", "--model", "sim:oracle", "--out", str(tmp_path / "frozen"), "--quiet"]) == 0
    from widthbench.subtasks.score_run import read_records

    def key(r):
        return (r["subtask"], r["item_id"], json.dumps(r["item"], sort_keys=True), json.dumps(r["truth"], sort_keys=True),
                json.dumps(r["prompt"]))

    built = sorted(key(r) for r in read_records(tmp_path / "built"))
    frozen = sorted(key(r) for r in read_records(tmp_path / "frozen"))
    assert built == frozen and len(built) == 4
    summary = json.loads((tmp_path / "frozen" / "summary.json").read_text())
    assert all(r["accuracy"] == 1.0 for r in summary["rows"])
    # 'paper' through a frozen set: the sub-tasks it lacks are left out, with the reason
    assert "action-generation" in summary["not_built"]
    assert summary["identity"]["items"]["frozen"] == json.loads(
        (tmp_path / "x" / "widthbench_export.json").read_text())["items_digest"]


def test_export_again_with_the_same_items_is_allowed_and_other_items_are_refused(tmp_path, capsys):
    out = tmp_path / "x"
    assert _export(out, "--subtask", "plan-verification") == 0
    assert _export(out, "--subtask", "plan-verification") == 0
    capsys.readouterr()
    _one_line_error(capsys, _export(out, "--subtask", "plan-verification", "--seed", "1"), "holds other items")


def test_export_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    _one_line_error(capsys, _export(tmp_path / "a", "--subtask", "nope"), "unknown --subtask 'nope'")
    other = tmp_path / "b"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    _one_line_error(capsys, _export(other, "--subtask", "plan-verification"), "not a widthbench export")
    empty = tmp_path / "empty"
    empty.mkdir()
    import widthbench.pddl_domains

    (empty / "domain.pddl").write_text((Path(widthbench.pddl_domains.__file__).parent / "blocksworld.pddl").read_text())
    _one_line_error(capsys, _export(tmp_path / "c", "--instances", str(empty), "--subtask", "plan-verification"),
                    "no problem files")
    _one_line_error(capsys, _export(tmp_path / "d", "--count", "0"), "--count")


def test_score_items_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    args = ["--model", "sim:oracle", "--quiet"]
    _one_line_error(capsys, main(["score", "--items", str(tmp_path), "--out", str(tmp_path / "r"), *args]),
                    "holds no widthbench item set")
    out = tmp_path / "x"
    assert _export(out, "--subtask", "plan-verification") == 0
    capsys.readouterr()
    _one_line_error(capsys, main(["score", "--items", str(out), "--subtask", "novelty", "--out", str(tmp_path / "r2"),
                                  *args]), "no items of novelty")
    _one_line_error(capsys, main(["score", "--items", str(out), "--instances", str(out / "instances"),
                                  "--out", str(tmp_path / "r3"), *args]), "--items")
    # items edited after the export are refused, not scored against a stale digest
    for style in ("nl", "pddl"):
        path = out / "data" / "plan-verification" / f"{style}.jsonl"
        rows = [json.loads(x) for x in path.read_text().splitlines()]
        item = json.loads(rows[0]["item"])
        item["truth"] = not item["truth"]
        rows[0]["item"] = json.dumps(item, sort_keys=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        if style == "nl":  # the two styles' rows now disagree on the item
            _one_line_error(capsys, main(["score", "--items", str(out), "--out", str(tmp_path / "r4"), *args]),
                            "differs between the files")
    _one_line_error(capsys, main(["score", "--items", str(out), "--out", str(tmp_path / "r4"), *args]),
                    "differ from those exported")


def test_export_inspect_writes_the_same_frozen_items_as_lm_eval_and_score_items_reads_them(tmp_path, monkeypatch):
    monkeypatch.setenv("WIDTHBENCH_CACHE_DIR", str(tmp_path / "cache"))
    args = ["--subtask", "plan-verification,successor-separate", "--count", "2", "--seed", "4"]
    assert main(["export", "inspect", "--out", str(tmp_path / "i"), *args]) == 0
    assert main(["export", "lm-eval", "--out", str(tmp_path / "l"), *args]) == 0
    meta_i = json.loads((tmp_path / "i" / "widthbench_export.json").read_text())
    meta_l = json.loads((tmp_path / "l" / "widthbench_export.json").read_text())
    assert meta_i["items_digest"] == meta_l["items_digest"] and meta_i["harness"] == "inspect"
    # the task names of both harnesses, one per sub-task x style x thinking mode
    assert meta_i["tasks"] == meta_l["tasks"] and len(meta_i["tasks"]) == 2 * 2 * 2
    code = (tmp_path / "i" / "widthbench_tasks.py").read_text()
    assert all(f"def {t}():" in code for t in meta_i["tasks"])
    for sub in ("plan-verification", "successor-separate"):
        for style in ("nl", "pddl"):
            assert (tmp_path / "i" / "data" / sub / f"{style}.jsonl").read_text() == \
                (tmp_path / "l" / "data" / sub / f"{style}.jsonl").read_text()
    assert main(["score", "--items", str(tmp_path / "i"), "--style", "nl", "--thinking", "off", "--model", "sim:oracle",
                 "--out", str(tmp_path / "run"), "--quiet"]) == 0
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert {r["subtask"] for r in summary["rows"]} == {"plan-verification", "successor-separate"}
    assert all(r["accuracy"] == 1.0 for r in summary["rows"])


def test_export_inspect_into_an_lm_eval_folder_is_refused(tmp_path, capsys):
    assert _export(tmp_path / "x", "--subtask", "plan-verification") == 0
    capsys.readouterr()
    _one_line_error(capsys, main(["export", "inspect", "--out", str(tmp_path / "x"), "--count", "2",
                                  "--subtask", "plan-verification"]), "export for lm-eval")
