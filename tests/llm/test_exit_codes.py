"""Incomplete runs are visible: `score` and `solve` exit 3 with one summary line when requests
failed after their retries, and a rerun against a working server completes and exits 0."""

import json

from widthbench.cli import main
from widthbench.llm.cli_args import INCOMPLETE_EXIT


def _score(server, out, cache_dir):
    return main(["score", "--subtask", "plan-verification", "--style", "pddl", "--thinking", "off",
                 "--count", "3", "--model", "openai:sim:oracle", "--base-url", server.base_url,
                 "--retries", "0", "--quiet", "--cache-dir", str(cache_dir), "--out", str(out)])


def test_score_exits_3_when_requests_failed_and_the_rerun_completes(sim_server, tmp_path, capsys):
    broken = sim_server(model="sim:oracle", fail_rate=1.0, faults=("500",))
    out = tmp_path / "run"
    assert _score(broken, out, tmp_path / "c") == INCOMPLETE_EXIT == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("widthbench: 3 item-modes failed after retries; rerun to retry them")
    healthy = sim_server(model="sim:oracle")
    assert _score(healthy, out, tmp_path / "c") == 0
    assert "failed after retries" not in capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    assert sum(r["request_errors"] for r in summary["rows"]) == 0


def _solve(server, out, cache_dir):
    return main(["solve", "--method", "naive", "--domain", "blocksworld", "--count", "2",
                 "--model", "openai:sim:oracle", "--base-url", server.base_url, "--retries", "0",
                 "--quiet", "--cache-dir", str(cache_dir), "--out", str(out)])


def test_solve_exits_3_when_requests_failed_and_the_rerun_searches_them_again(sim_server, tmp_path, capsys):
    broken = sim_server(model="sim:oracle", fail_rate=1.0, faults=("500",))
    out = tmp_path / "solve"
    assert _solve(broken, out, tmp_path / "c") == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("widthbench: 2 instances met requests that failed after retries; "
                              "rerun to retry them")
    healthy = sim_server(model="sim:oracle")
    assert _solve(healthy, out, tmp_path / "c") == 0
    from widthbench.searches.solve_run import read_items

    items = read_items(out)  # the latest record per instance: the failed searches were made again
    assert len(items) == 2 and all(not i["tokens_detail"]["errors"] for i in items)
    assert json.loads((out / "summary.json").read_text())["solved"] == 2
