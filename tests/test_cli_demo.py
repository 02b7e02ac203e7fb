"""`widthbench demo`: renders an instance, runs the small grid against sim:oracle, prints the table."""

from __future__ import annotations

from pathlib import Path

from widthbench.cli import main


def test_demo_runs_offline_and_labels_results_simulated(tmp_path, capsys, monkeypatch):
    # offline: the simulated model needs no server (its time is measured by scripts/bench_cli.py)
    monkeypatch.chdir(tmp_path)
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "Initial state:" in out and "the hand is empty" in out  # natural-language rendering
    assert "SIMULATED" in out
    # the paper's Table 1 rows, headline reader only (issue 39: it printed all 36 rows of 11 sub-tasks,
    # each with a "[strict reader]" twin), and one line saying where every other row is
    table = [line for line in out.splitlines() if line.startswith("| ") and not line.startswith("| Sub-task")]
    assert [line.split(" | ")[0][2:] for line in table] == [
        "Action Generation", "Action Generation Single Valid", "Action Generation Single Optimal",
        "Successor State Mapping", "Successor State Mapping Separate", "Goal State Verification",
        "Novelty Pruning", "Novelty Pruning NDAP"]
    assert all(line.endswith("| 3/3 | 3/3 | 3/3 | 3/3 |") for line in table)
    demo = tmp_path / "widthbench-demo"
    score = Path("widthbench-demo") / "score"
    assert (f"Every other row (the other sub-tasks and metrics, the prompt extension, the strict reader): "
            f"{score / 'table.md'}, {score / 'rows.csv'}, {score / 'report.html'}; ") in out
    assert "Width Estimate" in (demo / "score" / "table.md").read_text(encoding="utf-8")
    assert (demo / "instances" / "manifest.jsonl").is_file()
    assert (demo / "score" / "summary.json").is_file() and (demo / "score" / "table.md").is_file()
    page = demo / "score" / "report.html"
    assert page.is_file() and f"Open in a browser: {page.relative_to(tmp_path)}" in out
    assert "SIMULATED" in page.read_text(encoding="utf-8").split("</title>")[0]
    # A second run resumes from the same folder.
    assert main(["demo"]) == 0


def test_demo_other_folder_and_model(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path / "d"), "--count", "1", "--model", "sim:random"]) == 0
    assert "SIMULATED model sim:random" in capsys.readouterr().out
