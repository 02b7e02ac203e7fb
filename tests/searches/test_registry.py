"""The search-method registry: the built-in methods as records, and a method added as one module
file runs end to end through `widthbench solve --method-module FILE --method NAME`."""

from __future__ import annotations

import json
import textwrap

import pytest

from widthbench.cli import main
from widthbench.reports.search import SEARCH_NAMES, SEARCH_ORDER
from widthbench.searches.config import METHODS, SearchConfig
from widthbench.searches.registry import MethodRegistry

TOY = textwrap.dedent('''
    """A toy method: the naive prompt, asked once; the plan is cut to its first half."""
    from widthbench.searches.registry import Outcome, SearchMethod


    async def run(problem, config, llm, hooks, rng):
        reply = await llm.ask(problem.naive_messages(), "naive", state=problem.initial)
        plan = problem.parse_naive(reply.text or "")
        half = plan[: len(plan) // 2]
        return Outcome(half, problem.check(half), False, fields={"cut_from": len(plan)})


    def summary(items):
        return {"mean_cut_from": sum(it["cut_from"] for it in items) / len(items)}


    METHODS = (SearchMethod(name="half-plan", label="Half", order=99, run=run, tree=False, summary=summary,
                            help="the naive plan's first half"),)
''')


def test_builtin_methods_keep_their_names_and_table_labels():
    assert set(METHODS) >= {"naive", "tot-bfs", "tot-dfs", "mcts", "cat"}
    assert {k: SEARCH_NAMES[k] for k in ("tot-dfs", "tot-bfs", "mcts", "cat", "naive")} == {
        "tot-dfs": "DFS", "tot-bfs": "BFS", "mcts": "MCTS", "cat": "CaT", "naive": "Naive"}
    assert SEARCH_ORDER[:5] == ["DFS", "BFS", "MCTS", "CaT", "Naive"]
    reg = MethodRegistry.default()
    assert reg.uses_hooks("mcts") and not reg.uses_hooks("naive")
    # runs of methods without own settings keep the identity they had before the registry
    assert "settings" not in SearchConfig(method="naive").to_dict()


def test_a_method_added_as_one_module_runs_through_the_cli(tmp_path, capsys):
    path = tmp_path / "half_plan.py"
    path.write_text(TOY)
    out = tmp_path / "run"
    argv = ["solve", "--method-module", str(path), "--method", "half-plan", "--domain", "blocksworld",
            "--count", "3", "--seed", "5", "--model", "sim:oracle", "--cache-dir", str(tmp_path / "cache"),
            "--out", str(out), "--quiet"]
    assert main(argv) == 0
    summary = json.loads((out / "summary.json").read_text())
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    assert summary["config"]["method"] == "half-plan" and summary["n"] == 3 and summary["solved"] == 0
    assert all(it["method"] == "half-plan" and it["plan_length"] == it["cut_from"] // 2 for it in items)
    assert summary["mean_cut_from"] == sum(it["cut_from"] for it in items) / 3
    # half an optimal plan: exactly half the way (the engine's h* along an optimal plan)
    assert all(it["progress"] == pytest.approx((it["cut_from"] // 2) / it["cut_from"], abs=1e-4) for it in items)
    # without the module the name is unknown: one line, exit 2
    capsys.readouterr()
    assert main(["solve"] + argv[3:]) == 2
    err = capsys.readouterr().err
    assert "--method: 'half-plan'" in err and len(err.strip().splitlines()) == 1
