"""`widthbench score` and `widthbench report` end to end against sim-servers over real HTTP."""

from __future__ import annotations

import json

import pytest

from widthbench.cli import main
from widthbench.llm.sim_server import ServerThread, SimServerConfig
from widthbench.simulated import simulator_for


@pytest.fixture(scope="module")
def servers():
    """One sim-server per model for the whole module (each serves one model name)."""
    started = {m: ServerThread(SimServerConfig(model=m, simulator=simulator_for(m))).start()
               for m in ("sim:oracle", "sim:const:yes", "sim:gibberish")}
    yield {m: s.base_url for m, s in started.items()}
    for s in started.values():
        s.stop()


def _score(servers, model, out, *extra, cache=None):
    argv = ["score", "--model", f"openai:{model}", "--base-url", servers[model], "--out", str(out),
            "--quiet", "--cache-dir", str(cache or out.parent / "cache"), *extra]
    return main(argv)


def _summary(out):
    return json.loads((out / "summary.json").read_text())


def _lines(out):
    return [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines() if line.strip()]


def test_oracle_over_http_scores_everything_and_labels_it_simulated(servers, tmp_path, capsys):
    out = tmp_path / "run"
    assert _score(servers, "sim:oracle", out, "--subtask", "paper", "--count", "2",
                  "--prompt-extension", "both") == 0
    printed = capsys.readouterr().out
    assert "SIMULATED" in printed and "Standard Normal" in printed
    s = _summary(out)
    assert s["kind"] == "score" and s["simulated"] is True
    modes = {(r["style"], r["thinking"]) for r in s["rows"]}
    assert modes == {("pddl", "on"), ("pddl", "off"), ("nl", "on"), ("nl", "off")}
    for r in s["rows"]:
        assert r["correct"] == r["n"] and r["simulated"] is True
        for key in ("subtask", "metric", "style", "thinking", "n", "correct", "accuracy", "ci_low",
                    "ci_high", "parse_errors", "mean_prompt_tokens", "mean_completion_tokens",
                    "mean_thinking_tokens"):
            assert key in r
    ag = next(r for r in s["rows"] if r["subtask"] == "action-generation" and r["metric"] == "exact")
    assert {"mean_precision", "mean_recall", "mean_f1"} <= set(ag)
    pv = [r for r in s["rows"] if r["subtask"] == "plan-verification"]
    assert len(pv) == 4 and {r["metric"] for r in pv} == {"accuracy"}
    recs = _lines(out)
    assert len(recs) == 2 * 4 * 7 + 2 * 4  # 7 sub-tasks x 4 modes, + action-single with the extension
    for rec in recs:
        for key in ("item_id", "mode", "prompt", "raw_answer", "reasoning", "parsed", "truth", "correct",
                    "metrics", "tokens", "parse_error", "simulated"):
            assert key in rec
    assert (out / "tokens.json").is_file()


def test_always_yes_scores_exactly_half_on_plan_verification(servers, tmp_path):
    out = tmp_path / "run"
    assert _score(servers, "sim:const:yes", out, "--subtask", "plan-verification", "--count", "8",
                  "--style", "nl", "--thinking", "off") == 0
    (row,) = _summary(out)["rows"]
    assert (row["correct"], row["n"], row["parse_errors"]) == (4, 8, 0)


def test_gibberish_is_all_parse_errors_and_the_run_completes(servers, tmp_path):
    out = tmp_path / "run"
    assert _score(servers, "sim:gibberish", out, "--subtask", "all", "--count", "2", "--style", "pddl",
                  "--thinking", "on") == 0
    rows = _summary(out)["rows"]
    # "all" is every sub-task of the registry (the paper's ten, plan generation, the formalizations)
    from widthbench.subtasks.registry import Registry

    assert {r["subtask"] for r in rows} == set(Registry.default().names)
    for r in rows:
        assert r["correct"] == 0 and r["parse_errors"] == r["items"] == 2


