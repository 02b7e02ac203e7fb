"""The formalization sub-tasks (issue 44): the simulated oracle, which renames and reorders, scores
100% in every cell; sim:noisy's injected errors get the class they were made to have; the PDDL
readers read one form and never pick one of several; an undecided verdict is counted apart."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ACP, need_data
from widthbench.core.errors import ParseError
from widthbench.pddl_domains.readers import pddl_text
from widthbench.planners.equivalence import Equivalence
from widthbench.planners.strips import load_domain, parse_problem_text
from widthbench.simulated import open_model
from widthbench.subtasks import sim_answers
from widthbench.subtasks.answers import PDDL_GOAL
from widthbench.subtasks.definitions import formalize, formalize_domain
from widthbench.subtasks.items import Item
from widthbench.subtasks.results.rows import summarise
from widthbench.subtasks.score_run import ScoreConfig, read_records, run_score

FORMALIZE = ("formalize-problem", "formalize-goal")


def _run(tmp_path, spec, **config):
    model = open_model(spec, cache_dir=tmp_path / "cache")
    try:
        return run_score(ScoreConfig(**config), model, tmp_path / "run", quiet=True)
    finally:
        model.close()


@pytest.mark.parametrize("source", ["blocksworld", "logistics", "ferry", "gripper-strips"])
def test_oracle_scores_both_subtasks_in_full_in_both_styles_and_modes(tmp_path, source):
    if source in ("blocksworld", "logistics"):
        config = {"domain": source}
    else:
        need_data()
        config = {"instances": str(ACP / source)}
    summary = _run(tmp_path, "sim:oracle", subtasks=FORMALIZE, count=2, seed=4, **config)
    cells = {(r["subtask"], r["style"], r["thinking"]) for r in summary["rows"]}
    assert len(cells) == 2 * 4
    for r in summary["rows"]:
        assert r["correct"] == r["n"] == 2, r
        assert r["parse_errors"] == 0 and r.get("undecided", 0) == 0
    for rec in read_records(tmp_path / "run"):
        assert rec["metrics"]["reason"] == "equivalent"
        if rec["subtask"] == "formalize-problem":  # renamed: the truth's names are nowhere in the answer
            truth_objects = {o for o, _ in rec["metrics"]["bijection"].items()}
            assert truth_objects.isdisjoint(set(rec["metrics"]["bijection"].values()))


def test_noisy_errors_are_classified_as_the_error_injected(tmp_path):
    summary = _run(tmp_path, "sim:noisy:1.0", subtasks=FORMALIZE, domain="blocksworld", count=12, seed=2,
                   thinking=(True,))
    assert all(r["correct"] == 0 for r in summary["rows"] if r["metric"] == "equivalent")
    seen = set()
    for rec in read_records(tmp_path / "run"):
        m = re.search(r"Injected: (\S+) (\(.*?\)\)?)$", rec["reasoning"], re.M)
        assert m, rec["reasoning"]
        kind, atom = m.group(1), m.group(2)
        table = sim_answers.PROBLEM_INJECTIONS if rec["subtask"] == "formalize-problem" else sim_answers.GOAL_INJECTIONS
        metrics = rec["metrics"]
        assert metrics["reason"] == table[kind], (kind, atom, metrics["message"])
        seen.add((rec["subtask"], kind))
        pred = atom.strip("()").split()[0]
        if kind == "drop-init":  # the atom is missing (under the best bijection: a like atom)
            assert [a.strip("()").split()[0] for a in metrics["missing"]] == [pred]
        elif kind == "add-init":
            assert [a.strip("()").split()[0] for a in metrics["extra"]] == [pred]
        elif kind == "drop-goal":
            assert pred in [a.strip("()").split()[0] for a in metrics["missing"]]
            assert metrics["example_state"]
        else:  # wrong-arity, unknown-object: the faulty atom is named
            assert atom.strip("()").split()[0] in metrics["message"]
            assert metrics["parses"] == 0
    assert len({k for _, k in seen}) >= 3, seen


def test_strict_reads_one_form_and_nothing_else():
    ok = "Answer:\n```pddl\n(define (problem p) (:domain d)\n  ; a comment (\n  (:goal (and)))\n```"
    assert pddl_text.strict(ok, "problem").startswith("(define (problem p)")
    with pytest.raises(ParseError, match="text after"):
        pddl_text.strict("Answer: (:goal (and (on a b))) as asked", "goal")
    with pytest.raises(ParseError, match="not a PDDL goal"):
        pddl_text.strict("Answer: the goal is (:goal (on a b))", "goal")
    with pytest.raises(ParseError, match="never closed"):
        pddl_text.strict("Answer: (:goal (and (on a b))", "goal")


def test_flexible_reads_the_one_form_and_refuses_two_different_ones():
    reply = "Here is my goal:\n(:goal (and (on a b)))\nRestated:\n(:GOAL (AND (on a b))) ; same"
    assert pddl_text.read(reply, "goal").value == "(:goal (and (on a b)))"
    whole = "(define (problem p) (:domain d) (:objects a b) (:init) (:goal (on a b)))"
    assert pddl_text.read("Answer:\n" + whole, "goal").value == "(:goal (on a b))"  # inside a whole problem
    with pytest.raises(ParseError, match="2 different goals"):
        pddl_text.read("(:goal (on a b))\nor rather\n(:goal (on b a))", "goal")
    with pytest.raises(ParseError, match="no PDDL problem"):
        pddl_text.read("I cannot write it.", "problem")


def test_an_undecided_verdict_is_counted_apart_never_right_or_wrong(tmp_path, monkeypatch):
    summary = _run(tmp_path, "sim:oracle", subtasks=("formalize-goal",), domain="blocksworld", count=3, seed=1,
                   styles=("pddl",), thinking=(False,))
    assert summary["rows"][0]["correct"] == 3
    records = read_records(tmp_path / "run")
    first = records[0]
    task = parse_problem_text(load_domain("blocksworld"), first["truth"]["problem"])
    item = Item("formalize-goal", 0, first["instance_id"], "blocksworld", task, state=task.init, truth=first["truth"])
    answer = "Answer:\n(:goal (and " + " ".join(first["truth"]["goal"]) + "))"
    score = formalize.SUBTASKS[1].score
    assert score(item, None, [PDDL_GOAL.read("flexible", item, answer, "pddl")])["metrics"]["equivalent"] == [1, 1]
    unknown = Equivalence(None, "unknown", "more than 5 reachable states", method="bound")
    monkeypatch.setattr(formalize, "problem_equivalence", lambda *a, **k: unknown)
    got = score(item, None, [PDDL_GOAL.read("flexible", item, answer, "pddl")])
    assert got["metrics"]["equivalent"] == [0, 0] and got["correct"] is False
    undecided = {**first, **got, "readings": {"flexible": got, "strict": got}}
    rows = summarise([undecided, *records[1:]], model_spec="sim:oracle", simulated=True)["rows"]
    row = next(r for r in rows if r["metric"] == "equivalent")
    assert (row["correct"], row["n"], row["items"], row["undecided"]) == (2, 2, 3, 1)


# --------------------------------------------------------------------------------------------
# formalize-domain


@pytest.mark.parametrize("domain", ["blocksworld", "logistics"])
def test_oracle_writes_an_equivalent_domain_with_every_name_changed(tmp_path, domain):
    summary = _run(tmp_path, "sim:oracle", subtasks=("formalize-domain",), domain=domain, count=2, seed=3,
                   thinking=(False,))
    for r in summary["rows"]:
        assert r["correct"] == r["n"] == 2 and r["parse_errors"] == 0, r
    for rec in read_records(tmp_path / "run"):
        m = rec["metrics"]
        assert m["reason"] == "equivalent" and len(rec["truth"]["instances"]) == formalize_domain.JUDGED_ON
        assert all(a["truth"] != a["model"] for a in m["actions"])  # matched by what they do, not by name
        assert all(k != v for k, v in m["predicates"].items() if k != "=")


def test_noisy_domain_with_an_effect_dropped_is_not_equivalent_naming_instance_and_transition(tmp_path):
    summary = _run(tmp_path, "sim:noisy:1.0", subtasks=("formalize-domain",), domain="blocksworld", count=4,
                   seed=5, thinking=(True,))
    assert all(r["correct"] == 0 for r in summary["rows"] if r["metric"] == "equivalent")
    for rec in read_records(tmp_path / "run"):
        m = re.search(r"Injected: (\S+) (act\d+) ", rec["reasoning"])
        assert m, rec["reasoning"]
        metrics = rec["metrics"]
        assert metrics["reason"] in sim_answers.DOMAIN_INJECTIONS[m.group(1)], metrics["message"]
        t = metrics["transition"]
        assert t["instance"] in metrics["message"] and t["instance"] in rec["info"]["judged_on"] + [
            x[1].split("(problem ", 1)[1].split(")")[0] for x in rec["truth"]["instances"]]
        # the action whose effect was dropped is the one the differing transition takes
        model_of = {a["model"]: a["truth"] for a in metrics["actions"]}
        assert t["action"].strip("()").split()[0] == model_of[m.group(2)]


def test_obfuscated_runs_leave_the_formalizations_out_with_the_reason(tmp_path, capsys):
    from widthbench.cli import main

    summary = _run(tmp_path, "sim:oracle", subtasks=("action-single", *FORMALIZE, "formalize-domain"),
                   skippable=(*FORMALIZE, "formalize-domain"), domain="blocksworld", count=2, seed=1,
                   styles=("pddl",), thinking=(False,), obfuscate=("mystery", 1))
    assert {r["subtask"] for r in summary["rows"]} == {"action-single"}
    assert set(summary["not_built"]) == {*FORMALIZE, "formalize-domain"}
    assert all("--obfuscate" in why for why in summary["not_built"].values())
    capsys.readouterr()
    code = main(["score", "--model", "sim:oracle", "--subtask", "formalize-goal", "--count", "2", "--obfuscate",
                 "mystery", "--out", str(tmp_path / "named")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--obfuscate" in err[0]


def test_error_analysis_counts_each_verdict_under_its_class_and_nothing_for_an_equivalent_one():
    def counted(errors, metrics):
        out = []
        errors({"metrics": metrics}, lambda group, key: out.append((group, key)))
        return out

    for errors in (formalize.errors, formalize_domain.errors):
        assert counted(errors, {"reason": "equivalent", "missing": ["(on a b)"],
                                "transition": {"action": "(stack a b)"}}) == []
        assert counted(errors, {}) == []
        assert counted(errors, {"reason": "unknown"}) == [("undecided (class)", "unknown")]
        assert counted(errors, {"reason": "unsupported"}) == [("undecided (class)", "unsupported")]
    assert counted(formalize.errors, {"reason": "init-differs", "missing": ["(on a b)"], "extra": ["(not (clear c))"]}) == [
        ("not equivalent (class)", "init-differs"),
        ("atoms the truth has and the answer lacks (predicate)", "on"),
        ("atoms the answer has beyond the truth (predicate)", "clear")]
    assert counted(formalize_domain.errors, {"reason": "transitions-differ",
                                             "transition": {"action": "(stack a b)"}}) == [
        ("not equivalent (class)", "transitions-differ"), ("first differing transition (true action)", "stack")]
    records = [{"metrics": {"reason": r}} for r in ("unknown", "equivalent", "unsupported", "goal-differs")]
    assert formalize_domain.row_extras(records, "equivalent") == {"undecided": 2}
    assert formalize_domain.row_extras(records, "parses") == {}
