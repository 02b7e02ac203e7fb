"""No record is dropped in silence, and a report shows the numbers of the records behind it (issue 39):

- a damaged line in the middle of a run's items.jsonl (score or solve) is one line naming the
  file and the line, exit 2, from `report` and from the command that resumes the run; before,
  the line was skipped and the report said 5/5 for a cell from summary.json;
- a torn last line (a kill during the write) is passed over by `report`, which says once that
  summary.json no longer matches, and the rerun makes its record again;
- a summary.json that disagrees with items.jsonl is overridden by the records, said once on stderr
  (`widthbench.reports.records`); an untouched run is reported without a word.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from tests.reports.conftest import summary
from widthbench.cli import main

SCORE = ["score", "--subtask", "plan-verification,action-generation", "--count", "3", "--seed", "0",
         "--style", "pddl", "--thinking", "off", "--model", "sim:noisy:0.4", "--quiet"]
SOLVE = ["solve", "--method", "tot-dfs", "--domain", "blocksworld", "--count", "3", "--seed", "1",
         "--max-plan-length", "6", "--model", "sim:noisy:0.2", "--quiet"]


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("records")
    out = {"score": root / "score", "solve": root / "solve"}
    assert main([*SCORE, "--out", str(out["score"]), "--cache-dir", str(root / "cache")]) == 0
    assert main([*SOLVE, "--out", str(out["solve"]), "--cache-dir", str(root / "cache")]) == 0
    return out


def _copy(made, kind: str, tmp_path: Path) -> Path:
    run = tmp_path / kind
    shutil.copytree(made[kind], run)
    return run


def _err_lines(capsys) -> list[str]:
    return capsys.readouterr().err.strip().splitlines()


def _damage(items: Path, line: int) -> None:
    lines = items.read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) > line
    lines[line - 1] = lines[line - 1][:40] + "\n"  # a record cut short, then the next one
    items.write_text("".join(lines), encoding="utf-8")


@pytest.mark.parametrize("kind", ["score", "solve"])
def test_a_damaged_middle_line_is_one_line_naming_file_and_line(made, kind, tmp_path, capsys):
    run = _copy(made, kind, tmp_path)
    _damage(run / "items.jsonl", 2)
    capsys.readouterr()
    assert main(["report", str(run), "--out", str(tmp_path / "report")]) == 2
    err = _err_lines(capsys)
    assert len(err) == 1 and f"{run / 'items.jsonl'}:2: not JSON" in err[0], err
    assert "Traceback" not in err[0] and len(err[0]) <= 300
    # the command that resumes the run refuses it alike, before asking anything
    again = SCORE if kind == "score" else SOLVE
    assert main([*again, "--out", str(run), "--cache-dir", str(tmp_path / "cache")]) == 2
    err = _err_lines(capsys)
    assert len(err) == 1 and f"{run / 'items.jsonl'}:2: not JSON" in err[0], err


def test_a_torn_last_line_is_said_by_report_and_made_again_by_the_rerun(made, tmp_path, capsys):
    # a long path, as a parallel test worker's is: the note is cut to one line, and what it means
    # (the records' numbers are shown) comes before the detail that may be cut
    run = _copy(made, "score", tmp_path / ("a-folder-with-a-long-name-" * 2))
    items = run / "items.jsonl"
    whole = items.read_bytes()
    items.write_bytes(whole[:-30])  # a kill in the middle of the last record
    capsys.readouterr()
    assert main(["report", str(run)]) == 0
    notes = _err_lines(capsys)
    assert len(notes) == 1 and f"{run / 'summary.json'} disagrees with items.jsonl" in notes[0], notes
    assert " rows differ; " in notes[0] and "the report shows the records' numbers" in notes[0]
    assert main([*SCORE, "--out", str(run), "--cache-dir", str(tmp_path / "cache")]) == 0
    capsys.readouterr()
    assert len(items.read_bytes().splitlines()) == len(whole.splitlines())
    assert summary(run)["rows"] == summary(made["score"])["rows"]
    assert main(["report", str(run)]) == 0
    assert _err_lines(capsys) == []


def _csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_an_edited_score_summary_is_overridden_by_the_records_and_said_once(made, tmp_path, capsys, monkeypatch):
    run = _copy(made, "score", tmp_path)
    monkeypatch.chdir(tmp_path)  # the run named as a user names it: a short path, the whole note in one line
    capsys.readouterr()
    assert main(["report", "score"]) == 0
    assert _err_lines(capsys) == []  # a run as `score` wrote it: nothing to say
    data = summary(run)
    row = next(r for r in data["rows"] if r["correct"] < r["n"])
    truth = (row["correct"], row["n"])
    row["correct"], row["accuracy"] = row["n"], 1.0
    (run / "summary.json").write_text(json.dumps(data), encoding="utf-8")
    assert main(["report", "score"]) == 0
    notes = _err_lines(capsys)
    assert len(notes) == 1, notes
    assert notes[0] == (
        "widthbench report: note: score/summary.json disagrees with items.jsonl; the report shows the records' "
        f"numbers (1 of {len(data['rows'])} rows differ; {row['subtask']} {row['metric']} pddl/thinking off "
        f"(flexible reader) k/n: {truth[1]}/{truth[1]} in summary.json, {truth[0]}/{truth[1]} in the records)")
    shown = next(r for r in _csv(run / "rows.csv") if r["subtask"] == row["subtask"]
                 and r["metric"] == row["metric"] and r["reader"] == "flexible")
    assert (int(shown["correct"]), int(shown["n"])) == truth


def test_an_edited_solve_summary_is_overridden_by_the_records_and_said_once(made, tmp_path, capsys, monkeypatch):
    run = _copy(made, "solve", tmp_path)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["report", "solve"]) == 0
    assert _err_lines(capsys) == []
    data = summary(run)
    solved, n = data["solved"], data["n"]
    data["solved"] = solved - 1
    (run / "summary.json").write_text(json.dumps(data), encoding="utf-8")
    assert main(["report", "solve"]) == 0
    notes = _err_lines(capsys)
    assert notes == ["widthbench report: note: solve/summary.json disagrees with items.jsonl; the report shows the "
                     f"records' numbers (solved: {solved - 1} in summary.json, {solved} in the records)"]
    (line,) = _csv(run / "search_table.csv")
    assert f"{solved}/{n}" in line.values()
