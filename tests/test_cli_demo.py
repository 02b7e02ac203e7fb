"""`widthbench demo`: renders an instance, runs the small grid against sim:oracle, prints the table."""

from __future__ import annotations

import time

from widthbench.cli import main


def test_demo_runs_offline_quickly_and_labels_results_simulated(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    start = time.perf_counter()
    assert main(["demo"]) == 0
    elapsed = time.perf_counter() - start
    out = capsys.readouterr().out
    assert elapsed < 60
    assert "Initial state:" in out and "the hand is empty" in out  # natural-language rendering
    assert "SIMULATED" in out
    assert "| Action Generation | 3/3 | 3/3 | 3/3 | 3/3 |" in out
    assert "Novelty Pruning NDAP" in out and "Width Estimate" in out
    demo = tmp_path / "widthbench-demo"
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