def test_rerun_resumes_without_asking_again(servers, tmp_path):
    out = tmp_path / "run"
    args = ("--subtask", "action-single,novelty", "--count", "3", "--style", "pddl", "--no-cache")
    assert _score(servers, "sim:oracle", out, *args) == 0
    lines = (out / "items.jsonl").read_text().splitlines()
    assert len(lines) == 12
    # Lose the last three results and tear the line before them, as a crash would.
    (out / "items.jsonl").write_text("\n".join(lines[:8]) + "\n" + lines[8][:20])
    before = ServerStats(servers["sim:oracle"])
    assert _score(servers, "sim:oracle", out, *args) == 0
    assert before.asked() == 4
    recs = _lines_tolerant(out)
    assert len({(r["item_id"], r["mode"]) for r in recs}) == 12
    assert all(r["correct"] for r in recs)


class ServerStats:
    def __init__(self, url):
        from widthbench.llm.sim_server import fetch_stats

        self.url, self.fetch = url, fetch_stats
        self.start = fetch_stats(url)["chat_requests"]

    def asked(self):
        return self.fetch(self.url)["chat_requests"] - self.start


def _lines_tolerant(out):
    recs = []
    for line in (out / "items.jsonl").read_text().splitlines():
        try:
            recs.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return recs


def test_report_writes_table_csv_chart_and_error_analysis(servers, tmp_path, capsys):
    out = tmp_path / "run"
    assert _score(servers, "sim:oracle", out, "--subtask", "action-generation,plan-verification",
                  "--count", "2") == 0
    assert main(["report", str(out), "--figures"]) == 0
    md = (out / "table.md").read_text()
    assert "SIMULATED" in md and "| Action Generation | 2/2 | 2/2 | 2/2 | 2/2 |" in md
    assert "Error analysis" in md
    header = (out / "table.csv").read_text().splitlines()[0]
    assert header.endswith("Standard Normal,Standard Thinking,Natural Language Normal,Natural Language Thinking")
    assert (out / "table.png").stat().st_size > 1000


