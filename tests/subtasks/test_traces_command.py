"""`widthbench traces`: a PlanBench result file and a run folder in, per-trace and per-cell results
out; bad input is one line on stderr and exit 2. `summarise_traces` counts what docs/traces.md says."""

from __future__ import annotations

import json

import pytest

from widthbench.cli import main
from widthbench.generators import generate
from widthbench.planners.strips import DOMAINS_DIR, load_task
from widthbench.subtasks.traces import summarise_traces

from tests.subtasks.traces_gen import write_trace


@pytest.fixture(scope="module")
def planbench_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("pb")
    inst_dir = d / "generated_basic_3"
    inst_dir.mkdir()
    entries, expect = [], {}
    for i, inst in enumerate(generate("blocksworld", 4, 11, blocks=3, optimal=False), start=1):
        (inst_dir / f"instance-{i}.pddl").write_text(inst.problem_pddl)
        task = load_task(DOMAINS_DIR / "blocksworld.pddl", inst_dir / f"instance-{i}.pddl")
        inject = "fact" if i % 2 else None
        w = write_trace(task, "nl", "planbench", seed=i, steps=3, inject=inject, weave=False)
        expect[i] = w.kind
        entries.append({"instance_id": i, "query": "[STATEMENT] ... [PLAN]", "llm_raw_response": "none",
                        "llm_correct": True, "response_object": {"choices": [{"message": {
                            "content": "none", "reasoning_content": w.text}}]}})
    f = d / "results.json"
    f.write_text(json.dumps({"task": "task_1_plan_generation", "domain": "blocksworld_3", "instances": entries}))
    return f, inst_dir, expect


