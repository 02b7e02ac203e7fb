"""`widthbench solve` and `widthbench report` on solve runs."""

from __future__ import annotations

import json

from widthbench.cli import main
from widthbench.reports.search import write_report


def test_solve_then_report(tmp_path, capsys):
    runs = []
    for novelty, thinking in (("off", "off"), ("llm", "off"), ("off", "on"), ("oracle", "on")):
        out = tmp_path / f"run-{novelty}-{thinking}"
        code = main(["solve", "--method", "tot-dfs", "--novelty", novelty, "--thinking", thinking,
                     "--domain", "blocksworld", "--count", "3", "--seed", "2", "--max-plan-length", "6",
                     "--model", "sim:noisy:0.1", "--cache-dir", str(tmp_path / "cache"), "--out", str(out),
                     "--quiet"])
        assert code == 0
        runs.append(out)
    printed = capsys.readouterr().out
    assert "(simulated)" in printed and "solved" in printed
    summary = json.loads((runs[0] / "summary.json").read_text())
    assert summary["kind"] == "solve" and summary["n"] == 3
    assert len((runs[0] / "items.jsonl").read_text().splitlines()) == 3
    written = write_report(runs, tmp_path / "report")
    names = {p.name for p in written}
    assert {"search_table.md", "search_success_tokens.png", "search_states.png"} <= names
    table = (tmp_path / "report" / "search_table.md").read_text()
    assert "(simulated)" in table and "Nov. pruning" in table and "Thinking" in table and "| DFS | Direct |" in table
    assert main(["report", str(runs[0])]) == 0
    assert (runs[0] / "search_table.md").exists()


def test_solve_user_errors_are_one_line(tmp_path, capsys):
    assert main(["solve", "--tasks", str(tmp_path / "missing.jsonl"), "--model", "sim:oracle",
                 "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "argument --tasks: not found" in err
    assert main(["solve", "--domain", "game24", "--tasks", "x", "--model", "sim:oracle", "--out", "r"]) == 2
    assert main(["solve", "--domain", "game24", "--count", "1", "--branch-factor", "0", "--model", "sim:oracle",
                 "--out", str(tmp_path / "r2")]) == 2


def test_solve_thinking_both_runs_each_mode_into_its_own_folder(tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["solve", "--method", "naive", "--thinking", "both", "--domain", "blocksworld", "--count", "2",
                 "--seed", "1", "--model", "sim:oracle", "--cache-dir", str(tmp_path / "cache"),
                 "--out", str(out), "--quiet"])
    assert code == 0
    printed = capsys.readouterr().out.strip().splitlines()
    assert len(printed) == 2 and "thinking-off" in printed[0] and "thinking-on" in printed[1]
    off = json.loads((out / "thinking-off" / "summary.json").read_text())
    on = json.loads((out / "thinking-on" / "summary.json").read_text())
    assert off["solved"] == on["solved"] == 2
    assert "normal" in off["label"] and "thinking" in on["label"]
    ledger = json.loads((out / "thinking-on" / "tokens.json").read_text())
    assert json.dumps(ledger).count("thinking") > 0
    assert main(["report", str(out / "thinking-off"), str(out / "thinking-on"), "--out", str(tmp_path / "rep")]) == 0
