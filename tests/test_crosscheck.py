"""scripts/crosscheck.py: our ground truth agrees with Fast Downward and unified-planning's validator."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "crosscheck.py"


@pytest.fixture(scope="module")
def crosscheck():
    spec = importlib.util.spec_from_file_location("crosscheck", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["crosscheck"] = mod  # worker processes find the functions by module name
    sys.path.insert(0, str(SCRIPT.parent))  # ... also workers started afresh (a fork server)
    spec.loader.exec_module(mod)
    yield mod
    sys.path.remove(str(SCRIPT.parent))
    del sys.modules["crosscheck"]


def test_a_few_hundred_cases_have_no_disagreement(crosscheck):
    r = crosscheck.run(200, seed=1234, workers=2, progress=False)
    assert r["errors"] == []
    assert r["disagreements"] == []
    assert r["cases"] >= 200
    kinds = set(r["counts"])
    assert {"bfs-vs-fd", "astar-lmcut-vs-fd", "astar-blocksworld-vs-fd", "generator-vs-fd",
            "truth-enumerated-vs-search", "truth-enumerated-vs-fd", "next-action-vs-fd",
            "validate:optimal", "validate:random-walk", "validate:mutation", "validate:random-text"} <= kinds


def test_the_validator_comparison_detects_a_wrong_verdict(crosscheck):
    """Sanity check of the checker: our engine on one goal, UP on another -> disagreement."""
    from widthbench.planners.fd import up_problem
    from widthbench.planners.strips import ground, load_domain

    dom = load_domain("blocksworld")
    init = ["(on c a)", "(ontable a)", "(ontable b)", "(clear c)", "(clear b)", "(handempty)"]
    ours = ground(dom, ["a", "b", "c"], init, ["(on a b)"], name="x")
    theirs = up_problem(ground(dom, ["a", "b", "c"], init, ["(on b c)"], name="x"))
    plan = ["(unstack c a)", "(put-down c)", "(pick-up a)", "(stack a b)"]
    ok, _ = crosscheck.compare_validators(ours, plan, theirs)
    assert not ok
    ok, _ = crosscheck.compare_validators(ours, plan, up_problem(ours))
    assert ok
    # a plan failing at a step: same step and same unmet preconditions on both sides
    ok, detail = crosscheck.compare_validators(ours, ["(unstack c a)", "(pick-up b)"], up_problem(ours))
    assert ok and "step 2" in detail


def test_main_prints_summary_and_exit_status(crosscheck, capsys):
    code = crosscheck.main(["--cases", "5", "--seed", "5", "--workers", "1", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0 and "0 disagreements, 0 errors" in out and "cases by kind" in out