def test_planbench_file_traces_and_summary(planbench_file, tmp_path, capsys):
    f, inst_dir, expect = planbench_file
    assert main(["traces", str(f), "--instances", str(inst_dir), "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "first error false-fact" in out and "no error found" in out
    recs = [json.loads(line) for line in (tmp_path / "o" / "traces.jsonl").read_text().splitlines()]
    assert len(recs) == 4
    for r in recs:
        fe = r["trace"]["first_error"]
        assert (fe["kind"] if fe else None) == expect[r["instance_id"]]
        assert set(r["trace"]) >= {"claims", "checked", "coverage", "first_error"}
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["run"]["with_error"] == sum(1 for k in expect.values() if k)
    # the final answers ("none") are empty plans that do not reach the goal: errors carried into them
    assert summary["run"]["carried"] == summary["run"]["with_error"]


@pytest.mark.parametrize("argv,words", [
    (["traces", "/no/such/place"], "not found"),
    (["traces", "{file}"], "needs --instances"),
    (["traces", "{file}", "--instances", "/no/such/dir"], "--instances: not found"),
    (["traces", "{notjson}", "--instances", "{dir}"], "not a PlanBench result file"),
    (["traces", "{dir}"], "no items.jsonl"),
])
def test_bad_input_is_one_line_exit_2(planbench_file, tmp_path, capsys, argv, words):
    f, inst_dir, _ = planbench_file
    notjson = tmp_path / "x.json"
    notjson.write_text("{not json")
    argv = [a.format(file=f, notjson=notjson, dir=inst_dir) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err and "Traceback" not in err


def test_run_folder_traces_are_labelled_simulated(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["score", "--subtask", "successor-mapping", "--count", "1", "--style", "nl", "--thinking", "on",
                 "--model", "sim:oracle", "--out", str(run), "--quiet", "--no-cache"]) == 0
    capsys.readouterr()
    assert main(["traces", str(run), "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "[simulated]" in out and "Traces (simulated)" in out
    recs = [json.loads(line) for line in (tmp_path / "o" / "traces.jsonl").read_text().splitlines()]
    assert recs and all(r["simulated"] and r["trace"] is not None for r in recs)


def test_traces_of_a_run_of_every_subtask_read_every_prompt_back(tmp_path, capsys):
    """Every sub-task's prompt reads back into a task, formalize-goal's too (it gives the problem as a
    PDDL file and no state of its own): `widthbench traces` on a run of them all checks every trace."""
    run = tmp_path / "run"
    assert main(["score", "--subtask", "all", "--count", "1", "--style", "nl", "--thinking", "on",
                 "--model", "sim:oracle", "--out", str(run), "--quiet", "--no-cache"]) == 0
    capsys.readouterr()
    assert main(["traces", str(run), "--out", str(tmp_path / "o")]) == 0
    recs = [json.loads(line) for line in (tmp_path / "o" / "traces.jsonl").read_text().splitlines()]
    assert "formalize-goal" in {r["subtask"] for r in recs}
    assert [r["subtask"] for r in recs if r["trace"] is None] == []


def _scored(recs):
    """(found at the injection, injected, errors on traces with nothing injected) of traces.jsonl records."""
    from widthbench.subtasks.traces.injections import outcome

    got = [outcome(r["trace"], r["trace"].get("injected", r.get("injected"))) for r in recs]
    got = [g for g in got if g is not None]
    injected = [g for g in got if g["kind"] is not None]
    return (sum(g["outcome"] == "found" for g in injected), len(injected),
            sum(g["outcome"] != "clean" for g in got if g["kind"] is None))


def test_traces_of_a_simulated_noisy_score_run_are_scored_against_its_injections(tmp_path, capsys):
    """sim:noisy with thinking on puts seeded errors into its thinking and says where: `widthbench traces`
    on the score run reads real claims, finds every injected error at its injection, reports no error
    on thinking written clean, and prints and writes the tally."""
    run = tmp_path / "run"
    assert main(["score", "--subtask", "action-single,successor-mapping,plan-verification", "--count", "6", "--style", "both",
                 "--thinking", "on", "--model", "sim:noisy:0.5", "--out", str(run), "--quiet", "--no-cache"]) == 0
    capsys.readouterr()
    assert main(["traces", str(run), "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    recs = [json.loads(line) for line in (tmp_path / "o" / "traces.jsonl").read_text().splitlines()]
    assert recs and all(r["trace"]["checked"] >= 3 for r in recs)  # real claims, not "0 of 0"
    found, injected, false = _scored(recs)
    assert injected >= 8 and found == injected and false == 0
    assert ": found" in out and "Injected errors" in out
    inj = json.loads((tmp_path / "o" / "summary.json").read_text())["run"]["injections"]
    assert (inj["found"], inj["injected"], inj["false_on_clean"]) == (found, injected, 0)


def test_traces_of_a_simulated_noisy_solve_run_report_the_injected_errors_at_their_injections(tmp_path, capsys):
    """The same on a solve run: every call's thinking is checked from the state its question was about,
    and `widthbench traces` reports each injected error at its injection."""
    run = tmp_path / "run"
    assert main(["solve", "--method", "tot-bfs", "--domain", "blocksworld", "--count", "2", "--max-plan-length", "6",
                 "--thinking", "on", "--model", "sim:noisy:0.5", "--out", str(run), "--quiet", "--no-cache"]) == 0
    capsys.readouterr()
    assert main(["traces", str(run), "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    recs = [json.loads(line) for line in (tmp_path / "o" / "traces.jsonl").read_text().splitlines()]
    found, injected, false = _scored(recs)
    assert injected >= 5 and found == injected and false == 0
    assert ": found" in out and "found at the injection" in out
    summary = json.loads((run / "summary.json").read_text())["traces"]["run"]["injections"]
    assert summary["found"] == summary["injected"] == injected


def _trace(kind=None, steps=0, correct=None, facts=()):
    fe = None if kind is None else {"kind": kind, "span": [0, 1], "quote": "x", "claimed": "(p)", "truth": "t",
                                    "actions": ["(a)"] * steps}
    claims = [{"kind": "fact", "verdict": v} for v in facts]
    return {"subtask": "s", "mode": "m", "trace": {"claims": claims, "checked": len(claims), "coverage": 0.5,
                                                   "first_error": fe, "final_answer_correct": correct}}


def test_summarise_traces_counts():
    recs = [_trace("false-fact", 2, True, ["right", "wrong"]), _trace("precondition", 0, False, ["right"]),
            _trace(None, 0, False, ["right", "retracted"]), _trace(None, 0, True), {"subtask": "s", "trace": None}]
    s = summarise_traces(recs)
    run = s["run"]
    assert run["traces"] == 4 and run["with_error"] == 2 and run["share_with_error"] == 0.5
    assert run["state_tracking_accuracy"] == 0.75  # 3 right of 4 judged; the retracted one left out
    assert run["recovered"] == 1 and run["carried"] == 1 and run["wrong_without_error"] == 1
    assert run["error_start_by_step"] == {"0": 1, "2": 1}
    assert run["first_error_kinds"] == {"false-fact": 1, "precondition": 1}
    assert list(s["cells"]) == ["s | m"]
