"""Reports of closed-loop solve runs: the feedback and agent tables keyed by run, success by round
drawn only with --figures, and every episode's transcript in report.html."""

from __future__ import annotations

import csv
import json

from widthbench.cli import main


def _solve(tmp_path, method, name, model="sim:noisy:0.5", *extra):
    out = tmp_path / name
    assert main(["solve", "--method", method, *extra, "--domain", "blocksworld", "--count", "4", "--seed", "6",
                 "--blocks", "4", "--model", model, "--cache-dir", str(tmp_path / "cache"), "--out", str(out),
                 "--quiet"]) == 0
    return out


def test_closed_loop_tables_figure_and_transcripts(tmp_path):
    fb = _solve(tmp_path, "feedback", "fb", "sim:noisy:0.5", "--rounds", "5")
    ag = _solve(tmp_path, "agent", "ag", "sim:noisy:0.5")
    oracle = _solve(tmp_path, "agent", "ag-oracle", "sim:oracle")
    rep = tmp_path / "rep"
    assert main(["report", str(fb), str(ag), str(oracle), "--out", str(rep)]) == 0
    assert not (rep / "search_rounds.png").exists()  # figures only when asked for
    rows = list(csv.reader((rep / "closed_loop.csv").open()))
    agent_rows = [r for r in rows if r[0] == "agent"]
    header = next(r for r in rows if r[0] == "method" and "Recoveries" in r)
    by_run = {r[1]: dict(zip(header, r)) for r in agent_rows}
    assert len(by_run) == 2 and all("model" in k for k in by_run)  # keyed by run label
    summaries = {p: json.loads((p / "summary.json").read_text()) for p in (ag, oracle)}
    for label, r in by_run.items():
        s = summaries[oracle] if "oracle" in label else summaries[ag]
        assert r["Invalid-action rate"] == str(s["invalid_action_rate"]) and r["Recoveries"] == str(s["recoveries"])
    fb_row = next(r for r in rows if r[0] == "feedback")
    s = json.loads((fb / "summary.json").read_text())
    assert fb_row[2] == str(s["solved"]) and fb_row[-1] == f"{s['solved_by_round'][-1]} (N = 5)"
    html = (rep / "report.html").read_text()
    first = json.loads((ag / "items.jsonl").read_text().splitlines()[0])
    assert '"episode"' in html and json.dumps(first["episode"][0]["answer"])[1:-1] in html
    assert "episodeView" in html and "roundsView" in html
    assert main(["report", str(fb), "--out", str(tmp_path / "rep2"), "--figures"]) == 0
    assert (tmp_path / "rep2" / "search_rounds.png").stat().st_size > 0
    assert (tmp_path / "rep2" / "search_rounds.pdf").stat().st_size > 0