@pytest.mark.parametrize("argv,message", [
    (["score", "--model", "sim:oracle", "--out", "X", "--subtask", "bogus"], "unknown --subtask"),
    (["score", "--model", "sim:oracle", "--out", "X", "--count", "0"], "--count"),
    (["score", "--model", "sim:oracle", "--out", "X", "--domain", "logistics", "--subtask", "action-single",
      "--prompt-extension", "--count", "1"], "no prompt extension"),
    (["report", "does-not-exist"], "argument RUN: not found: does-not-exist"),
])
def test_user_mistakes_are_one_line_exit_2(argv, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WIDTHBENCH_CACHE_DIR", str(tmp_path / "cache"))
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_a_run_folder_refuses_other_settings(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("WIDTHBENCH_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "run"
    base = ["score", "--model", "sim:oracle", "--out", str(out), "--subtask", "width-estimate",
            "--count", "1", "--quiet"]
    assert main(base) == 0
    assert main(base[:-3] + ["--count", "2", "--quiet"]) == 2
    assert "other settings" in capsys.readouterr().err


def test_failed_requests_are_recorded_apart_and_retried_on_rerun(servers, tmp_path):
    out = tmp_path / "run"
    broken = ServerThread(SimServerConfig(model="sim:oracle", fail_rate=1.0, faults=("500",),
                                          simulator=simulator_for("sim:oracle"))).start()
    try:
        argv = ["score", "--model", "openai:sim:oracle", "--base-url", broken.base_url, "--out", str(out),
                "--quiet", "--no-cache", "--retries", "0", "--subtask", "plan-verification", "--count", "2",
                "--style", "nl", "--thinking", "off"]
        # An incomplete run exits 3 (docs/llm.md), so a script can tell; the rerun completes it.
        assert main(argv) == 3
    finally:
        broken.stop()
    (row,) = _summary(out)["rows"]
    assert (row["n"], row["request_errors"], row["parse_errors"]) == (0, 2, 0)
    argv[4] = servers["sim:oracle"]
    assert main(argv) == 0
    (row,) = _summary(out)["rows"]
    assert (row["n"], row["correct"], row["request_errors"]) == (2, 2, 0)


# ---- what a newcomer reads (issue 25) ---------------------------------------------------------


@pytest.fixture(scope="module")
def small_set(two_small_instances):
    return two_small_instances


def test_without_table_score_says_where_its_files_went_and_with_it_writes_report_html(small_set, tmp_path, capsys):
    base = ["score", "--instances", str(small_set), "--model", "sim:oracle", "--subtask", "action-generation",
            "--count", "1", "--style", "pddl", "--thinking", "off", "--no-cache", "--quiet"]
    out = tmp_path / "run"
    assert main([*base, "--out", str(out)]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith(f"run folder: {out} ") and f"widthbench report {out}" in last
    assert not (out / "report.html").exists()
    assert main([*base, "--out", str(out), "--table"]) == 0
    printed = capsys.readouterr().out
    assert (out / "report.html").is_file() and f"wrote {out / 'report.html'}" in printed
    assert (out / "table.md").is_file()


def test_not_built_names_the_sub_task_once(small_set, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["score", "--instances", str(small_set), "--model", "sim:oracle", "--subtask", "all",
                 "--count", "2", "--style", "pddl", "--thinking", "off", "--no-cache", "--quiet",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Not built: novelty-hard: 0 of 2 items" in printed
    assert "novelty-hard: novelty-hard" not in printed
    assert not json.loads((out / "summary.json").read_text())["not_built"]["novelty-hard"].startswith("novelty-hard")


def test_a_summary_recorded_with_the_name_in_the_reason_is_shown_once():
    from widthbench.subtasks.results.tables import format_table

    text = format_table({"rows": [], "not_built": {"novelty-hard": "novelty-hard: 0 of 3 items"}})
    assert text.strip() == "Not built: novelty-hard: 0 of 3 items"


def _row(**kw):
    row = {"subtask": "plan-verification", "metric": "correct", "style": "pddl", "thinking": "off",
           "extension": False, "domain": "blocksworld", "model": "m", "simulated": False, "reader": "flexible",
           "n": 4, "correct": 4, "accuracy": 1.0, "ci_low": 0.5, "ci_high": 1.0, "items": 4, "parse_errors": 0,
           "request_errors": 0, "skipped": 0}
    row.update(kw)
    return row


def test_a_cell_whose_requests_partly_failed_does_not_read_complete():
    from widthbench.subtasks.results.tables import format_table

    assert "| 4/4 |" in format_table({"rows": [_row()]})
    assert "| 4/4 · 1 failed |" in format_table({"rows": [_row(request_errors=1)]})


def test_a_cell_of_failed_requests_says_so_in_the_printed_table(tmp_path, capsys):
    broken = ServerThread(SimServerConfig(model="sim:oracle", fail_rate=1.0, faults=("500",),
                                          simulator=simulator_for("sim:oracle"))).start()
    try:
        assert main(["score", "--model", "openai:sim:oracle", "--base-url", broken.base_url, "--out",
                     str(tmp_path / "run"), "--quiet", "--no-cache", "--retries", "0", "--subtask",
                     "plan-verification", "--count", "2", "--style", "nl", "--thinking", "off"]) == 3
    finally:
        broken.stop()
    assert "| 0/0 · 2 failed |" in capsys.readouterr().out  # n counts answered items only


def test_bad_input_found_during_the_run_leaves_no_empty_run_folder(tmp_path, capsys):
    empty = tmp_path / "no-set"
    empty.mkdir()
    out = tmp_path / "runs" / "new"
    assert main(["score", "--instances", str(empty), "--model", "sim:oracle", "--no-cache", "--quiet",
                 "--out", str(out)]) == 2
    assert "no domain.pddl" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()  # neither the run folder nor the parent made for it


def test_a_run_folder_that_existed_stays_when_the_run_fails(tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    assert main(["score", "--instances", str(tmp_path / "nowhere"), "--model", "sim:oracle", "--no-cache",
                 "--quiet", "--out", str(out)]) == 2
    assert out.is_dir()
